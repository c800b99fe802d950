"""A turn stored without its memory (Neo4j gone between the message's transaction and the
memory's) is marked, and the turn pipeline derives its memory before the session's next turn
(and at start-up, through the same query over every space)."""

from __future__ import annotations

import pytest

from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

SAID = "Tom, the plumber is coming on Thursday at 10."


def _state(services: Voxmem, space: str, message_id: str) -> tuple[bool, int]:
    row = services.db.query(
        "MATCH (m:Message {space: $space, id: $id}) "
        "RETURN coalesce(m.memory_pending, false) AS pending, "
        "COUNT { (:Fact)-[:DERIVED_FROM]->(m) } AS facts",
        space=space,
        id=message_id,
    )[0]
    return row["pending"], row["facts"]


def test_a_turn_left_without_memory_is_derived_before_the_next_turn(
    services: Voxmem, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline = services.pipeline
    derive_memory = services.memory.derive_turn

    def outage(*args: object) -> dict:
        raise DatabaseUnavailable("Neo4j is unavailable: injected between message and memory")

    monkeypatch.setattr(services.memory, "derive_turn", outage)
    with pytest.raises(DatabaseUnavailable, match="stored as"):
        pipeline.append_text(space, Turn("kitchen", "Maya", SAID, addressees=["Tom"], turn_id="t0"))
    monkeypatch.setattr(services.memory, "derive_turn", derive_memory)  # Neo4j is back
    lost = services.messages.turn_message_id(space, "t0")
    assert _state(services, space, lost) == (True, 0)
    assert (space, lost) in services.messages.memory_pending(None, None, 0, 100_000)  # start-up finds it

    # a turn this young may be in another request's hands: the next turn leaves it alone ...
    pipeline.append_text(space, Turn("kitchen", "Tom", "Thanks, Maya.", addressees=["Maya"], turn_id="t1"))
    assert _state(services, space, lost) == (True, 0)
    # ... and once it is older than that, the session's next turn derives it first
    services.db.execute(
        "MATCH (m:Message {space: $space, id: $id}) SET m.created_at = datetime() - duration('PT5M')",
        space=space,
        id=lost,
    )
    pipeline.append_text(space, Turn("kitchen", "Maya", "See you later.", turn_id="t2"))
    pending, facts = _state(services, space, lost)
    assert not pending and facts >= 1
    for later in ("t1", "t2"):
        assert _state(services, space, services.messages.turn_message_id(space, later))[0] is False
    assert all(v == 0 for v in services.memory.check(space).values())
