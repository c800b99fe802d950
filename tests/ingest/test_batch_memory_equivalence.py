"""A batch chunk's memory is decided at once (one window read, the rules over the chunk's facts,
one UNWIND write per kind), yet must be exactly what the same turns give one by one.

The history has, in the first chunk, a slot that changes (Maya's checkout 11 am -> noon) and a
conflict between two people settled by Maya (the room); in the second chunk a repeat that only
supports a first-chunk fact and the checkout changing again (noon -> 2 pm, in another session);
vocatives, a mention of someone who never speaks, a naming that conflicts, and an alias
("call me Tommy") that a later turn of the same chunk uses as a vocative: its window must be
read again (with the snapshot read at the chunk's start the alias is unknown; checked by
mutation: dropping the re-read, or deciding each fact without the chunk's earlier ones, fails
this test). Compared: every fact with its supersession edges, conflicts, DERIVED_FROM sources
(turn ids), speaker, addressees and people; attributes; ADDRESSES edges; people; audit items.
Then a re-import of the same batch changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.ingest.history import minute_turns
from tests.memory.helpers import audit_items, canonical
from voxmem.core import Voxmem
from voxmem.pipeline.batch import WRITE_CHUNK, BatchImporter
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 3, 9, 0, tzinfo=UTC)
CHUNK = 7  # turns per derivation chunk: the first chunk is turns 0-6, the second 7-13

# (session, speaker, text)
HISTORY: list[tuple[str, str, str]] = [
    ("desk", "Maya", "My checkout is at 11 am."),
    ("desk", "Tom", "Maya, your room is 412."),
    ("desk", "Ben", "Maya, your room is 415."),
    ("desk", "Maya", "Please change my checkout to noon."),  # changes within the chunk
    ("desk", "Maya", "I love green tea. Yesterday I went to the museum with my sister Anna."),
    ("desk", "Tom", "Sure Maya. I am vegetarian, by the way."),
    ("desk", "Maya", "Actually my room is 420."),  # settles the conflict
    ("desk", "Ben", "Maya, your checkout is at noon."),  # a repeat: supports
    ("desk", "Tom", "Ben, my name is Thomas, call me Tom."),
    ("desk", "Tom", "Please call me Tommy."),
    ("desk", "Maya", "Tommy, can you check my bill?"),
    ("lobby", "Maya", "Please change my checkout to 2 pm."),  # changes across chunks (and sessions)
    ("lobby", "Anna", "Maya, I love green tea too."),
    ("lobby", "Maya", "Anna, my favourite food is sushi."),
]


def turns(prefix: str) -> list[Turn]:
    return minute_turns(HISTORY, T0, prefix)


def memory(services: Voxmem, space: str) -> dict[str, Any]:
    """Facts, attributes and addressee edges of a space, with ids replaced by what they stand
    for (turn ids for messages, names for people, contents for facts)."""
    q = services.db.query
    facts = q(
        """
        MATCH (f:Fact {space: $space})
        RETURN f.content AS content, f.slot AS slot, f.value AS value, f.current AS current,
               f.conflict AS conflict, toString(f.valid_from) AS valid_from, toString(f.valid_to) AS valid_to,
               f.event_time AS event_time,
               [(f)-[:DERIVED_FROM]->(m:Message) | substring(m.id, size($space) + 3)] AS sources,
               [(f)-[:SUPERSEDES]->(o:Fact) | o.content] AS supersedes,
               [(f)-[:CONFLICTS_WITH]-(o:Fact) | o.content] AS conflicts_with,
               [(f)-[:STATED_BY]->(p:Participant) | p.name] AS stated_by,
               [(f)-[:ADDRESSED_TO]->(p:Participant) | p.name] AS addressed_to,
               [(f)-[:ABOUT]->(p:Participant) | p.name] AS about,
               COLLECT { MATCH (s:Participant {space: $space, id: f.subject_key}) RETURN s.name } AS subject
        """,
        space=space,
    )
    attributes = q(
        """
        MATCH (p:Participant {space: $space})-[:HAS_ATTRIBUTE]->(a:Attribute)
        RETURN p.name AS holder, a.kind AS kind, a.text AS text, a.slot AS slot, a.current AS current,
               [(a)-[:DERIVED_FROM]->(m:Message) | substring(m.id, size($space) + 3)] AS sources,
               [(a)-[:SUPERSEDES]->(o:Attribute) | o.text] AS supersedes
        """,
        space=space,
    )
    addresses = q(
        """
        MATCH (m:Message {space: $space})-[r:ADDRESSES]->(p:Participant)
        RETURN substring(m.id, size($space) + 3) + ' -> ' + coalesce(p.name, '?') + ' / ' + r.source
               + ' ' + toString(r.confidence) AS e
        """,
        space=space,
    )
    people = q(
        "MATCH (p:Participant {space: $space}) RETURN p.name AS name, p.aliases AS aliases, "
        "[(p)-[:PARTICIPATED_IN]->(s:Session) | s.id] AS sessions",
        space=space,
    )

    return {
        "facts": canonical(facts),
        "attributes": canonical(attributes),
        "addresses": sorted(r["e"] for r in addresses),
        "people": canonical(people),
        "audit": audit_items(q, space),
    }


@pytest.mark.parametrize("write_chunk", [WRITE_CHUNK, 5], ids=["one-write", "writes-of-5"])
def test_bulk_chunks_store_the_memory_of_turns_written_one_by_one(
    services: Voxmem, two_spaces: tuple[str, str], write_chunk: int
) -> None:
    """Also with message writes of 5 turns (each prepared while the one before is written and
    derived; derivation chunks then end where a write chunk ends)."""
    bulk_space, single_space = two_spaces
    importer = BatchImporter(services.pipeline, write_chunk=write_chunk, derive_chunk=CHUNK)
    result = importer.run(bulk_space, turns("t"))
    assert (result.stored, result.derived, result.pending) == (len(HISTORY), len(HISTORY), [])
    for turn in turns("t"):
        services.pipeline.append_text(single_space, turn)
    bulk, single = memory(services, bulk_space), memory(services, single_space)
    assert bulk == single

    # not two equal empty graphs: the history's evolution is there
    checkout = sorted(
        (f["valid_from"], f["value"], f["current"]) for f in bulk["facts"] if f["slot"] == "checkout_time"
    )
    assert [(v, c) for _, v, c in checkout] == [("11 am", False), ("noon", False), ("2 pm", True)]
    noon = next(f for f in bulk["facts"] if f["slot"] == "checkout_time" and f["value"] == "noon")
    assert noon["sources"] == ["t3", "t7"]  # Ben's repeat in the next chunk supports it
    assert "t10 -> Tom / vocative 0.9" in bulk["addresses"]  # "Tommy," read with the new alias
    assert noon["supersedes"] == ["Maya's checkout is at 11 am."]
    rooms = [f for f in bulk["facts"] if f["slot"] == "room"]
    assert sorted((f["value"], f["current"], f["conflict"]) for f in rooms) == [
        ("412", False, False),
        ("415", False, False),
        ("420", True, False),
    ]
    settled = next(f for f in rooms if f["value"] == "420")
    assert len(settled["supersedes"]) == 2 and settled["sources"] == ["t6"]
    assert any(a["kind"] == "fact_conflict" for a in bulk["audit"])
    assert any("vocative" in e for e in bulk["addresses"])


def test_every_window_the_chunk_does_not_read_again_is_the_one_the_graph_holds(
    services: Voxmem, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunk reads its windows once and follows its own writes (vocatives added, changed
    people read again): at each turn, the window it uses equals the one read from the graph
    right then, with everything staged so far written."""
    memory = services.memory
    write_in, window_of = memory.writer.write_in, memory.window_of
    seen: dict[str, Any] = {}
    checked: list[str] = []
    differs: list[str] = []

    def spy_write_in(
        tx: Any, space_: str, window: Any, result: Any, vectors: Any, pending: Any = None
    ) -> Any:
        seen["tx"], seen["pending"] = tx, pending
        return write_in(tx, space_, window, result, vectors, pending)

    def checked_window_of(space_: str, context: Any) -> Any:
        window = window_of(space_, context)
        if "tx" in seen and not seen.get("inside"):  # not before the first write, not re-entered
            seen["inside"] = True
            try:
                memory.writer.flush(seen["tx"], space_, seen["pending"])
                message_id = context.turns[-1].id
                fresh = memory.window_in(seen["tx"], space_, message_id)
                checked.append(message_id) if fresh == window else differs.append(message_id)
            finally:
                seen["inside"] = False
        return window

    monkeypatch.setattr(memory.writer, "write_in", spy_write_in)
    monkeypatch.setattr(memory, "window_of", checked_window_of)
    result = BatchImporter(services.pipeline, derive_chunk=len(HISTORY)).run(space, turns("w"))
    assert (result.derived, result.pending, differs) == (len(HISTORY), [], [])
    assert len(checked) >= len(HISTORY) // 2


def test_reimporting_the_same_batch_changes_nothing(services: Voxmem, two_spaces: tuple[str, str]) -> None:
    space, _ = two_spaces
    importer = BatchImporter(services.pipeline, derive_chunk=CHUNK)
    importer.run(space, turns("t"))
    before = memory(services, space)
    again = importer.run(space, turns("t"))
    assert (again.stored, again.replayed, again.derived) == (0, len(HISTORY), 0)
    assert memory(services, space) == before


# People called (by name or by a kinship term) before they first speak. Per turn, the call finds
# nobody of that name (a placeholder, 'mention', is made; the vocative is a guess); a batch stores
# every turn of its write chunk before deriving any, so the caller's window used to show the later
# speaker already, and "everyone" took in people who had not spoken yet: before the window read the
# session's people as they were at the turn (memory_window) and a text speaker found as a
# placeholder took the client's name_source (participant_named), these failed on the household
# and on FriendsQA s03_e24_c14 (vocative 0.9 vs 0.6, a fact about another person), s04_e24_c18 and
# s01_e23_c01 (group edges to people not yet there) and s03_e24_c05 (name_source).
CALLED_FIRST: list[tuple[str, str, str]] = [
    ("kitchen", "Leo", "Dad, can we have pizza for dinner on Friday?"),
    ("kitchen", "Priya", "Leo, you had pizza last week."),
    ("kitchen", "Tom", "Sure, pizza on Friday is fine."),
    ("kitchen", "Priya", "Maya, are you coming to the match on Sunday?"),
    ("kitchen", "Leo", "Everyone, the match moved to Sunday morning."),
    ("kitchen", "Maya", "Yes, I'm coming. I love football."),
    ("kitchen", "Rosa", "I moved to Lisbon last year, Leo."),
]


def friendsqa_scene(title: str, n: int = 25) -> list[tuple[str, str, str]]:
    """A FriendsQA dev scene's first ``n`` utterances as text turns (speakers by first name)."""
    import json
    import os
    from pathlib import Path

    path = Path(os.environ.get("VOXMEM_DATA_DIR", "/work/shared/data")) / "friendsqa" / "friendsqa_dev.json"
    found = next(s for s in json.loads(path.read_text(encoding="utf-8"))["data"] if s["title"] == title)
    return [
        ("s1", u["speakers"][0].split()[0], u["utterance"])
        for u in found["paragraphs"][0]["utterances:"][:n]
        if u["speakers"]
    ]


@pytest.mark.parametrize(
    "history",
    ["household", "s03_e24_c14", "s04_e24_c18", "s01_e23_c01", "s03_e24_c05"],
)
def test_people_called_before_they_speak_get_the_same_memory_in_a_batch(
    services: Voxmem, two_spaces: tuple[str, str], history: str
) -> None:
    lines = CALLED_FIRST if history == "household" else friendsqa_scene(history)
    bulk_space, single_space = two_spaces
    BatchImporter(services.pipeline, derive_chunk=CHUNK).run(bulk_space, minute_turns(lines, T0, "t"))
    for turn in minute_turns(lines, T0, "t"):
        services.pipeline.append_text(single_space, turn)
    assert memory(services, bulk_space) == memory(services, single_space)
    sources = [
        services.db.query(
            "MATCH (p:Participant {space: $space}) "
            "RETURN p.name AS name, p.name_source AS source ORDER BY name",
            space=space,
        )
        for space in two_spaces
    ]
    assert sources[0] == sources[1]
    if history == "household":  # not two equal empty graphs
        assert "t3 -> Maya / vocative 0.6" in memory(services, bulk_space)["addresses"]
