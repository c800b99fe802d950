"""Build windows from plain (speaker, text) lists, the way the Neo4j loader does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from voxmem.extractors.window import Window, window_from_rows

SESSION_DATE = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)  # a Monday


def window(
    turns: list[tuple[str | None, str]],
    names: dict[str, str] | None = None,
    n: int = 3,
    roster: list[str] | None = None,
) -> Window:
    """Window of the last turn. ``turns`` are (speaker id, text); ``names`` maps ids to known names."""
    names = names or {}
    rows = [
        {
            "id": f"m{i}",
            "idx": i,
            "text": text,
            "ts": SESSION_DATE + timedelta(minutes=i),
            "speaker": {"id": sid, "name": names.get(sid), "aliases": []},
        }
        for i, (sid, text) in enumerate(turns)
    ][-(n + 1) :]
    people = [{"id": pid, "name": names.get(pid), "aliases": []} for pid in (roster or [])]
    return window_from_rows(rows, people, "s1", SESSION_DATE)
