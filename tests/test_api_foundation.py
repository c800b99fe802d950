"""The thin vertical slice against the real Neo4j: spaces, keys, turns, lists, search, errors."""

from __future__ import annotations

import threading
import uuid

from fastapi.testclient import TestClient

from voxmem.core import Voxmem


def _turn(client: TestClient, space: str, headers: dict, session: str, speaker: str, text: str, **extra):
    body = {"speaker": speaker, "text": text, **extra}
    return client.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=headers)


def test_health_reports_neo4j_schema_and_models(app_client: TestClient) -> None:
    health = app_client.get("/health").json()
    assert health["status"] == "ok"
    assert health["neo4j"]["status"] == "ok" and health["neo4j"]["edition"] == "community"
    assert health["schema_version"] >= 1
    assert health["models"]["text_embedding"]["loaded"] is True
    assert "llm" in health["offline"]
    # says which runtime computes stored vectors (the default is the int8 ONNX export)
    assert health["offline"]["text_embedding"].startswith("all-MiniLM-L6-v2 through int8 ONNX Runtime")


def test_schema_has_vector_and_fulltext_indexes(services: Voxmem) -> None:
    rows = services.db.query("SHOW INDEXES YIELD name, type, state RETURN name, type, state")
    by_name = {r["name"]: r for r in rows}
    for name in (
        "message_embedding",
        "fact_embedding",
        "attribute_embedding",
        "voiceprint_embedding",
        "speaker_centroid",
    ):
        assert by_name[name]["type"] == "VECTOR" and by_name[name]["state"] == "ONLINE"
    for name in (
        "message_text",
        "message_scoped_text",
        "fact_scoped_content",
        "attribute_scoped_text",
        "participant_names",
    ):
        assert by_name[name]["type"] == "FULLTEXT" and by_name[name]["state"] == "ONLINE"


def test_append_list_and_graph_edges(
    app_client: TestClient, space: str, space_headers: dict, services: Voxmem
):
    r1 = _turn(app_client, space, space_headers, "s1", "Maya", "Dad, can we get pizza?", addressees=["Tom"])
    r2 = _turn(app_client, space, space_headers, "s1", "Tom", "Only vegetarian, Maya.", addressees=["Maya"])
    r3 = _turn(app_client, space, space_headers, "s2", "Maya", "Hello everyone.")
    assert r1.status_code == r2.status_code == r3.status_code == 201, r1.text
    m1, m2 = r1.json(), r2.json()
    assert (m1["idx"], m2["idx"], r3.json()["idx"]) == (0, 1, 0)
    assert m1["speaker"]["name"] == "Maya" and [a["name"] for a in m1["addressees"]] == ["Tom"]

    by_speaker = app_client.get(
        f"/spaces/{space}/messages", params={"speaker": "maya"}, headers=space_headers
    )
    assert [m["text"] for m in by_speaker.json()] == ["Dad, can we get pizza?", "Hello everyone."]
    to_maya = app_client.get(f"/spaces/{space}/messages", params={"addressee": "Maya"}, headers=space_headers)
    assert [m["id"] for m in to_maya.json()] == [m2["id"]]
    in_s2 = app_client.get(f"/spaces/{space}/messages", params={"session": "s2"}, headers=space_headers)
    assert len(in_s2.json()) == 1

    rows = services.db.query(
        """
        MATCH (p:Participant {space: $space})-[:SPEAKS]->(m:Message {space: $space})
        OPTIONAL MATCH (m)-[:NEXT]->(n:Message)
        OPTIONAL MATCH (m)-[:ADDRESSES]->(a:Participant)
        RETURN p.name AS speaker, m.idx AS idx, m.session AS session, n.idx AS next_idx, a.name AS to,
               size(m.embedding) AS dim
        ORDER BY session, idx
        """,
        space=space,
    )
    assert [(r["speaker"], r["session"], r["idx"], r["next_idx"], r["to"]) for r in rows] == [
        ("Maya", "s1", 0, 1, "Tom"),
        ("Tom", "s1", 1, None, "Maya"),
        ("Maya", "s2", 0, None, None),
    ]
    assert {r["dim"] for r in rows} == {384}


def test_turn_id_makes_retries_idempotent(app_client: TestClient, space: str, space_headers: dict) -> None:
    first = _turn(app_client, space, space_headers, "s1", "Ana", "Checkout is at noon.", turn_id="t-1")
    again = _turn(app_client, space, space_headers, "s1", "Ana", "Checkout is at noon.", turn_id="t-1")
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    # the id reused for another turn is refused, not answered with the stored one (the new words
    # were lost behind a 201): other words, or the same words in another session
    other = _turn(app_client, space, space_headers, "s1", "Ana", "Checkout is at one.", turn_id="t-1")
    moved = _turn(app_client, space, space_headers, "s2", "Ana", "Checkout is at noon.", turn_id="t-1")
    assert other.status_code == moved.status_code == 409, (other.text, moved.text)
    assert other.json()["error"] == "Conflict" and "new turn needs a new turn_id" in other.json()["detail"]
    listed = app_client.get(f"/spaces/{space}/messages", headers=space_headers).json()
    assert [m["text"] for m in listed] == ["Checkout is at noon."]


def test_concurrent_appends_keep_idx_unique_and_chain_linear(
    app_client: TestClient, space: str, space_headers: dict, services: Voxmem
) -> None:
    n, errors = 16, []

    def post(i: int) -> None:
        r = _turn(app_client, space, space_headers, "busy", f"Speaker {i % 3}", f"turn number {i}")
        if r.status_code != 201:
            errors.append(r.text)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = services.db.query(
        """
        MATCH (m:Message {space: $space, session: 'busy'})
        RETURN collect(m.idx) AS idxs,
               COUNT { MATCH (:Message {space: $space})-[:NEXT]->(:Message {space: $space}) } AS next_edges,
               max(COUNT { (m)-[:NEXT]->() }) AS max_out, max(COUNT { ()-[:NEXT]->(m) }) AS max_in
        """,
        space=space,
    )[0]
    assert sorted(rows["idxs"]) == list(range(n))
    assert rows["next_edges"] == n - 1 and rows["max_out"] == 1 and rows["max_in"] == 1


def test_hybrid_search_finds_paraphrase(app_client: TestClient, space: str, space_headers: dict) -> None:
    for speaker, text in [
        ("Priya", "The plumber is coming on Thursday at ten."),
        ("Leo", "Can we have pizza for dinner on Friday?"),
        ("Maya", "My football boots are in the garage."),
    ]:
        assert _turn(app_client, space, space_headers, "s1", speaker, text).status_code == 201
    hits = app_client.get(
        f"/spaces/{space}/search", params={"q": "who fixes the pipes", "k": 2}, headers=space_headers
    )
    assert hits.status_code == 200
    assert hits.json()[0]["text"].startswith("The plumber")  # vector side: no word overlap with the query
    exact = app_client.get(
        f"/spaces/{space}/search", params={"q": "pizza", "k": 1}, headers=space_headers
    ).json()
    assert exact[0]["speaker"]["name"] == "Leo" and set(exact[0]["matched_by"]) == {"fulltext", "vector"}


def test_keys_gate_every_space_route(app_client: TestClient, services: Voxmem, admin_headers: dict) -> None:
    a, b = f"test-a-{uuid.uuid4().hex[:8]}", f"test-b-{uuid.uuid4().hex[:8]}"
    try:
        assert app_client.post("/admin/spaces", json={"id": a}, headers=admin_headers).status_code == 201
        assert app_client.post("/admin/spaces", json={"id": b}, headers=admin_headers).status_code == 201
        key_a = app_client.post(f"/admin/spaces/{a}/keys", json={}, headers=admin_headers).json()
        key_b = app_client.post(f"/admin/spaces/{b}/keys", json={}, headers=admin_headers).json()
        ha, hb = {"Authorization": f"Bearer {key_a['key']}"}, {"Authorization": f"Bearer {key_b['key']}"}
        secret = _turn(app_client, a, ha, "s1", "Ana", "My PIN is 4321.").json()

        # no key, a wrong key, a key of another space: refused, nothing touched
        assert _turn(app_client, a, {}, "s1", "Eve", "hi").status_code == 401
        assert (
            _turn(app_client, a, {"Authorization": "Bearer vxm_nope"}, "s1", "Eve", "hi").status_code == 401
        )
        assert _turn(app_client, a, hb, "s1", "Eve", "hi").status_code == 403
        assert app_client.get(f"/spaces/{a}/messages", headers=hb).status_code == 403
        assert app_client.get(f"/spaces/{a}/search", params={"q": "PIN"}, headers=hb).status_code == 403
        # b's key on b's routes never sees a's nodes, even by id
        assert app_client.get(f"/spaces/{b}/messages/{secret['id']}", headers=hb).status_code == 404
        assert app_client.get(f"/spaces/{b}/search", params={"q": "PIN 4321"}, headers=hb).json() == []
        assert app_client.get(f"/spaces/{b}/messages", headers=hb).json() == []
        # space keys are not admin keys
        assert app_client.post("/admin/spaces", json={"id": "x-evil"}, headers=ha).status_code == 403
        assert app_client.post("/admin/spaces", json={"id": "x-evil"}).status_code == 401
        # revocation takes effect at once
        rv = app_client.delete(f"/admin/spaces/{a}/keys/{key_a['key_id']}", headers=admin_headers)
        assert rv.status_code == 204
        assert app_client.get(f"/spaces/{a}/messages", headers=ha).status_code == 401
        count = services.db.query(
            "MATCH (m:Message) WHERE m.space IN [$a, $b] RETURN count(m) AS n", a=a, b=b
        )
        assert count[0]["n"] == 1
        stored = services.db.query("MATCH (k:ApiKey {space: $a}) RETURN k.hash AS hash", a=a)[0]["hash"]
        assert key_a["key"] not in stored and len(stored) == 64
    finally:
        for s in (a, b):
            services.spaces.delete(s)


def test_bad_input_gets_clear_4xx(
    app_client: TestClient, space: str, space_headers: dict, admin_headers: dict
):
    url = f"/spaces/{space}/sessions/s1/turns"
    malformed = app_client.post(
        url,
        content=b'{"speaker": "Ana", "text": ',
        headers={**space_headers, "content-type": "application/json"},
    )
    assert malformed.status_code == 400 and malformed.json()["error"] == "MalformedJSON"
    assert app_client.post(url, json={"speaker": "Ana", "text": ""}, headers=space_headers).status_code == 422
    assert (
        app_client.post(url, json={"speaker": "Ana", "text": "   "}, headers=space_headers).status_code == 422
    )
    assert (
        app_client.post(
            url, json={"speaker": "Ana", "text": "hi", "bogus": 1}, headers=space_headers
        ).status_code
        == 422
    )
    bad_session = app_client.post(
        f"/spaces/{space}/sessions/a%20b/turns", json={"speaker": "A", "text": "x"}, headers=space_headers
    )
    assert bad_session.status_code == 422
    huge = app_client.post(
        url, content=b"x" * (26 * 1024 * 1024), headers={**space_headers, "content-type": "application/json"}
    )
    assert huge.status_code == 413 and huge.json()["error"] == "PayloadTooLarge"
    assert app_client.get(f"/spaces/{space}/messages/msg_unknown", headers=space_headers).status_code == 404
    assert app_client.get("/spaces/no-such-space/messages", headers=admin_headers).status_code == 404
    assert app_client.post("/admin/spaces", json={"id": space}, headers=admin_headers).status_code == 409
    assert (
        app_client.post(
            "/admin/spaces", json={"id": "x", "policy": "everyone"}, headers=admin_headers
        ).status_code
        == 422
    )
    # nothing of the refused requests was written
    assert app_client.get(f"/spaces/{space}/messages", headers=space_headers).json() == []
