"""The batch importer's pipeline (issue 17, bulk import): the next chunk is prepared (passages and
expected fact texts encoded) while the current one is written and derived, and the batch keeps
its guarantees across chunks (one bad turn anywhere refuses it before any chunk is written)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.ingest.history import minute_turns
from voxmem.core import Voxmem
from voxmem.errors import InvalidInput
from voxmem.pipeline.batch import BatchImporter, BatchResult
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 4, 8, 0, tzinfo=UTC)
LINES = [
    ("Maya", "I love green tea."),
    ("Tom", "Maya, the plumber comes on Thursday."),
    ("Maya", "My favourite food is sushi."),
    ("Tom", "I work as a nurse."),
    ("Maya", "Tom, my sister Anna moved to Porto."),
    ("Tom", "I am vegetarian, by the way."),
]


def _turns(prefix: str) -> list[Turn]:
    return minute_turns([("kitchen", who, text) for who, text in LINES], T0, prefix)


def _count(services: Voxmem, space: str, label: str) -> int:
    rows = services.db.query(f"MATCH (n:{label} {{space: $space}}) RETURN count(n) AS n", space=space)
    return int(rows[0]["n"])


def test_the_next_chunk_is_prepared_while_this_one_is_derived(services: Voxmem, space: str) -> None:
    """Chunk k+1's preparation and chunk k's derivation each wait (bounded) for the other to
    have started: both run at once, or the test fails (in order either way it times out)."""
    importer = BatchImporter(services.pipeline, write_chunk=2, derive_chunk=2)
    prepare, derive = importer._prepare, importer._derive
    starts = range(0, len(LINES), 2)
    preparing = {s: threading.Event() for s in starts}
    deriving = {s: threading.Event() for s in starts}
    overlapped: list[bool] = []

    def spy_prepare(space_: str, turns: Any, start: int) -> Any:
        preparing[start].set()
        if start:  # the chunk before is being derived meanwhile
            overlapped.append(deriving[start - 2].wait(timeout=10))
        return prepare(space_, turns, start)

    def waiting_derive(space_: str, ids: list[str], result: BatchResult, known: Any) -> None:
        start = 2 * sum(e.is_set() for e in deriving.values())
        deriving[start].set()
        if start + 2 in preparing:
            overlapped.append(preparing[start + 2].wait(timeout=10))
        derive(space_, ids, result, known)

    importer._prepare = spy_prepare  # type: ignore[method-assign]
    importer._derive = waiting_derive  # type: ignore[method-assign]
    result = importer.run(space, _turns("p"))
    assert (result.stored, result.derived, result.pending) == (len(LINES), len(LINES), [])
    assert overlapped == [True] * 4
    assert _count(services, space, "Fact") > 0
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.idx AS idx, m.memory_pending AS pending ORDER BY m.idx",
        space=space,
    )
    assert [(r["idx"], bool(r["pending"])) for r in rows] == [(i, False) for i in range(len(LINES))]


def test_a_bad_turn_in_a_later_chunk_refuses_the_whole_batch(services: Voxmem, space: str) -> None:
    turns = _turns("b")
    turns[-1] = Turn("kitchen", "Tom", "   ", [], T0, "b-empty")  # empty after trimming
    with pytest.raises(InvalidInput):
        BatchImporter(services.pipeline, write_chunk=2).run(space, turns)
    dup = [*_turns("d")[:5], _turns("d")[0]]  # a turn id twice, in different chunks
    with pytest.raises(InvalidInput):
        BatchImporter(services.pipeline, write_chunk=2).run(space, dup)
    assert (_count(services, space, "Message"), _count(services, space, "Participant")) == (0, 0)
