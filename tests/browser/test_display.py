"""Readable captions: participants, facts and attributes carry a ``display`` text with names
(or 'unnamed voice …'), never a '{p_…}' placeholder, and it sorts before the embedding."""

from __future__ import annotations

from fastapi.testclient import TestClient

from voxmem.core import Voxmem


def test_display_texts_name_people_and_unnamed_voices(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    turns = [
        ("Maya", "Priya", "Mom, I need new football boots before Saturday's match."),
        ("Priya", "Maya", "Fine, Maya, but you pay half from your allowance."),
    ]
    for i, (who, to, text) in enumerate(turns):
        body = {"speaker": who, "text": text, "addressees": [to], "turn_id": f"t{i}"}
        r = app_client.post(f"/spaces/{space}/sessions/s1/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text

    people = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.name AS name, p.display AS display", space=space
    )
    assert people and all(p["display"] == p["name"] for p in people)
    facts = services.db.query(
        "MATCH (f:Fact {space: $space}) RETURN f.content AS content, f.display AS display", space=space
    )
    assert facts, "the offline extractor found no fact in two plain turns"
    assert all(f["display"] and "{" not in f["display"] for f in facts)

    # A voice nobody named: its facts keep the placeholder for a later back-fill, but read well.
    services.db.execute(
        """
        MATCH (m:Message {space: $space, idx: 0})
        CREATE (p:Participant {space: $space, id: 'p_0a1b2c3d4e', aliases: []})
        CREATE (f:Fact {space: $space, id: 'fact_unnamed', content: '{p_0a1b2c3d4e} needs a lift.'})
        CREATE (a:Attribute {space: $space, id: 'attr_unnamed', kind: 'preference',
                             text: '{p_0a1b2c3d4e} likes tea'})
        CREATE (f)-[:DERIVED_FROM]->(m), (a)-[:DERIVED_FROM]->(m), (p)-[:HAS_ATTRIBUTE]->(a)
        """,
        space=space,
    )
    services.memory.writer.refresh_display(space)
    row = services.db.query(
        """
        MATCH (p:Participant {space: $space, id: 'p_0a1b2c3d4e'}),
              (f:Fact {space: $space, id: 'fact_unnamed'}),
              (a:Attribute {space: $space, id: 'attr_unnamed'})
        RETURN p.display AS p, f.display AS f, f.content AS content, a.display AS a
        """,
        space=space,
    )[0]
    assert row == {
        "p": "unnamed voice 0a1b2c",
        "f": "unnamed voice 0a1b2c needs a lift.",
        "content": "{p_0a1b2c3d4e} needs a lift.",
        "a": "unnamed voice 0a1b2c likes tea",
    }
    # Named later: the back-fill fills the content and the display follows.
    services.db.execute(
        "MATCH (p:Participant {space: $space, id: 'p_0a1b2c3d4e'}) SET p.name = 'Ravi', p.key = 'ravi'",
        space=space,
    )
    services.memory.writer.backfill(space, "p_0a1b2c3d4e", "Ravi")
    services.memory.writer.refresh_display(space)
    shown = services.db.query(
        "MATCH (f:Fact {space: $space, id: 'fact_unnamed'}) RETURN f.display AS d", space=space
    )[0]["d"]
    assert shown == "Ravi needs a lift."
