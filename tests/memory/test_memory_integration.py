"""Integration tests of memory construction against the real Neo4j server (no mocks).

Text turns go through the API (so extraction runs after every append, as in production);
voice turns are written the way the audio path stores them (Speaker + SPOKEN_AS, no
participant yet) to exercise identity mapping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from probe.traces import fulltext_hits, holding, vector_copies, vectors_naming

from voxmem.core import Voxmem

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)

_VOICE_TURN = """
MATCH (:Space {id: $space})
MERGE (s:Session {space: $space, id: $session}) ON CREATE SET s.started_at = datetime($ts), s.n_messages = 0
MERGE (sk:Speaker {space: $space, id: $speaker}) ON CREATE SET sk.n_obs = 1, sk.created_at = datetime()
CREATE (m:Message {space: $space, id: $id, session: $session, idx: s.n_messages, text: $text,
                   ts: datetime($ts), asr_vocabulary: $vocabulary,
                   source: 'audio', created_at: datetime()})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (m)-[:SPOKEN_AS]->(sk)
CREATE (v:Voiceprint {space: $space, id: 'vp_' + $id, encoder: 'test', message_id: $id})-[:OF]->(sk)
WITH s, m
CALL (s, m) {
  MATCH (prev:Message {space: $space, session: $session, idx: m.idx - 1}) CREATE (prev)-[:NEXT]->(m)
}
SET s.n_messages = m.idx + 1
RETURN m.id AS id
"""


def say(client, headers, space, session, speaker, text, minute, **extra):
    body = {"speaker": speaker, "text": text, "ts": (T0 + timedelta(minutes=minute)).isoformat(), **extra}
    r = client.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()


def voice(services: Voxmem, space, session, speaker, text, minute, mid, vocabulary=None):
    """A spoken turn of ``speaker`` (a voice id), ``vocabulary`` the names its ASR was told to expect."""
    services.db.execute(
        _VOICE_TURN,
        space=space,
        session=session,
        speaker=speaker,
        text=text,
        id=mid,
        ts=(T0 + timedelta(minutes=minute)).isoformat(),
        vocabulary=vocabulary,
    )
    return services.memory.process_message(space, mid)


def facts(client, headers, space, **params):
    r = client.get(f"/spaces/{space}/facts", params=params, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def snapshot(services: Voxmem, space: str) -> dict:
    rows = services.db.query(
        """
        MATCH (n {space: $space}) WHERE n:Fact OR n:Attribute
        RETURN labels(n)[0] AS label, coalesce(n.content, n.text) AS text, n.current AS current,
               n.conflict AS conflict, COUNT { (n)-[:DERIVED_FROM]->() } AS sources,
               COUNT { (n)-[:SUPERSEDES]->() } AS supersedes
        ORDER BY label, text, current
        """,
        space=space,
    )
    edges = services.db.query(
        "MATCH (m:Message {space: $space})-[r:ADDRESSES]->(p) "
        "RETURN m.idx AS idx, p.name AS to, r.source AS source "
        "ORDER BY idx, to",
        space=space,
    )
    counts = services.db.query(
        "RETURN COUNT { (:Message {space: $space}) } AS messages, "
        "COUNT { (:Voiceprint {space: $space}) } AS prints, "
        "COUNT { (:Participant {space: $space}) } AS people",
        space=space,
    )[0]
    return {"derived": rows, "edges": edges, "counts": counts}


def test_every_turn_is_extracted_with_provenance(app_client, space_headers, space, services):
    say(
        app_client, space_headers, space, "s1", "Maya", "Hi Tom, I'm vegetarian, so no meat for me please.", 0
    )
    say(
        app_client,
        space_headers,
        space,
        "s1",
        "Tom",
        "Sure Maya. Your room is 412 and checkout is at 11 am.",
        1,
    )
    say(
        app_client,
        space_headers,
        space,
        "s1",
        "Maya",
        "Yesterday I went to the museum with my sister Anna.",
        2,
    )
    current = facts(app_client, space_headers, space)
    contents = {f["content"] for f in current}
    assert "Maya is vegetarian, so no meat for Maya please." in contents
    assert "Yesterday Maya went to the museum with Maya's sister Anna." in contents
    assert all(f["sources"] for f in current)  # provenance to at least one message
    museum = next(f for f in current if "museum" in f["content"])
    assert museum["event_time"] == "2026-11-01"
    assert {p["name"] for p in museum["about"]} == {"Maya", "Anna"}
    room = next(f for f in current if f["slot"] == "checkout_time")
    assert [p["name"] for p in room["stated_by"]] == ["Tom"] and [p["name"] for p in room["about"]] == [
        "Maya"
    ]
    attrs = app_client.get(
        f"/spaces/{space}/attributes", params={"participant": "Maya"}, headers=space_headers
    ).json()
    assert {a["kind"] for a in attrs} >= {"preference", "relationship"} and all(a["sources"] for a in attrs)
    # Tom's reply was addressed to Maya by vocative, Maya's turns to Tom (vocative, then turn-taking)
    listed = app_client.get(f"/spaces/{space}/messages", headers=space_headers).json()
    assert [a["name"] for a in listed[1]["addressees"]] == ["Maya"]
    assert [a["name"] for a in listed[0]["addressees"]] == ["Tom"]
    check = app_client.get(f"/spaces/{space}/memory/check", headers=space_headers).json()
    assert check["clean"], check


def test_supersession_keeps_history_and_conflicts_side_by_side(app_client, space_headers, space):
    say(app_client, space_headers, space, "s1", "Maya", "My checkout is at 11 am.", 0)
    say(app_client, space_headers, space, "s1", "Maya", "Please change my checkout to noon.", 1)
    current = [f for f in facts(app_client, space_headers, space, slot="checkout_time")]
    assert [f["value"] for f in current] == ["noon"]
    history = facts(app_client, space_headers, space, slot="checkout_time", history="true")
    old = next(f for f in history if f["value"] == "11 am")
    assert not old["current"] and old["valid_to"] is not None
    assert current[0]["supersedes"] == [old["id"]]

    # two other people disagree about Maya's room: kept side by side and flagged
    say(app_client, space_headers, space, "s2", "Tom", "Maya, your room is 412.", 2)
    say(app_client, space_headers, space, "s2", "Ben", "Maya, your room is 415.", 3)
    rooms = facts(app_client, space_headers, space, slot="room")
    assert sorted(f["value"] for f in rooms) == ["412", "415"] and all(f["conflict"] for f in rooms)
    audit = app_client.get(f"/spaces/{space}/audit", headers=space_headers).json()
    assert any(a["kind"] == "fact_conflict" and not a["resolved"] for a in audit)
    # Maya herself settles it: her statement supersedes both
    say(app_client, space_headers, space, "s2", "Maya", "Actually my room is 420.", 4)
    rooms = facts(app_client, space_headers, space, slot="room")
    assert [(f["value"], f["conflict"]) for f in rooms] == [("420", False)]
    assert len(rooms[0]["supersedes"]) == 2


def test_voice_identity_naming_backfill_and_conflicts(services, space):
    voice(services, space, "v1", "spk_a", "I am vegetarian and I love green tea.", 0, f"{space}:a0")
    people = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.id AS id, p.name AS name", space=space
    )
    assert len(people) == 1 and people[0]["name"] is None
    pid = people[0]["id"]
    found = {
        r["c"] for r in services.db.query("MATCH (f:Fact {space: $space}) RETURN f.content AS c", space=space)
    }
    assert found == {"{" + pid + "} is vegetarian.", "{" + pid + "} loves green tea."}

    voice(services, space, "v1", "spk_b", "Welcome! Who am I speaking with?", 1, f"{space}:b0")
    summary = voice(services, space, "v1", "spk_a", "Hi, I'm Maya.", 2, f"{space}:a1")
    assert summary["names"][0]["action"] == "name"
    named = services.db.query(
        "MATCH (p:Participant {space: $space, id: $pid})-[:SPEAKS]->(m) RETURN p.name AS name, count(m) AS n",
        space=space,
        pid=pid,
    )
    assert named == [{"name": "Maya", "n": 2}]  # earlier message of that voice is named too
    found = {
        r["c"] for r in services.db.query("MATCH (f:Fact {space: $space}) RETURN f.content AS c", space=space)
    }
    assert found == {"Maya is vegetarian.", "Maya loves green tea."}  # back-filled

    # the other voice also claims to be Maya: an audit item, never a merge
    summary = voice(
        services, space, "v1", "spk_b", "No wait, I'm Maya too, my name is Maya.", 3, f"{space}:b1"
    )
    assert summary["names"][0]["action"] == "conflict_two_voices"
    assert (
        services.db.query("MATCH (p:Participant {space: $space}) RETURN count(p) AS n", space=space)[0]["n"]
        == 2
    )
    audit = services.db.query("MATCH (a:AuditItem {space: $space}) RETURN a.kind AS kind", space=space)
    assert [a["kind"] for a in audit] == ["conflict_two_voices"]


def test_name_heard_before_the_voice_speaks_is_folded_in_with_audit(services, space):
    voice(services, space, "v1", "spk_a", "Tom, could you carry the bags upstairs?", 0, f"{space}:a0")
    placeholder = services.db.query(
        "MATCH (m:Message {space: $space})-[r:ADDRESSES]->(p:Participant) "
        "RETURN p.name AS name, r.source AS source",
        space=space,
    )
    assert placeholder == [{"name": "Tom", "source": "vocative"}]
    voice(services, space, "v1", "spk_b", "Sure, my name is Tom by the way.", 1, f"{space}:b0")
    rows = services.db.query(
        """MATCH (m:Message {space: $space, idx: 0})-[:ADDRESSES]->(p:Participant)
           RETURN p.name AS name, EXISTS { (:Speaker {id: 'spk_b'})-[:IDENTIFIED_AS]->(p) } AS voiced""",
        space=space,
    )
    assert rows == [{"name": "Tom", "voiced": True}]
    audit = services.db.query(
        "MATCH (a:AuditItem {space: $space}) RETURN a.kind AS k, a.resolved AS r", space=space
    )
    assert audit == [{"k": "merge_placeholder", "r": True}]


def test_reprocessing_is_idempotent_and_keeps_messages_and_voiceprints(
    app_client, space_headers, space, services
):
    voice(services, space, "v1", "spk_a", "Hi, I'm Maya. I prefer coffee.", 0, f"{space}:a0")
    voice(services, space, "v1", "spk_b", "Thanks, Maya. Your room is 12.", 1, f"{space}:b0")
    voice(services, space, "v1", "spk_a", "Actually I prefer green tea now.", 2, f"{space}:a1")
    say(app_client, space_headers, space, "s2", "Tom", "I'm moving to Berlin next month.", 3)
    before = snapshot(services, space)
    assert any(not d["current"] for d in before["derived"])  # the coffee preference was superseded
    for _ in range(2):
        r = app_client.post(f"/spaces/{space}/memory/reprocess", json={}, headers=space_headers)
        assert r.status_code == 200, r.text
        assert snapshot(services, space) == before
    r = app_client.post(f"/spaces/{space}/memory/reprocess", json={"session": "v1"}, headers=space_headers)
    assert r.json()["messages"] == 3 and snapshot(services, space) == before
    assert (
        app_client.post(
            f"/spaces/{space}/memory/reprocess", json={"session": "nope"}, headers=space_headers
        ).status_code
        == 404
    )


def test_delete_participant_cascades_and_proves_nothing_left(app_client, space_headers, space, services):
    say(app_client, space_headers, space, "s1", "Maya", "I'm vegetarian and I work as a nurse.", 0)
    say(app_client, space_headers, space, "s1", "Tom", "Maya, your room is 412.", 1)
    say(app_client, space_headers, space, "s1", "Maya", "I love green tea.", 2)
    say(app_client, space_headers, space, "s1", "Tom", "I will bring the bags up.", 3, addressees=["Maya"])
    maya = app_client.get(f"/spaces/{space}/participants/Maya/profile", headers=space_headers).json()
    assert maya["attributes"]["preference"] and maya["messages"] == 2
    named = vectors_naming(services.db, space, {"Maya"})
    r = app_client.delete(f"/spaces/{space}/participants/{maya['id']}", headers=space_headers)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["clean"], report["check"] and report["messages"] == 2
    # her name stays only in what Tom's own words make again on a reprocess (his text and passage,
    # the fact he stated, the evidence that he, who called "Maya", is not Maya), not in the
    # passage "Tom to Maya: I will bring ..." made of his other turn (re-indexed without her)
    left = holding(services.db, space, {maya["id"]}, {"Maya"})
    evidence_kind = 3  # key|name|weight|kind|...
    assert {
        (labels[0], key, value.split("|")[evidence_kind] if key == "name_evidence" else value)
        for labels, key, value in left
    } == {
        ("Message", "text", "Maya, your room is 412."),
        ("Message", "passage", "Tom: Maya, your room is 412."),
        # BM25's counts of Tom's own text (migration 0013): his message's term list and the
        # session's counter of the word, which his text keeps at one
        ("Message", "bm25_terms", "maya"),
        ("Bm25Term", "term", "maya"),
        ("Fact", "content", "Maya's room is 412."),
        ("Fact", "display", "Maya's room is 412."),
        ("Participant", "name_evidence", "not_me"),
    }
    assert {index for index, _, _ in fulltext_hits(services.db, space, {"Maya"})} == {
        "message_text",
        "message_scoped_text",
        "fact_scoped_content",
    }
    copies = vector_copies(services.db, space, named)
    assert len(copies) == 2, copies  # Tom's "Maya, your room ..." turn and his fact, nothing else
    left = facts(app_client, space_headers, space, history="true")
    assert {f["content"] for f in left} == {"Maya's room is 412.", "Tom will bring the bags up."}
    assert all(
        f["about"] == [] for f in left if "412" in f["content"]
    )  # ABOUT edge to the deleted person gone
    chain = services.db.query(
        "MATCH (m:Message {space: $space}) "
        "RETURN count(m) AS n, COUNT { (:Message {space: $space})-[:NEXT]->() } AS links",
        space=space,
    )[0]
    assert chain == {"n": 2, "links": 1}  # NEXT re-linked over the deleted turns
    assert (
        app_client.get(f"/spaces/{space}/participants/Maya/profile", headers=space_headers).status_code == 404
    )
    assert (
        app_client.delete(f"/spaces/{space}/participants/{maya['id']}", headers=space_headers).status_code
        == 404
    )


def test_voice_participant_deletion_removes_voiceprints(services, space):
    """Maya named herself, and the ASR of Ben's turn was told to expect her name: after her
    deletion the name is nowhere (Ben's hints keep his own), and only Ben's voiceprint is left."""
    voice(services, space, "v1", "spk_a", "Hi, I'm Maya. I love jazz.", 0, f"{space}:a0")
    hints = ["Maya", "Ben"]
    voice(
        services, space, "v1", "spk_b", "Nice to meet you, I'm Ben. I love jazz too.", 1, f"{space}:b0", hints
    )
    pid = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'maya'}) RETURN p.id AS id", space=space
    )[0]["id"]
    named = vectors_naming(services.db, space, {"Maya"})
    assert named and holding(services.db, space, set(), {"Maya"})
    report = services.memory.delete_participant(space, pid)
    assert report["clean"], report
    assert report["voiceprints"] == 1 and report["speakers"] == 1
    left = services.db.query("MATCH (v:Voiceprint {space: $space}) RETURN v.message_id AS m", space=space)
    assert left == [{"m": f"{space}:b0"}]
    assert holding(services.db, space, {pid, f"{space}:a0"}, {"Maya"}) == []
    assert fulltext_hits(services.db, space, {"Maya"}) == []
    assert vector_copies(services.db, space, named) == []
    kept = services.db.query("MATCH (m:Message {space: $space}) RETURN m.asr_vocabulary AS v", space=space)
    assert kept == [{"v": ["Ben"]}]


def test_image_caption_becomes_searchable_memory(app_client, space_headers, space):
    msg = say(app_client, space_headers, space, "s1", "Maya", "Look at what I painted last weekend!", 0)
    r = app_client.post(
        f"/spaces/{space}/messages/{msg['id']}/images",
        json={"caption": "a watercolour of a lake at sunrise"},
        headers=space_headers,
    )
    assert r.status_code == 201, r.text
    assert r.json()["embedded"] is False  # no CLIP weights configured here
    contents = {f["content"] for f in facts(app_client, space_headers, space)}
    assert "Maya shared an image: a watercolour of a lake at sunrise." in contents
    bad = app_client.post(
        f"/spaces/{space}/messages/{msg['id']}/images", json={"caption": "  "}, headers=space_headers
    )
    assert bad.status_code == 422
    missing = app_client.post(
        f"/spaces/{space}/messages/nope/images", json={"caption": "x"}, headers=space_headers
    )
    assert missing.status_code == 404


def test_nickname_heard_before_the_person_spoke_becomes_their_alias(
    app_client, space_headers, space, services
):
    say(app_client, space_headers, space, "s1", "Caroline", "Hey Mel! Good to see you! How have you been?", 0)
    say(
        app_client,
        space_headers,
        space,
        "s1",
        "Melanie",
        "Hey Caroline! I'm swamped with the kids and work.",
        1,
    )
    people = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.name AS name, p.aliases AS aliases ORDER BY name",
        space=space,
    )
    assert people == [{"name": "Caroline", "aliases": []}, {"name": "Melanie", "aliases": ["Mel"]}]
    first = app_client.get(f"/spaces/{space}/messages", headers=space_headers).json()[0]
    assert [a["name"] for a in first["addressees"]] == ["Melanie"]
    audit = app_client.get(f"/spaces/{space}/audit", headers=space_headers).json()
    assert [(a["kind"], a["resolved"]) for a in audit] == [("merge_placeholder", True)]


def test_mentioned_people_get_no_session_access_but_addressed_ones_do(
    app_client, space_headers, space, services
):
    say(
        app_client,
        space_headers,
        space,
        "s1",
        "Maya",
        "Yesterday I went to the museum with my sister Anna.",
        0,
    )
    say(app_client, space_headers, space, "s1", "Maya", "Tom, could you book a table for tonight?", 1)
    rows = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.name AS name, "
        "EXISTS { (p)-[:PARTICIPATED_IN]->(:Session) } AS present ORDER BY name",
        space=space,
    )
    assert rows == [
        {"name": "Anna", "present": False},
        {"name": "Maya", "present": True},
        {"name": "Tom", "present": True},
    ]
