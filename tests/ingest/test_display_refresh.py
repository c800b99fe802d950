"""Browser captions after the turn-scoped refresh (``memory_display_refresh_turns``): every
memory write refreshes only what its turns touched, and that must leave the captions exactly as
the whole-space refresh would (the whole-space query then finds nothing to change)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
TALK = [
    ("kitchen", "Maya", ["Priya"], "Mom, I need new football boots before Saturday's match."),
    ("kitchen", "Priya", ["Maya"], "Fine, Maya, but you pay half from your allowance."),
    ("kitchen", "Tom", [], "My friend Lena moved to Porto last year."),
    ("kitchen", "Priya", [], "My favourite food is sushi, by the way."),
    ("garden", "Dave", [], "I work as a nurse, so only Sunday works for me."),
    ("garden", "Priya", ["Dave"], "Dave, I can lend you our trimmer."),
]


def _captions(services: Voxmem, space: str) -> list[dict]:
    return services.db.query(
        "MATCH (n {space: $space}) WHERE n:Participant OR n:Fact OR n:Attribute "
        "RETURN labels(n)[0] AS kind, coalesce(n.name, n.content, n.text) AS text, n.display AS display "
        "ORDER BY kind, text, display",
        space=space,
    )


def test_turn_scoped_refresh_leaves_what_the_whole_space_refresh_would(
    app_client, services: Voxmem, space: str, space_headers: dict
) -> None:
    for i, (session, who, to, text) in enumerate(TALK[:4]):  # the per-turn route
        body = {"speaker": who, "text": text, "addressees": to, "turn_id": f"t{i}"}
        r = app_client.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text
    turns = [  # and the batch path
        Turn(s, who, text, to, T0 + timedelta(minutes=i), f"b{i}")
        for i, (s, who, to, text) in enumerate(TALK[4:])
    ]
    assert not services.pipeline.import_turns(space, turns).pending

    shown = _captions(services, space)
    assert sum(c["kind"] == "Fact" for c in shown) >= 2, "the offline extractor derived too few facts"
    assert all(c["display"] == c["text"] for c in shown), [c for c in shown if c["display"] != c["text"]]
    assert services.memory.writer.refresh_display(space) == 0  # nothing was left stale
    assert _captions(services, space) == shown


def test_a_placeholder_reads_as_the_unnamed_voice_until_a_naming(services: Voxmem, space: str) -> None:
    turn = Turn("s1", "Maya", "I need a lift to school tomorrow.", turn_id="x0")
    services.pipeline.append_text(space, turn)
    message = services.db.query("MATCH (m:Message {space: $space}) RETURN m.id AS id", space=space)[0]["id"]
    services.db.execute(
        """
        MATCH (m:Message {space: $space, id: $mid})
        CREATE (p:Participant {space: $space, id: 'p_0a1b2c3d4e', aliases: []})
        CREATE (f:Fact {space: $space, id: 'fact_unnamed', content: '{p_0a1b2c3d4e} needs a lift.'})
        CREATE (a:Attribute {space: $space, id: 'attr_unnamed', kind: 'preference',
                             text: '{p_0a1b2c3d4e} likes tea'})
        CREATE (f)-[:DERIVED_FROM]->(m), (a)-[:DERIVED_FROM]->(m), (p)-[:HAS_ATTRIBUTE]->(a),
               (f)-[:STATED_BY]->(p)
        """,
        space=space,
        mid=message,
    )
    writer = services.memory.writer
    assert writer.refresh_display(space, [message], []) == 3  # the person, the fact, the attribute
    read = (
        "MATCH (p:Participant {space: $space, id: 'p_0a1b2c3d4e'}), "
        "(f:Fact {space: $space, id: 'fact_unnamed'}), (a:Attribute {space: $space, id: 'attr_unnamed'}) "
        "RETURN p.display AS p, f.display AS f, a.display AS a"
    )
    assert services.db.query(read, space=space)[0] == {
        "p": "unnamed voice 0a1b2c",
        "f": "unnamed voice 0a1b2c needs a lift.",
        "a": "unnamed voice 0a1b2c likes tea",
    }
    # named by a later turn (not the one the memory came from): the person's memory follows
    services.db.execute(
        "MATCH (p:Participant {space: $space, id: 'p_0a1b2c3d4e'}) SET p.name = 'Ravi', p.key = 'ravi'",
        space=space,
    )
    writer.backfill(space, "p_0a1b2c3d4e", "Ravi")
    assert writer.refresh_display(space, [], ["p_0a1b2c3d4e"]) == 3
    assert services.db.query(read, space=space)[0] == {
        "p": "Ravi",
        "f": "Ravi needs a lift.",
        "a": "Ravi likes tea",
    }
    assert writer.refresh_display(space) == 0
