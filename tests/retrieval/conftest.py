"""Fixtures of the retrieval tests: one household space per access policy, built once per module."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest

from voxmem.core import Voxmem
from voxmem.retrieval.service import RetrievalService

from .household import Household, build_household

logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def households(services: Voxmem) -> Iterator[dict[str, Household]]:
    """Identical households in three spaces: policy open, participant and private."""
    built: dict[str, Household] = {}
    try:
        for policy in ("open", "participant", "private"):
            built[policy] = build_household(services, f"test-ret-{policy}-{uuid.uuid4().hex[:8]}", policy)
        yield built
    finally:
        for house in built.values():
            services.spaces.delete(house.space)


@pytest.fixture(scope="module")
def retrieval(services: Voxmem) -> RetrievalService:
    return RetrievalService(services.settings, services.db, services.embedder, chat_model=None)
