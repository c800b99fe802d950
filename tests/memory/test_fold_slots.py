"""A fold re-decides the slots it brought together (real Neo4j).

Before: a fold (a voice linked by hand folding its unnamed person, or the writer folding a
placeholder into the voice that took its name) moved facts and attributes onto the person but
decided nothing: if the person already held a current fact in a slot of the folded one's, both
stayed current (two drinks, two rooms) until a reprocess, a repeat stayed two facts, and the
writer's ``merge_placeholder`` audit item listed the deleted placeholder's id, which
``memory_check`` counts as a leak of a deleted participant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.memory.test_link_voice import person_of, state
from tests.memory.test_memory_integration import say, snapshot, voice
from voxmem.core import Voxmem
from voxmem.memory.fold import redecide

pytestmark = pytest.mark.integration


def slot_facts(services: Voxmem, space: str, slot: str) -> list[dict[str, Any]]:
    return services.db.query(
        "MATCH (f:Fact {space: $space, slot: $slot}) "
        "RETURN f.id AS id, f.content AS content, f.subject_key AS subject, f.current AS current, "
        "f.conflict AS conflict, f.valid_from AS valid_from, f.valid_to AS valid_to, "
        "[(f)-[:SUPERSEDES]->(o) | o.id] AS supersedes, [(f)-[:CONFLICTS_WITH]-(o) | o.id] AS conflicts, "
        "COUNT { (f)-[:DERIVED_FROM]->() } AS sources ORDER BY f.valid_from",
        space=space,
        slot=slot,
    )


def current_attributes(services: Voxmem, space: str, pid: str) -> list[str]:
    rows = services.db.query(
        "MATCH (:Participant {space: $space, id: $pid})-[:HAS_ATTRIBUTE]->(a:Attribute {current: true}) "
        "RETURN a.text AS text ORDER BY text",
        space=space,
        pid=pid,
    )
    return [r["text"] for r in rows]


def test_a_voice_linked_by_hand_has_its_slots_re_decided_with_the_persons(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    """Leo said he prefers coffee, moved to Berlin and has two cats (as Leo, typed); an unnamed
    voice later said it prefers green tea now, lives in Berlin and has two cats. Linked to Leo:
    green tea supersedes coffee (Leo said both), the Berlin restatement and the two cats (no
    slot) support the earlier facts instead of being second ones, and the newer attributes
    supersede the older ones; a retry changes nothing, and a reprocess of the whole space gives
    the same memory."""
    say(app_client, space_headers, space, "s1", "Leo", "I prefer coffee.", 0)
    say(app_client, space_headers, space, "s1", "Leo", "I moved to Berlin last year.", 1)
    say(app_client, space_headers, space, "s1", "Leo", "I have two cats.", 2)
    voice(services, space, "kitchen", "spk_x", "Actually I prefer green tea now.", 5, f"{space}:k0")
    voice(services, space, "kitchen", "spk_x", "I live in Berlin now.", 6, f"{space}:k1")
    voice(services, space, "kitchen", "spk_x", "I have two cats.", 7, f"{space}:k2")
    leo = services.db.query(
        "MATCH (p:Participant {space: $space, name: 'Leo'}) RETURN p.id AS id", space=space
    )[0]["id"]
    old = person_of(services, space, "spk_x")
    assert [f["current"] for f in slot_facts(services, space, "drink")] == [True, True]  # two subjects

    r = app_client.post(
        f"/spaces/{space}/speakers/spk_x/link", json={"participant_id": leo}, headers=space_headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["merged_participant_id"] == old

    coffee, tea = slot_facts(services, space, "drink")
    assert coffee["subject"] == tea["subject"] == leo
    assert (coffee["current"], tea["current"]) == (False, True)  # HEAD: both current
    assert tea["supersedes"] == [coffee["id"]] and coffee["valid_to"] == tea["valid_from"]
    assert not coffee["conflict"] and not tea["conflict"]
    (berlin,) = slot_facts(services, space, "residence")  # HEAD: two current Berlin facts
    assert berlin["current"] and berlin["sources"] == 2
    assert berlin["content"] == "Leo moved to Berlin last year."
    cats = services.db.query(  # a fact without a slot said again: support too, not a second fact
        "MATCH (f:Fact {space: $space}) WHERE f.slot IS NULL "
        "RETURN f.content AS content, COUNT { (f)-[:DERIVED_FROM]->() } AS sources",
        space=space,
    )
    assert cats == [{"content": "Leo has two cats.", "sources": 2}]
    # attributes of one slot: the newer text supersedes (no value to repeat)
    assert current_attributes(services, space, leo) == [
        "Actually Leo prefers green tea now.",
        "Leo lives in Berlin now.",
    ]
    assert not any(services.memory.check(space, participant_id=old).values())

    # retries change nothing: the link again, and the replay itself again
    before = state(services, space)
    assert (
        app_client.post(
            f"/spaces/{space}/speakers/spk_x/link", json={"participant_id": leo}, headers=space_headers
        ).json()["merged_participant_id"]
        is None
    )
    replay = services.db.write(lambda tx: redecide(tx, space, leo, [(leo, "drink"), (leo, "residence")], []))
    assert not replay and not replay.new_conflicts
    assert state(services, space) == before

    # what the fold decided is what deciding from the start gives
    settled = snapshot(services, space)
    r = app_client.post(f"/spaces/{space}/memory/reprocess", json={}, headers=space_headers)
    assert r.status_code == 200, r.text
    assert snapshot(services, space) == settled


def placeholder_named(services: Voxmem, space: str, name: str) -> str:
    return services.db.query(
        "MATCH (p:Participant {space: $space, name: $name}) "
        "WHERE NOT EXISTS { (:Speaker)-[:IDENTIFIED_AS]->(p) } RETURN p.id AS id",
        space=space,
        name=name,
    )[0]["id"]


def test_a_placeholder_folded_by_the_writer_has_its_slots_re_decided_and_audited_without_a_leak(
    services: Voxmem, space: str
) -> None:
    """Ann tells Tom (not heard yet: a placeholder) his room is 14; an unnamed voice says its
    room is 12, then that it is Tom. The fold puts both rooms on Tom: his own later word
    supersedes Ann's. The merge_placeholder audit item names the placeholder and whom it was
    folded into, but lists only the person that exists."""
    voice(services, space, "hall", "spk_ann", "Tom, your room is 14.", 0, f"{space}:h0")
    placeholder = placeholder_named(services, space, "Tom")
    voice(services, space, "hall", "spk_tom", "My room is 12.", 1, f"{space}:h1")
    voice(services, space, "hall", "spk_tom", "Thanks. I'm Tom, by the way.", 2, f"{space}:h2")
    tom = person_of(services, space, "spk_tom")
    assert tom != placeholder

    fourteen, twelve = slot_facts(services, space, "room")
    assert fourteen["subject"] == twelve["subject"] == tom
    assert (fourteen["current"], twelve["current"]) == (False, True)  # HEAD: both current
    assert twelve["supersedes"] == [fourteen["id"]] and fourteen["valid_to"] == twelve["valid_from"]

    audit = services.db.query(
        "MATCH (a:AuditItem {space: $space, kind: 'merge_placeholder'}) "
        "RETURN a.participants AS people, a.detail AS detail, a.resolved AS resolved",
        space=space,
    )
    assert len(audit) == 1 and audit[0]["people"] == [tom] and audit[0]["resolved"]
    detail = json.loads(audit[0]["detail"])
    assert (detail["placeholder"], detail["placeholder_name"], detail["into"]) == (placeholder, "Tom", tom)
    assert "Tom" in detail["why"]
    check = services.memory.check(space, participant_id=placeholder)
    assert not any(check.values()), check  # HEAD: participant_leaks 1, id_leaks_on_nodes 1


def test_a_fold_that_meets_a_third_persons_word_leaves_a_conflict_as_the_writer_would(
    services: Voxmem, space: str
) -> None:
    """The unnamed voice said its room is 12; later Ann tells Tom (a placeholder) his room is
    14; then the voice says it is Tom. Ann's later word about Tom, who said otherwise, is the
    writer's conflict: both current, flagged, linked and audited (HEAD: two current facts,
    unflagged)."""
    voice(services, space, "hall", "spk_tom", "My room is 12.", 0, f"{space}:h0")
    voice(services, space, "hall", "spk_ann", "Tom, your room is 14.", 1, f"{space}:h1")
    voice(services, space, "hall", "spk_tom", "Thanks. I'm Tom, by the way.", 2, f"{space}:h2")
    twelve, fourteen = slot_facts(services, space, "room")
    assert twelve["current"] and fourteen["current"]
    assert twelve["conflict"] and fourteen["conflict"]
    assert fourteen["conflicts"] == [twelve["id"]]
    conflicts = services.db.query(
        "MATCH (a:AuditItem {space: $space, kind: 'fact_conflict'}) RETURN a.message_id AS message",
        space=space,
    )
    assert conflicts == [{"message": f"{space}:h1"}]


def test_a_link_that_makes_one_speaker_of_two_conflicting_statements_settles_the_conflict(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    """Leo (typed) tells Tom his room is 14; an unnamed voice later tells Tom it is 16: two
    people about a third, a conflict. The voice is Leo's: linked, Leo restated his own value,
    so 16 supersedes 14, the conflict edge and flags go and its audit item is resolved (HEAD:
    both current and still in conflict)."""
    say(app_client, space_headers, space, "s1", "Leo", "Tom, your room is 14.", 0)
    voice(services, space, "kitchen", "spk_x", "Tom, your room is 16.", 1, f"{space}:k0")
    fourteen, sixteen = slot_facts(services, space, "room")
    assert fourteen["conflict"] and sixteen["conflict"]  # as the writer decided it
    leo = services.db.query(
        "MATCH (p:Participant {space: $space, name: 'Leo'}) RETURN p.id AS id", space=space
    )[0]["id"]
    r = app_client.post(
        f"/spaces/{space}/speakers/spk_x/link", json={"participant_id": leo}, headers=space_headers
    )
    assert r.status_code == 200, r.text
    fourteen, sixteen = slot_facts(services, space, "room")
    assert (fourteen["current"], sixteen["current"]) == (False, True)
    assert not fourteen["conflict"] and not sixteen["conflict"]
    assert sixteen["supersedes"] == [fourteen["id"]] and not sixteen["conflicts"]
    audit = services.db.query(
        "MATCH (a:AuditItem {space: $space, kind: 'fact_conflict'}) RETURN a.resolved AS resolved",
        space=space,
    )
    assert audit == [{"resolved": True}]
    settled = snapshot(services, space)
    r = app_client.post(f"/spaces/{space}/memory/reprocess", json={}, headers=space_headers)
    assert r.status_code == 200, r.text
    assert snapshot(services, space) == settled
