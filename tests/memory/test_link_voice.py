"""A voice linked by hand to a person brings its earlier (unnamed) person along.

Before: ``/speakers/{id}/link`` moved the voice (IDENTIFIED_AS) and its messages (SPEAKS) to the
person but left the voice's earlier unnamed participant behind, still holding what was said to
and about the voice: the replies that addressed it, facts about it (texts still reading
'{p_…}'), its attributes, its session and its name evidence. Who-said-what queries showed an
'unnamed voice' beside the person, and the person's own memory looked empty. Now the link folds
that participant into the person in its transaction (``participant_fold``), records who was
folded in its ``identity_link`` audit item, and re-renders texts and passages with the name.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tests.memory.test_memory_integration import voice
from voxmem.audit import run_audit
from voxmem.core import Voxmem
from voxmem.cypher import query
from voxmem.stores.speakers import SpeakerStore

pytestmark = pytest.mark.integration

KITCHEN = [
    ("spk_leo", "Tom, I love green tea."),
    ("spk_tom", "Sure. I'm Tom, by the way. Do you want pizza?"),
    ("spk_leo", "I moved to Berlin last year."),
    ("spk_tom", "Berlin is lovely, you should show me."),
]


def ingest(services: Voxmem, space: str, turns: list[tuple[str, str]]) -> None:
    for i, (speaker, text) in enumerate(turns):
        voice(services, space, "kitchen", speaker, text, i, f"{space}:kitchen:{i}")
    services.memory.writer.passages.backfill(space)  # the audio path indexes each turn


def person_of(services: Voxmem, space: str, speaker: str) -> str:
    return services.db.query(
        "MATCH (:Speaker {space: $space, id: $speaker})-[:IDENTIFIED_AS]->(p) RETURN p.id AS id",
        space=space,
        speaker=speaker,
    )[0]["id"]


def edges(services: Voxmem, space: str, pid: str) -> set[tuple[str, str, str]]:
    """Every relationship of a participant as (type, direction, the other end's id)."""
    rows = services.db.query(
        "MATCH (p:Participant {space: $space, id: $pid})-[r]-(x) "
        "RETURN type(r) AS type, startNode(r) = p AS out, x.id AS other",
        space=space,
        pid=pid,
    )
    return {(r["type"], "out" if r["out"] else "in", r["other"]) for r in rows}


def state(services: Voxmem, space: str) -> dict[str, Any]:
    """Everything a link could touch, for the retry comparison."""
    q = services.db.query
    return {
        "people": q(
            "MATCH (p:Participant {space: $space}) RETURN p.id AS id, p.name AS name, "
            "p.name_source AS source, p.aliases AS aliases, p.name_evidence AS evidence "
            "ORDER BY id",
            space=space,
        ),
        "edges": sorted(
            (r["a"], r["t"], r["b"])
            for r in q(
                "MATCH (a {space: $space})-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b",
                space=space,
            )
        ),
        "texts": q(
            "MATCH (n {space: $space}) WHERE n:Fact OR n:Attribute OR n:Message "
            "RETURN n.id AS id, coalesce(n.content, n.text) AS text, n.passage AS passage, "
            "n.subject_key AS subject, n.display AS display ORDER BY id",
            space=space,
        ),
        "audit": q(
            "MATCH (a:AuditItem {space: $space}) RETURN a.kind AS kind, a.participants AS people "
            "ORDER BY kind",
            space=space,
        ),
    }


def test_a_voice_linked_by_hand_brings_its_earlier_unnamed_person_along(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    ingest(services, space, KITCHEN)
    old = person_of(services, space, "spk_leo")
    held = edges(services, space, old)
    # what the unnamed voice held, beyond its voice and messages: the test shows something only then
    assert {t for t, _, _ in held} >= {
        "IDENTIFIED_AS",
        "SPEAKS",
        "ADDRESSES",
        "ABOUT",
        "STATED_BY",
        "HAS_ATTRIBUTE",
        "PARTICIPATED_IN",
    }
    placeholder = "{" + old + "}"
    assert services.db.query(
        "MATCH (f:Fact {space: $space}) WHERE f.content CONTAINS $ph RETURN count(f) AS n",
        space=space,
        ph=placeholder,
    )[0]["n"]

    r = app_client.post(f"/spaces/{space}/speakers/spk_leo/link", json={"name": "Leo"}, headers=space_headers)
    assert r.status_code == 200, r.text
    linked = r.json()
    leo = linked["participant_id"]
    assert linked["participant_name"] == "Leo" and linked["merged_participant_id"] == old

    # the old participant is gone without a trace (any node, any property, any edge of the space)
    assert not services.db.query(
        "MATCH (p:Participant {space: $space, id: $id}) RETURN p", space=space, id=old
    )
    check = services.memory.check(space, participant_id=old)
    assert not any(check.values()), check
    # everything it held is the person's now
    assert edges(services, space, leo) >= held
    q = services.db.query
    person = q(
        "MATCH (p:Participant {space: $space, id: $id}) RETURN p.name AS name, p.name_source AS source, "
        "p.name_evidence AS evidence, p.display AS display",
        space=space,
        id=leo,
    )[0]
    assert person["name"] == "Leo" and person["source"] == "manual" and person["display"] == "Leo"
    assert any(e.split("|")[3] == "not_me" for e in person["evidence"])  # "Tom, …": Leo is not Tom
    facts = q(
        "MATCH (f:Fact {space: $space}) RETURN f.content AS content, f.subject_key AS subject, "
        "f.display AS display, [(f)-[:ABOUT]->(p) | p.id] AS about",
        space=space,
    )
    assert not [f for f in facts if "{" in f["content"] or "{" in (f["display"] or "")]
    berlin = next(f for f in facts if f["content"] == "Leo moved to Berlin last year.")
    assert berlin["subject"] == leo and berlin["about"] == [leo]
    assert {
        a["text"] for a in q("MATCH (a:Attribute {space: $space}) RETURN a.text AS text", space=space)
    } == {
        "Leo loves green tea.",
        "Leo moved to Berlin last year.",
    }
    passages = q(
        "MATCH (m:Message {space: $space}) RETURN m.idx AS idx, m.passage AS passage ORDER BY idx",
        space=space,
    )
    assert [p["passage"] for p in passages if p["idx"] in (0, 2)] == [
        "Leo: Tom, I love green tea.",
        "Leo: I moved to Berlin last year.",
    ]
    # Browser's who-addresses-whom shows the person, and no unnamed voice
    rows = services.db.query(query("browse_addresses_weighted"), space=space)
    pairs = {(row["speaker"], row["addressee"]) for row in rows}
    assert ("Leo", "Tom") in pairs and ("Tom", "Leo") in pairs
    assert not [row for row in rows if "unnamed" in row["speaker"] + row["addressee"]]
    # the audit trail says which voice was linked to whom and who was folded in
    audits = q(
        "MATCH (a:AuditItem {space: $space, kind: 'identity_link'}) RETURN a.detail AS detail", space=space
    )
    assert [json.loads(a["detail"]) for a in audits] == [
        {
            "speaker": "spk_leo",
            "participant": leo,
            "name": "Leo",
            "previous_participant": old,
            "previous_name": None,
            "folded": True,
        }
    ]

    # a retry changes nothing and audits nothing
    before = state(services, space)
    again = app_client.post(
        f"/spaces/{space}/speakers/spk_leo/link", json={"name": "Leo"}, headers=space_headers
    )
    assert again.status_code == 200, again.text
    assert again.json()["participant_id"] == leo and again.json()["merged_participant_id"] is None
    assert state(services, space) == before


def test_a_person_who_keeps_another_voice_is_not_folded(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    """Linking one of a person's two voices elsewhere moves that voice only: the person still
    speaks through the other voice, so they are someone and stay."""
    ingest(services, space, [("spk_a", "I love green tea."), ("spk_b", "I moved to Berlin last year.")])
    a, b = person_of(services, space, "spk_a"), person_of(services, space, "spk_b")
    # spk_b is the same person as spk_a (linked by participant id): b, unnamed, is folded into a
    r = app_client.post(
        f"/spaces/{space}/speakers/spk_b/link", json={"participant_id": a}, headers=space_headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["merged_participant_id"] == b
    assert not any(services.memory.check(space, participant_id=b).values())
    # then spk_a turns out to be Ann: a keeps spk_b and its message, so it is not folded
    r = app_client.post(f"/spaces/{space}/speakers/spk_a/link", json={"name": "Ann"}, headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["merged_participant_id"] is None
    assert ("IDENTIFIED_AS", "in", "spk_b") in edges(services, space, a)
    audit = services.db.query(
        "MATCH (x:AuditItem {space: $space, kind: 'identity_link'}) WHERE x.detail CONTAINS 'spk_a' "
        "RETURN x.detail AS detail",
        space=space,
    )
    assert json.loads(audit[0]["detail"])["folded"] is False


def test_a_voice_linked_to_the_name_it_called_does_not_address_itself(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    """The voice called "Rosa" (a placeholder, addressed, no voice); linked by hand to Rosa, its
    message would address its own speaker: the inferred edge is dropped, the fold still happens."""
    ingest(services, space, [("spk_a", "Rosa, are you coming to the match?")])
    addressed = services.db.query(
        "MATCH (m:Message {space: $space, idx: 0})-[r:ADDRESSES]->(p) "
        "RETURN p.name AS name, r.source AS source",
        space=space,
    )
    assert addressed == [{"name": "Rosa", "source": "vocative"}]
    r = app_client.post(f"/spaces/{space}/speakers/spk_a/link", json={"name": "Rosa"}, headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["merged_participant_id"] is not None
    rosa = r.json()["participant_id"]
    assert not services.db.query(
        "MATCH (p:Participant {space: $space, id: $id})-[:SPEAKS]->(:Message)-[r:ADDRESSES]->(p) RETURN r",
        space=space,
        id=rosa,
    )
    assert not services.db.query(
        "MATCH (p:Participant {space: $space, id: $id})<-[:STATED_BY]-(:Fact)-[r:ADDRESSED_TO]->(p) RETURN r",
        space=space,
        id=rosa,
    )


def passages(services: Voxmem, space: str) -> list[str]:
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.passage AS passage ORDER BY m.idx", space=space
    )
    return [r["passage"] for r in rows]


def test_passages_follow_voices_merged_unmerged_and_split(
    services: Voxmem, space: str, app_client, space_headers
) -> None:
    """A merge, unmerge or split moves SPEAKS as a link does: the "Name: text" passages of the
    messages that changed hands follow (before, only a naming re-indexed them, so a fragment
    merged into Leo's voice kept its bare text, and a turn split off Leo's kept "Leo: …")."""
    ingest(
        services,
        space,
        [
            ("spk_b", "I moved to Berlin last year."),
            ("spk_a", "The plumber comes on Thursday."),
            ("spk_b", "Grandma arrives on Sunday."),
        ],
    )
    rng = np.random.default_rng(7)
    for vp in ("0", "1", "2"):  # voice vectors, as the router would have stored them
        services.db.execute(
            "MATCH (v:Voiceprint {space: $space, id: $id}) SET v.embedding = $e",
            space=space,
            id=f"vp_{space}:kitchen:{vp}",
            e=rng.normal(size=256).tolist(),
        )
    for speaker in ("spk_a", "spk_b"):
        services.db.write(
            lambda tx, speaker=speaker: SpeakerStore.set_centroid(
                tx, space, speaker, rng.normal(size=256).tolist()
            )
        )
    url = f"/spaces/{space}/speakers"
    assert (
        app_client.post(f"{url}/spk_b/link", json={"name": "Leo"}, headers=space_headers).status_code == 200
    )
    assert passages(services, space) == [
        "Leo: I moved to Berlin last year.",
        "The plumber comes on Thursday.",
        "Leo: Grandma arrives on Sunday.",
    ]
    merged = app_client.post(
        f"{url}/merge", json={"source": "spk_a", "target": "spk_b"}, headers=space_headers
    )
    assert merged.status_code == 200, merged.text
    assert passages(services, space)[1] == "Leo: The plumber comes on Thursday."
    assert app_client.post(f"{url}/spk_a/unmerge", headers=space_headers).status_code == 200
    assert passages(services, space)[1] == "The plumber comes on Thursday."
    split = app_client.post(
        f"{url}/spk_b/split", json={"message_ids": [f"{space}:kitchen:2"]}, headers=space_headers
    )
    assert split.status_code == 200, split.text
    assert passages(services, space) == [
        "Leo: I moved to Berlin last year.",
        "The plumber comes on Thursday.",
        "Grandma arrives on Sunday.",
    ]
    assert not run_audit(services.db, space).failed  # SPEAKS followed every voice change
