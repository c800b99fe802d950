"""Deleting a participant leaves none of their ids anywhere in the space (finding 8): every
property of every node and relationship is searched, independently of memory_check, and
memory_check itself must agree."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

_ALL_VALUES = (
    "MATCH (n {space: $space}) UNWIND keys(n) AS k RETURN labels(n) AS where, k, n[k] AS v "
    "UNION ALL MATCH ({space: $space})-[r]-() UNWIND keys(r) AS k RETURN [type(r)] AS where, k, r[k] AS v"
)


def _holding(db, space: str, ids: set[str]) -> list[tuple]:
    found = []
    for row in db.query(_ALL_VALUES, space=space):
        values = row["v"] if isinstance(row["v"], list) else [row["v"]]
        for v in values:
            if isinstance(v, str) and any(i == v or f"{{{i}}}" in v for i in ids):
                found.append((row["where"], row["k"], v[:80]))
    return found


def test_deleted_participant_leaves_no_id(app_client, services, space, space_headers) -> None:
    base = f"/spaces/{space}"
    turns = [
        ("Dave", "Hi, I'm Dave. I love jazz and I work at the bakery.", ["Ann"]),
        ("Ann", "Dave, do you want some green tea?", ["Dave"]),
        ("Dave", "Yes please, Ann. My sister Eve lives in Oslo.", ["Ann"]),
        ("Ann", "Dave is vegetarian, remember that.", []),
        ("Ann", "Dave, your room is 412.", ["Dave"]),  # a fact others state about him
    ]
    for i, (speaker, text, to) in enumerate(turns):
        r = app_client.post(
            f"{base}/sessions/s1/turns",
            headers=space_headers,
            json={"speaker": speaker, "text": text, "addressees": to, "turn_id": f"t{i}"},
        )
        assert r.status_code == 201, r.text
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
    assert _holding(services.db, space, {dave, *spoken})  # the search can find them before

    r = app_client.delete(f"{base}/participants/{dave}", headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["clean"], r.json()
    assert _holding(services.db, space, {dave, *spoken}) == []
    check = app_client.get(f"{base}/memory/check", headers=space_headers)
    assert check.status_code == 200 and check.json()["clean"], check.json()
