"""Export a space to JSON lines and import it into a new space: the same graph (counts by label and
relationship type), a clean orphan check, and the same answers; bad files are refused whole."""

from __future__ import annotations

import json
import uuid

import pytest
from fastapi.testclient import TestClient

from voxmem.client import VoxmemClient, VoxmemHTTPError
from voxmem.core import Voxmem

COUNTS = """
MATCH (n {space: $space}) WHERE NOT (n:Space OR n:ApiKey OR n:Job)
WITH labels(n)[0] AS label, count(*) AS n RETURN label, n ORDER BY label
"""
EDGES = """
MATCH (a {space: $space})-[r]->(b {space: $space})
WHERE NOT (a:ApiKey OR a:Space OR a:Job OR b:ApiKey OR b:Space OR b:Job)
WITH type(r) AS t, count(*) AS n RETURN t, n ORDER BY t
"""


def _shape(services: Voxmem, space: str) -> tuple[dict, dict]:
    labels = {r["label"]: r["n"] for r in services.db.query(COUNTS, space=space)}
    types = {r["t"]: r["n"] for r in services.db.query(EDGES, space=space)}
    return labels, types


@pytest.fixture
def admin(app_client: TestClient, admin_headers: dict) -> VoxmemClient:
    return VoxmemClient(http=app_client, api_key=admin_headers["Authorization"].split()[1])


def test_export_import_round_trip(services: Voxmem, space: str, space_key: str, app_client, admin) -> None:
    client = VoxmemClient(http=app_client, api_key=space_key)
    for session, speaker, text, to in [
        ("dinner", "Lena", "Ana, I moved to Lisbon last spring.", ["Ana"]),
        ("dinner", "Ana", "Lena, I am allergic to peanuts.", ["Lena"]),
        ("dinner", "Tom", "The garage door code is 4417.", ["Ana"]),
        ("later", "Lena", "Actually I moved to Porto in May.", []),
    ]:
        client.append_turn(space, session, speaker, text, addressees=to, turn_id=f"{session}-{speaker}")
    exported = client.export_space(space)
    lines = [json.loads(line) for line in exported.splitlines()]
    assert lines[0]["kind"] == "voxmem-export" and lines[0]["space"] == space
    kinds = {tuple(line["labels"]) for line in lines if line["kind"] == "node"}
    assert {("Participant",), ("Session",), ("Message",), ("Fact",)} <= kinds
    assert any(line.get("type") == "DERIVED_FROM" for line in lines)  # facts keep their provenance

    copy = f"copy-{uuid.uuid4().hex[:10]}"
    try:
        result = admin.import_space(copy, exported)
        assert result.nodes == lines[0]["nodes"] and result.edges == lines[0]["edges"]
        assert _shape(services, copy) == _shape(services, space)
        assert admin.memory_check(copy).clean
        copy_key = admin.issue_key(copy).key
        copy_client = VoxmemClient(http=app_client, api_key=copy_key)
        for question, asker in [("Where does Lena live?", "Lena"), ("What is the garage door code?", "Ana")]:
            a = client.query(space, question, asker=asker)
            b = copy_client.query(copy, question, asker=asker)
            assert (a.answer, a.supported) == (b.answer, b.supported)
            assert [e.text for e in a.evidence] == [e.text for e in b.evidence]
        old_facts = sorted((f.content, f.current) for f in client.facts(space, history=True))
        assert old_facts == sorted((f.content, f.current) for f in copy_client.facts(copy, history=True))
        # the copy's turns are new nodes: appending to the copy leaves the original alone
        copy_client.append_turn(copy, "later", "Tom", "I sold the car.")
        assert len(client.list_messages(space)) == 4 and len(copy_client.list_messages(copy)) == 5
        with pytest.raises(VoxmemHTTPError) as again:
            admin.import_space(copy, exported)
        assert again.value.status_code == 409
    finally:
        services.spaces.delete(copy)


def test_bad_export_files_create_nothing(
    services: Voxmem, admin, space_key: str, space: str, app_client
) -> None:
    target = f"bad-{uuid.uuid4().hex[:10]}"
    owner = VoxmemClient(http=app_client, api_key=space_key)
    owner.append_turn(space, "s1", "Maya", "Hello Tom.", addressees=["Tom"])
    good = owner.export_space(space).splitlines()
    truncated = good[0] + "\n" + good[1] + "\n"  # the header promises more lines than follow
    for body in ["", "not json\n", '{"kind": "node"}\n', truncated]:
        with pytest.raises(VoxmemHTTPError) as err:
            admin.import_space(target, body)
        assert err.value.status_code == 422, body
        assert not services.db.query("MATCH (s:Space {id: $s}) RETURN s", s=target)
    with pytest.raises(VoxmemHTTPError) as err:
        owner.import_space(target, "\n".join(good))
    assert err.value.status_code == 403  # a space key cannot create spaces
