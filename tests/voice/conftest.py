"""Fixtures of the voice tests."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every socket connection fails the test: an encoder backend must load without the network."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args[1:]}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
