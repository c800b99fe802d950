"""Fold one participant into another and re-decide the memory the fold brought together.

Two callers fold: the memory writer, when a name known only from others' calls turns out to be
a speaking voice's (``merge_placeholder``), and the voice link by hand, whose voice's earlier
unnamed person is folded into the person it was linked to. Both go through :func:`fold_person`,
so both re-decide.

Why re-decide: facts about each of the two were decided apart (the rules see one subject's
current facts), so after the fold the person could hold two current facts in one slot ("Leo
prefers coffee" said by the unnamed voice, "Leo prefers green tea now" said as Leo), repeats of
each other as two facts, or a value restated by its own speaker left in conflict. The fold's
slots and attribute kinds are replayed by the rules (:func:`voxmem.memory.rules.replay_facts`)
in the fold's transaction, not in the after-commit step: the replay needs no embedding (only
reads and edge writes), so nothing forces it out of the transaction; inside it no reader ever
sees the person with two current values, and an outage cannot leave the fold committed and the
slots undecided. After the commit a retry would not find them again: a link already made
returns before folding, and a writer's placeholder merge is re-run only by a reprocess.
Idempotent all the same: a replay of a settled slot changes nothing.
"""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.ids import new_id
from voxmem.memory.rules import Replay, replay_attributes, replay_facts
from voxmem.stores.facts import FactStore
from voxmem.stores.participants import ParticipantStore


def fold_person(tx: ManagedTransaction, space: str, folded: str, into: str, take_name: bool) -> bool:
    """:meth:`ParticipantStore.fold` ``folded`` into ``into``, then :func:`redecide` what it
    brought together, in the caller's transaction. False (nothing changed) when ``folded``
    still has a voice or a message."""
    slots, kinds = FactStore.fold_keys(tx, space, folded, into)
    if not ParticipantStore.fold(tx, space, folded, into, take_name):
        return False
    redecide(tx, space, into, slots, kinds)
    return True


def redecide(
    tx: ManagedTransaction, space: str, person: str, slots: list[tuple[str, str | None]], kinds: list[str]
) -> Replay:
    """Replay the facts of the (subject, slot) pairs and ``person``'s attributes of ``kinds``
    and write what differs; a new conflict gets its audit item as the writer's do, and the
    items of a conflict the replay settles are resolved. Returns the facts' replay (what
    changed)."""
    states = ParticipantStore.naming_states(tx, space, [person])
    name = states[0].name if states else None
    facts = replay_facts(FactStore.slot_history(tx, space, slots), person, name) if slots else Replay()
    history = FactStore.kind_history(tx, space, person, kinds) if kinds else []
    attributes = replay_attributes(history, person, name)
    for replay in (facts, attributes):
        FactStore.settle(tx, space, replay.merges, [vars(s) for s in replay.changed])
    for new, old in facts.new_conflicts:
        if new.first_message is not None:
            people = [new.owner, next(iter(new.stated_by), None)]
            audit_conflict(tx, space, new.first_message, new.text, old.text, people)
    settled = [{"message_id": h.first_message, "subject": h.owner} for h in facts.settled_conflicts]
    if settled:
        tx.run(query("memory_audit_resolve_conflicts"), space=space, rows=settled).consume()
    return facts


def audit_in(
    tx: ManagedTransaction,
    space: str,
    message_id: str,
    kind: str,
    detail: Any,
    participants: list[Any],
    resolved: bool,
) -> None:
    """An audit item raised by memory from a message (a fact conflict, a naming), removed again
    when that message is re-extracted; the same item twice is one (``memory_audit_create``)."""
    tx.run(
        query("memory_audit_create"),
        space=space,
        id=new_id("audit"),
        kind=kind,
        detail=detail,
        participants=participants,
        message_id=message_id,
        resolved=resolved,
    ).consume()


def audit_conflict(
    tx: ManagedTransaction, space: str, message_id: str, new: str, old: str, people: list[Any]
) -> None:
    """The open ``fact_conflict`` item of a fact ``new`` that contradicts ``old``: one wording
    for the writer's conflicts and those a fold's replay finds."""
    audit_in(tx, space, message_id, "fact_conflict", f"{new!r} contradicts {old!r}", people, resolved=False)
