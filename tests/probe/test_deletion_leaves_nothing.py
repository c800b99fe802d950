"""Deleting a participant leaves none of their ids anywhere in the space (finding 8), and none
of their name where only the system put it: every property of every node and relationship is
searched (tests/probe/traces.py), every full-text index is queried for the name and every
text-vector index for the vectors computed from text naming them, independently of
memory_check, and memory_check itself must agree."""

from __future__ import annotations

import pytest
from memory.test_link_voice import person_of
from memory.test_memory_integration import voice

from .traces import fulltext_hits, holding, vector_copies, vectors_naming

pytestmark = pytest.mark.integration


def post_turns(app_client, base: str, headers: dict, turns: list[tuple[str, str, list[str]]]) -> None:
    """Text turns (speaker, text, addressees given by the client) of session s1, in order."""
    for i, (speaker, text, to) in enumerate(turns):
        r = app_client.post(
            f"{base}/sessions/s1/turns",
            headers=headers,
            json={"speaker": speaker, "text": text, "addressees": to, "turn_id": f"t{i}"},
        )
        assert r.status_code == 201, r.text


def test_deleted_participant_leaves_no_id(app_client, services, space, space_headers) -> None:
    base = f"/spaces/{space}"
    turns = [
        ("Dave", "Hi, I'm Dave. I love jazz and I work at the bakery.", ["Ann"]),
        ("Ann", "Dave, do you want some green tea?", ["Dave"]),
        ("Dave", "Yes please, Ann. My sister Eve lives in Oslo.", ["Ann"]),
        ("Ann", "Dave is vegetarian, remember that.", []),
        ("Ann", "Dave, your room is 412.", ["Dave"]),  # a fact others state about him
    ]
    post_turns(app_client, base, space_headers, turns)
    people = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.id AS id, p.key AS key", space=space
    )
    dave = next(p["id"] for p in people if p["key"] == "dave")
    spoken = [
        r["id"]
        for r in services.db.query(
            "MATCH (:Participant {space: $space, id: $id})-[:SPEAKS]->(m:Message) RETURN m.id AS id",
            space=space,
            id=dave,
        )
    ]
    assert holding(services.db, space, {dave, *spoken})  # the search can find them before

    r = app_client.delete(f"{base}/participants/{dave}", headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["clean"], r.json()
    assert holding(services.db, space, {dave, *spoken}) == []
    check = app_client.get(f"{base}/memory/check", headers=space_headers)
    assert check.status_code == 200 and check.json()["clean"], check.json()


def test_deleted_participant_leaves_no_name(app_client, services, space, space_headers) -> None:
    """Only Dave ever says "Dave": the others address him by the client's addressee field, the
    spoken turns of another voice had "Dave" among their ASR hints, and a voice of his was linked
    to him by hand. After his deletion the name is in no property (passages re-indexed without
    him, hints without his name but with the rest, the link's audit item gone), no full-text
    index and no vector computed from text naming him."""
    base = f"/spaces/{space}"
    turns = [
        ("Dave", "Hi, I'm Dave. I love jazz and I work at the bakery.", ["Ann"]),
        ("Ann", "Do you want some green tea?", ["Dave"]),  # passage "Ann to Dave: ..."
        ("Dave", "Yes please. My sister Eve lives in Oslo.", ["Ann"]),
        ("Ann", "I will bring the cups up.", []),
        ("Ann", "Your room is 412.", ["Dave"]),  # her fact, the system wrote "Dave's room is 412."
    ]
    post_turns(app_client, base, space_headers, turns)
    for i, text in enumerate(["The ferry leaves at six.", "I booked the tickets."]):
        voice(
            services, space, "v1", "spk_x", text, 10 + i, f"{space}:v{i}", vocabulary=["Ann", "Dave", "Oslo"]
        )
    voice(services, space, "v1", "spk_d", "I have two cats.", 12, f"{space}:v2")
    r = app_client.post(f"{base}/speakers/spk_d/link", json={"name": "Dave"}, headers=space_headers)
    assert r.status_code == 200, r.text  # an identity_link audit item quoting his id and name
    services.memory.writer.passages.backfill(space)  # the spoken turns' passages, as ingest makes them
    dave = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'dave'}) RETURN p.id AS id", space=space
    )[0]["id"]
    named = vectors_naming(services.db, space, {"Dave"})
    assert holding(services.db, space, set(), {"Dave"})  # the search finds the name before
    assert fulltext_hits(services.db, space, {"Dave"}) and named
    assert vector_copies(services.db, space, named)

    r = app_client.delete(f"{base}/participants/{dave}", headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["clean"], r.json()
    assert holding(services.db, space, {dave}, {"Dave"}) == []
    assert fulltext_hits(services.db, space, {"Dave"}) == []
    assert vector_copies(services.db, space, named) == []
    hints = services.db.query(
        "MATCH (m:Message {space: $space}) WHERE m.asr_vocabulary IS NOT NULL "
        "RETURN m.id AS id, m.asr_vocabulary AS v ORDER BY id",
        space=space,
    )
    assert [h["v"] for h in hints] == [["Ann", "Oslo"], ["Ann", "Oslo"]]  # the rest of the hints kept
    passages = services.db.query(
        "MATCH (m:Message {space: $space}) WHERE m.text STARTS WITH 'Do you' "
        "RETURN m.passage AS passage, m.sparse_head IS NOT NULL AS head",
        space=space,
    )
    assert passages == [{"passage": "Ann: Do you want some green tea?", "head": True}]  # re-indexed
    room = services.db.query(
        "MATCH (f:Fact {space: $space}) WHERE f.content CONTAINS 'room is 412' "
        "RETURN f.content AS c, f.display AS d",
        space=space,
    )
    assert room == [{"c": "Someone's room is 412.", "d": "Someone's room is 412."}]  # Ann's fact stays
    check = app_client.get(f"{base}/memory/check", headers=space_headers)
    assert check.status_code == 200 and check.json()["clean"], check.json()


def test_deleting_an_unnamed_voice_others_spoke_to_is_clean(services, space) -> None:
    """Another voice's "Your room is 412." to an unnamed voice is stored as "{p_…}'s room is
    412."; deleting that person left the placeholder (a deleted id: the deletion reported
    participant_leaks 1, clean False). The fact stays as "Someone's room is 412."."""
    voice(services, space, "v1", "spk_x", "Hi, I just arrived.", 0, f"{space}:a0")
    voice(services, space, "v1", "spk_y", "Your room is 412.", 1, f"{space}:a1")
    voice(services, space, "v1", "spk_x", "Thanks a lot.", 2, f"{space}:a2")
    pid = person_of(services, space, "spk_x")
    room = (
        "MATCH (f:Fact {space: $space}) WHERE f.content CONTAINS '412' RETURN f.content AS c, f.display AS d"
    )
    assert services.db.query(room, space=space)[0]["c"] == "{" + pid + "}'s room is 412."
    report = services.memory.delete_participant(space, pid)
    assert report["clean"], report
    assert holding(services.db, space, {pid}) == []
    assert services.db.query(room, space=space) == [
        {"c": "Someone's room is 412.", "d": "Someone's room is 412."}
    ]
