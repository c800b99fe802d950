"""A text turn's two transactions (issue 17, the per-turn route's round trips): the message
transaction (pending turns of the session, the replay check, session lock, people found and
locked, the message, its window) and the memory transaction (memory, captions and the pending
mark). Each is all or nothing, a retry with the same turn_id is idempotent, and the turn costs
two transactions and a bounded number of statements."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
import pytest
from neo4j import ManagedTransaction

from voxmem.core import Voxmem
from voxmem.stores.messages import MessageStore, Turn

pytestmark = pytest.mark.integration

SAID = "Tom, the plumber is coming on Thursday at 10."


def _turn(turn_id: str = "t1") -> Turn:
    return Turn("kitchen", "Maya", SAID, addressees=["Tom"], turn_id=turn_id)


class Injected(RuntimeError):
    """A failure inside a transaction (not retryable: the transaction rolls back, the caller sees it)."""


def _counts(services: Voxmem, space: str) -> dict[str, Any]:
    return services.db.query(
        "MATCH (sp:Space {id: $space}) "
        "RETURN COUNT { (m:Message {space: $space}) } AS messages, "
        "COUNT { (m:Message {space: $space}) WHERE m.memory_pending } AS pending, "
        "COUNT { (p:Participant {space: $space}) } AS people, "
        "COUNT { (s:Session {space: $space}) } AS sessions, "
        "COUNT { (f:Fact {space: $space}) } AS facts, "
        "COUNT { (:Message {space: $space})-[:ADDRESSES]->() } AS addresses",
        space=space,
    )[0]


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts statements (every ``tx.run``) and transactions (``execute_read``/``execute_write``)."""
    seen = {"statements": 0, "transactions": 0}
    run = neo4j.ManagedTransaction.run

    def counted(tx: Any, *args: Any, **kwargs: Any) -> Any:
        seen["statements"] += 1
        return run(tx, *args, **kwargs)

    monkeypatch.setattr(neo4j.ManagedTransaction, "run", counted)
    for name in ("execute_read", "execute_write"):
        original = getattr(neo4j.Session, name)

        def wrapped(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            seen["transactions"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(neo4j.Session, name, wrapped)
    yield seen


def test_a_text_turn_is_two_transactions(services: Voxmem, space: str, statements: dict[str, int]) -> None:
    services.pipeline.append_text(space, Turn("kitchen", "Maya", "Hi all.", turn_id="t0"))
    statements |= {"statements": 0, "transactions": 0}
    view = services.pipeline.append_text(space, _turn())
    assert view["speaker"]["name"] == "Maya" and [a["name"] for a in view["addressees"]] == ["Tom"]
    # message transaction (pending, find, session lock, people, append, window) + memory
    # transaction (lock, clear, addresses, fact read + create, captions, pending mark); 18-19
    # statements in 10 transactions before
    assert statements["transactions"] == 2, statements
    assert statements["statements"] <= 14, statements
    assert _counts(services, space)["pending"] == 0
    assert _counts(services, space)["facts"] >= 1


def test_a_failure_in_the_message_transaction_stores_nothing(
    services: Voxmem, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _counts(services, space)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise Injected("after the message was written, inside its transaction")

    # the window is the message transaction's last statement: everything before it rolls back
    monkeypatch.setattr(MessageStore, "context_in", staticmethod(broken))
    with pytest.raises(Injected):
        services.pipeline.append_text(space, _turn())
    assert _counts(services, space) == before  # no message, session, speaker or addressee
    monkeypatch.undo()
    services.pipeline.append_text(space, _turn())
    after = _counts(services, space)
    assert (after["messages"], after["pending"], after["people"], after["sessions"]) == (1, 0, 2, 1)


def test_a_failure_in_the_memory_transaction_leaves_the_turn_pending_without_memory(
    services: Voxmem, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(tx: ManagedTransaction, space: str, message_id: str) -> None:
        raise Injected("clearing the pending mark, inside the memory transaction")

    monkeypatch.setattr(MessageStore, "memory_done_in", staticmethod(broken))
    with pytest.raises(Injected):
        services.pipeline.append_text(space, _turn())
    stored = _counts(services, space)
    # the message is stored (its own transaction), its memory rolled back with the mark
    assert (stored["messages"], stored["pending"], stored["facts"]) == (1, 1, 0)
    assert stored["addresses"] == 1  # only the given ADDRESSES edge, no inferred one
    monkeypatch.undo()
    # the retry (same turn_id) is a replay of the message and derives its memory once
    view = services.pipeline.append_text(space, _turn())
    again = services.pipeline.append_text(space, _turn())
    assert view == again
    done = _counts(services, space)
    assert (done["messages"], done["pending"]) == (1, 0)
    assert done["facts"] >= 1
    once = done["facts"]
    services.pipeline.append_text(space, _turn())
    assert _counts(services, space)["facts"] == once  # replays replace, never add
    assert all(v == 0 for v in services.memory.check(space).values())


def test_a_passage_naming_people_otherwise_than_stored_is_indexed_again(services: Voxmem, space: str) -> None:
    services.pipeline.append_text(space, Turn("kitchen", "Caroline", "Hello there.", turn_id="t0"))
    # the same person by name key, written in lower case: the stored name wins in the passage
    view = services.pipeline.append_text(space, Turn("kitchen", "caroline", "Coffee?", turn_id="t1"))
    row = services.db.query(
        "MATCH (m:Message {space: $space, id: $id}) RETURN m.passage AS passage, m.memory_pending AS pending",
        space=space,
        id=view["id"],
    )[0]
    assert row == {"passage": "Caroline: Coffee?", "pending": None}
