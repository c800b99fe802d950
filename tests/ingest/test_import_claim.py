"""A running batch import claims its stored, not yet derived turns, so a repair elsewhere (another
process's ``Voxmem.start()``, or a turn appended to the same session) leaves them to it; a
claim lapses if the importer dies, and repair then derives the turns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.ingest.history import minute_turns
from voxmem.core import Voxmem
from voxmem.pipeline.batch import BatchImporter, BatchResult
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 4, 8, 0, tzinfo=UTC)
LINES = [
    ("Maya", "My checkout is at 11 am."),
    ("Tom", "Maya, your room is 412."),
    ("Maya", "Please change my checkout to noon."),
    ("Tom", "I love hiking."),
    ("Maya", "Tom, I am vegetarian."),
    ("Tom", "Sure Maya."),
]


def _turns(prefix: str) -> list[Turn]:
    return minute_turns([("front", speaker, text) for speaker, text in LINES], T0, prefix)


def _pending(services: Voxmem, space: str) -> list[str]:
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) WHERE m.memory_pending RETURN m.id AS id ORDER BY m.idx",
        space=space,
    )
    return [r["id"] for r in rows]


def test_a_repair_during_an_import_leaves_its_turns_to_it(services: Voxmem, space: str) -> None:
    importer = BatchImporter(services.pipeline, derive_chunk=2)
    derive = importer._derive
    repaired: list[list[str]] = []
    waiting: list[list[str]] = []

    def chunk_then_derive(space_: str, ids: list[str], result: BatchResult, known: Any) -> None:
        # what another process would do now (with the import's turns older than 30 s)
        waiting.append(_pending(services, space))
        repaired.append(services.pipeline.repair(space, "front", min_age_s=0))
        repaired.append(services.pipeline.repair(min_age_s=0, limit=10_000))
        derive(space_, ids, result, known)

    importer._derive = chunk_then_derive  # type: ignore[method-assign]
    result = importer.run(space, _turns("c"))
    assert (result.derived, result.pending) == (len(LINES), [])
    mine = {t.id for t in result.turns}
    assert not mine & {i for ids in repaired for i in ids}
    assert waiting[-1], "no turn was waiting for its chunk: the test would prove nothing"
    assert _pending(services, space) == []
    # claims end with the memory
    left = services.db.query(
        "MATCH (m:Message {space: $space}) WHERE m.memory_claimed_until IS NOT NULL RETURN count(m) AS n",
        space=space,
    )
    assert left[0]["n"] == 0


def test_a_lapsed_claim_lets_repair_derive_the_turns(services: Voxmem, space: str) -> None:
    stored = services.pipeline.messages.append_many(space, _turns("d"))
    ids = [t.id for t in stored]
    assert _pending(services, space) == ids
    services.pipeline.messages.claim_pending(space, ids, lease_s=3600)
    assert services.pipeline.repair(space, "front", min_age_s=0) == []
    services.pipeline.messages.claim_pending(space, ids, lease_s=-1)  # the importer died long ago
    assert services.pipeline.repair(space, "front", min_age_s=0) == ids
    assert _pending(services, space) == []
