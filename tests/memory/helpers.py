"""Build windows from plain (speaker, text) lists, the way the Neo4j loader does."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

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


def canonical(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Query rows in an order-free form (lists sorted, rows sorted), so two imports or two
    reprocessing passes of the same history compare equal whatever order Neo4j returns."""
    for row in rows:
        for key, value in row.items():
            if isinstance(value, list):
                row[key] = sorted(str(v) for v in value)
    return sorted(rows, key=repr)


def audit_items(query: Any, space: str) -> list[dict[str, Any]]:
    """A space's audit items, canonical, with participant ids masked: a detail may name a
    participant by id, and ids differ between two stores of the same history."""
    rows = query("MATCH (a:AuditItem {space: $space}) RETURN a.kind AS kind, a.detail AS detail", space=space)
    for row in rows:
        row["detail"] = re.sub(r"p_[0-9a-f]{32}", "p_…", str(row["detail"]))
    return canonical(rows)
