"""The attribution audit passes on data written through the API, catches planted violations,
names the offending ids with a pasteable query that finds them, and fails loudly on a
space that does not exist (CLI, JSON and the admin route)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from voxmem.audit import cypher_literal, run_audit, with_literals
from voxmem.cli import main
from voxmem.core import Voxmem
from voxmem.errors import NotFound


def _post_turns(app_client: TestClient, space: str, headers: dict) -> None:
    for i, (who, to, text) in enumerate(
        [
            ("Ana", "Ben", "Ben, checkout is at noon."),
            ("Ben", "Ana", "Thanks Ana."),
            ("Ana", None, "Bye all."),
        ]
    ):
        body = {"speaker": who, "text": text, "addressees": [to] if to else [], "turn_id": f"t{i}"}
        r = app_client.post(f"/spaces/{space}/sessions/s1/turns", json=body, headers=headers)
        assert r.status_code == 201, r.text


def test_cypher_literals_escape_quotes() -> None:
    assert cypher_literal(["a'b", "c\\d", 3]) == "['a\\'b', 'c\\\\d', 3]"
    template = "// c\nMATCH (n {space: $space}) WHERE n.id IN $ids RETURN n"
    pasted = with_literals(template, space="s", ids=["x"])
    assert pasted == "MATCH (n {space: 's'}) WHERE n.id IN ['x'] RETURN n;"


def test_audit_clean_then_detects_planted_violations(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict, admin_headers: dict, capsys
) -> None:
    _post_turns(app_client, space, space_headers)
    clean = run_audit(services.db, space)
    assert not clean.failed and clean.summary()["fail"] == 0
    assert main(["audit", space]) == 0
    assert "summary: 9 checks" in capsys.readouterr().out

    other = f"{space}-other"
    services.spaces.create(other)
    try:
        services.db.execute(
            """
            MATCH (m:Message {space: $space, idx: 0})
            CREATE (x:Participant {space: $other, id: 'p_intruder', key: 'intruder', name: 'Intruder'})
            CREATE (x)-[:SPEAKS]->(m)
            CREATE (:Fact {space: $space, id: 'fact_orphan', content: 'no source'})
            """,
            space=space,
            other=other,
        )
        first = "MATCH (m:Message {space: $space, idx: 0}) RETURN m.id AS id"
        msg0 = services.db.query(first, space=space)[0]["id"]
        report = run_audit(services.db, space)
        found = {f.check.name: f for f in report}
        assert report.failed and report.summary()["fail"] == 3
        cross = found["audit_cross_space_edges"]
        assert cross.failed and cross.violations == 1 and cross.sample == [msg0]
        speakers = found["audit_message_speakers"]
        assert speakers.failed and speakers.violations == 1 and speakers.sample == [msg0]
        assert found["audit_memory_provenance"].sample == ["fact_orphan"]
        assert not found["audit_next_chain"].failed and found["audit_next_chain"].inspect == ""

        # The inspect query runs as printed and returns exactly the offending nodes.
        rows = services.db.query(speakers.inspect.rstrip(";"))
        assert {r["m"]["id"] for r in rows} == {msg0} and len(rows) == 2
        rows = services.db.query(found["audit_memory_provenance"].inspect.rstrip(";"))
        assert [r["d"]["id"] for r in rows] == ["fact_orphan"]
        rows = services.db.query(cross.inspect.rstrip(";"))
        assert [r["b"]["id"] for r in rows] == ["p_intruder"]

        assert main(["audit", space]) == 1
        out = capsys.readouterr().out
        assert "[FAIL]" in out and "fact_orphan" in out and "inspect in Browser: MATCH" in out
        assert main(["audit", space, "--json"]) == 1
        data = json.loads(capsys.readouterr().out)
        assert data["summary"]["fail"] == 3 and sum(data["summary"].values()) == 9
        assert {f["check"] for f in data["findings"] if f["status"] == "fail"} == {
            "audit_cross_space_edges",
            "audit_message_speakers",
            "audit_memory_provenance",
        }

        r = app_client.get(f"/admin/spaces/{space}/audit", headers=admin_headers)
        assert r.status_code == 200, r.text
        assert r.json()["failed"] is True and r.json()["findings"] == data["findings"]
        # A space key is not enough: the audit sees across spaces.
        assert app_client.get(f"/admin/spaces/{space}/audit", headers=space_headers).status_code == 403
    finally:
        services.spaces.delete(other)


def test_audit_of_a_missing_space_fails_loudly(
    app_client: TestClient, services: Voxmem, admin_headers: dict, capsys
) -> None:
    missing = "no-such-space-for-audit"
    with pytest.raises(NotFound):
        run_audit(services.db, missing)
    assert main(["audit", missing]) == 2
    captured = capsys.readouterr()
    assert "unknown space" in captured.err and captured.out == ""
    assert main(["audit", missing, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "NotFound"
    r = app_client.get(f"/admin/spaces/{missing}/audit", headers=admin_headers)
    assert r.status_code == 404 and r.json()["error"] == "NotFound"


def test_next_chain_follows_deletions_and_catches_a_missing_link(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    """The chain is each session's messages in idx order, not idx n -> n+1: deleting a person
    leaves gaps in idx that the deletion re-links over (legal, was reported as broken), and a
    NEXT edge gone missing between two stored turns is a broken chain (was reported clean)."""
    _post_turns(app_client, space, space_headers)
    ben = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'ben'}) RETURN p.id AS id", space=space
    )[0]["id"]
    r = app_client.delete(f"/spaces/{space}/participants/{ben}", headers=space_headers)
    assert r.status_code == 200, r.text
    found = {f.check.name: f for f in run_audit(services.db, space)}
    assert not found["audit_next_chain"].failed, found["audit_next_chain"]

    first = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.id AS id ORDER BY m.idx LIMIT 1", space=space
    )[0]["id"]
    services.db.execute("MATCH (:Message {id: $id})-[r:NEXT]->() DELETE r", id=first)
    chain = {f.check.name: f for f in run_audit(services.db, space)}["audit_next_chain"]
    assert chain.failed and chain.sample == [first]
    rows = services.db.query(chain.inspect.rstrip(";"))
    assert [r["m"]["id"] for r in rows] == [first] and rows[0]["expected"] is not None


def test_a_planted_wrong_speaks_or_addresses_link_fails_the_audit(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    """Ana's turn re-attributed to Ben (his SPEAKS instead of hers, while the voice it was
    spoken in is identified as Ana), and a turn made to address its own speaker, both passed as
    clean: no check compared SPEAKS with the voice, or ADDRESSES with SPEAKS."""
    _post_turns(app_client, space, space_headers)
    services.db.execute(  # Ana's first turn as a spoken turn would store it: her voice, identified
        """
        MATCH (ana:Participant {space: $space, key: 'ana'})-[:SPEAKS]->(m:Message {space: $space, idx: 0})
        CREATE (s:Speaker {space: $space, id: 'spk_ana', n_obs: 1})
        CREATE (m)-[:SPOKEN_AS]->(s), (s)-[:IDENTIFIED_AS {confidence: 1.0, source: 'manual'}]->(ana)
        """,
        space=space,
    )
    assert not run_audit(services.db, space).failed
    ids = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.idx AS idx, m.id AS id ORDER BY idx", space=space
    )
    msg0, msg1 = ids[0]["id"], ids[1]["id"]
    services.db.execute(
        """
        MATCH (ana:Participant {space: $space, key: 'ana'})-[r:SPEAKS]->(m:Message {space: $space, idx: 0})
        MATCH (ben:Participant {space: $space, key: 'ben'})
        DELETE r
        CREATE (ben)-[:SPEAKS]->(m)
        """,
        space=space,
    )
    found = {f.check.name: f for f in run_audit(services.db, space)}
    voice = found["audit_speaks_voice"]
    assert voice.failed and voice.sample == [msg0]
    # msg0 addressed Ben: now Ben addresses himself, which is the same wrong link seen from ADDRESSES
    assert found["audit_self_addressed"].sample == [msg0]
    rows = services.db.query(voice.inspect.rstrip(";"))
    assert [(r["p"]["name"], r["voice"]["name"]) for r in rows] == [("Ben", "Ana")]

    services.db.execute(  # put SPEAKS back, then plant a wrong ADDRESSES on Ben's own turn
        """
        MATCH (ben:Participant {space: $space, key: 'ben'})-[r:SPEAKS]->(m0:Message {space: $space, idx: 0})
        MATCH (ana:Participant {space: $space, key: 'ana'})
        DELETE r
        CREATE (ana)-[:SPEAKS]->(m0)
        WITH ben
        MATCH (ben)-[:SPEAKS]->(m1:Message {space: $space, idx: 1})
        CREATE (m1)-[:ADDRESSES {source: 'given', confidence: 1.0}]->(ben)
        """,
        space=space,
    )
    report = run_audit(services.db, space)
    found = {f.check.name: f for f in report}
    assert not found["audit_speaks_voice"].failed
    assert report.failed and found["audit_self_addressed"].sample == [msg1]
    assert main(["audit", space]) == 1
