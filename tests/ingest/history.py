"""A short conversation history as text turns, the way the import tests store it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from voxmem.stores.messages import Turn


def minute_turns(lines: Sequence[tuple[str, str, str]], t0: datetime, prefix: str) -> list[Turn]:
    """``(session, speaker, text)`` lines as turns one minute apart from ``t0``, with turn ids
    ``prefix0``, ``prefix1``, …: the ids make a retried import find what it stored, and a new
    prefix stores the same history again as new turns."""
    return [
        Turn(session, speaker, text, [], t0 + timedelta(minutes=i), f"{prefix}{i}")
        for i, (session, speaker, text) in enumerate(lines)
    ]
