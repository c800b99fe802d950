"""Batch import (POST /spaces/{space}/turns/batch, TurnPipeline.import_turns) on the real Neo4j.

The batch path must store what the per-turn path stores: the same messages, people and
memory (compared as a fingerprint against the same turns appended one by one), every turn
with its memory, idempotent by turn id on a retry (whole or overlapping), a refused batch
writes nothing, and the access rule sees imported turns like any others.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from voxmem.client import VoxmemClient
from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)

# (session, speaker, addressees, text): names, a vocative, facts, a correction of a slot, a
# mention of someone who never speaks, and a second session with a newcomer.
HISTORY: list[tuple[str, str, list[str], str]] = [
    ("dinner", "Maya", ["Tom"], "Dad, can we stop for pizza on the way home?"),
    ("dinner", "Tom", [], "Maya, we had pizza yesterday. How about sushi?"),
    ("dinner", "Maya", [], "Fine. By the way, my friend Lena moved to Porto last year."),
    ("dinner", "Priya", ["Tom"], "Tom, the plumber is coming on Thursday at ten."),
    ("dinner", "Tom", [], "I love hiking, so I will be out on Thursday morning."),
    ("dinner", "Priya", [], "My favourite food is sushi, by the way."),
    ("dinner", "Maya", ["Priya"], "Mom, I need new football boots before Saturday."),
    ("garden", "Dave", [], "The hedge needs cutting before the weekend."),
    ("garden", "Priya", ["Dave"], "Dave, I can lend you our trimmer."),
    ("garden", "Dave", [], "Thanks. I work as a nurse, so only Sunday works for me."),
]


def _turns(prefix: str = "h") -> list[dict[str, Any]]:
    return [
        {
            "session": session,
            "speaker": speaker,
            "addressees": to,
            "text": text,
            "ts": (T0 + timedelta(minutes=i)).isoformat(),
            "turn_id": f"{prefix}{i}",
        }
        for i, (session, speaker, to, text) in enumerate(HISTORY)
    ]


def _client(app_client: Any, headers: dict[str, str]) -> VoxmemClient:
    client = VoxmemClient(http=app_client)
    client.headers = headers
    return client


def fingerprint(services: Voxmem, space: str) -> dict[str, Any]:
    """What a space holds, independent of generated ids: messages (session, idx, text, speaker,
    addressees with source), NEXT chain, people, facts and attributes with their provenance."""
    q = services.db.query
    messages = q(
        "MATCH (m:Message {space: $space}) OPTIONAL MATCH (p:Participant)-[:SPEAKS]->(m) "
        "OPTIONAL MATCH (m)-[r:ADDRESSES]->(a:Participant) "
        "WITH m, p, collect(a.name + '/' + r.source) AS to "
        "RETURN m.session AS s, m.idx AS i, m.text AS text, p.name AS speaker, to, "
        "m.memory_pending AS pending, m.passage AS passage, size(m.embedding) AS dim "
        "ORDER BY s, i",
        space=space,
    )
    for m in messages:
        m["to"] = sorted(m["to"])
    chain = q(
        "MATCH (a:Message {space: $space})-[:NEXT]->(b) RETURN a.session + ':' + toString(a.idx) + '>' + "
        "toString(b.idx) AS e ORDER BY e",
        space=space,
    )
    people = q(
        "MATCH (p:Participant {space: $space}) OPTIONAL MATCH (p)-[:PARTICIPATED_IN]->(s:Session) "
        "WITH p, collect(s.id) AS sessions RETURN p.name AS name, p.key AS key, sessions ORDER BY key",
        space=space,
    )
    for p in people:
        p["sessions"] = sorted(p["sessions"])
    facts = q(
        "MATCH (f:Fact {space: $space})-[:DERIVED_FROM]->(m:Message) "
        "RETURN f.content AS content, f.slot AS slot, f.current AS current, "
        "collect(m.session + ':' + toString(m.idx)) AS src ORDER BY content, slot, current",
        space=space,
    )
    attributes = q(
        "MATCH (a:Attribute {space: $space})-[:DERIVED_FROM]->(m:Message) "
        "RETURN a.text AS text, a.kind AS kind, a.current AS current, "
        "collect(m.session + ':' + toString(m.idx)) AS src ORDER BY text, kind, current",
        space=space,
    )
    # one sentence can yield several attributes with the same text (e.g. background and
    # relationship): order ties and provenance lists fully, or the comparison depends on scan order
    for row in (*facts, *attributes):
        row["src"] = sorted(row["src"])
    sessions = q(
        "MATCH (s:Session {space: $space}) RETURN s.id AS id, s.n_messages AS n, toString(s.last_ts) AS last "
        "ORDER BY id",
        space=space,
    )
    return {
        "messages": messages,
        "chain": [r["e"] for r in chain],
        "people": people,
        "facts": facts,
        "attributes": attributes,
        "sessions": sessions,
    }


@pytest.fixture
def other_space(services: Voxmem) -> Iterator[str]:
    space_id = f"test-{uuid.uuid4().hex[:12]}"
    services.spaces.create(space_id, "participant")
    yield space_id
    services.spaces.delete(space_id)


def test_batch_stores_what_the_per_turn_path_stores(
    app_client: Any, space: str, space_headers: dict, other_space: str, services: Voxmem
) -> None:
    result = _client(app_client, space_headers).import_batch(space, _turns())
    assert (result.stored, result.replayed, result.derived, result.pending) == (
        len(HISTORY),
        0,
        len(HISTORY),
        [],
    )
    assert [t.status for t in result.turns] == ["stored"] * len(HISTORY)
    for t in _turns():
        services.pipeline.append_text(
            other_space,
            Turn(
                t["session"],
                t["speaker"],
                t["text"],
                t["addressees"],
                datetime.fromisoformat(t["ts"]),
                t["turn_id"],
            ),
        )
    batch, single = fingerprint(services, space), fingerprint(services, other_space)
    assert batch == single
    # and the content is what the history says (not two equal empty graphs)
    assert [m["speaker"] for m in batch["messages"] if m["s"] == "dinner"] == [
        sp for s, sp, _, _ in HISTORY if s == "dinner"
    ]
    assert all(m["pending"] is None and m["dim"] == 384 for m in batch["messages"])
    first = batch["messages"][0]
    assert first["to"] == ["Tom/given"] and first["passage"].startswith("Maya to Tom: ")
    assert "Maya/vocative" in batch["messages"][1]["to"]  # derived memory: a vocative edge
    assert batch["chain"] == [f"dinner:{i}>{i + 1}" for i in range(6)] + [
        f"garden:{i}>{i + 1}" for i in range(2)
    ]
    assert {"id": "dinner", "n": 7, "last": batch["sessions"][0]["last"]} == batch["sessions"][0]
    assert batch["facts"], "the offline extractor derived no fact from the history"
    assert {p["key"] for p in batch["people"]} >= {"maya", "tom", "priya", "dave"}


def test_retry_is_idempotent_and_overlap_appends_only_new_turns(
    app_client: Any, space: str, space_headers: dict, services: Voxmem
) -> None:
    client = _client(app_client, space_headers)
    turns = _turns()
    client.import_batch(space, turns[:7])
    before = fingerprint(services, space)
    again = client.import_batch(space, turns[:7])
    assert (again.stored, again.replayed, again.derived) == (0, 7, 0)
    assert [t.id for t in again.turns] == [f"{space}~t~h{i}" for i in range(7)]
    assert fingerprint(services, space) == before
    overlap = client.import_batch(space, turns[5:])
    assert (overlap.stored, overlap.replayed) == (len(HISTORY) - 7, 2)
    after = fingerprint(services, space)
    assert [(m["s"], m["i"]) for m in after["messages"]] == [("dinner", i) for i in range(7)] + [
        ("garden", i) for i in range(3)
    ]
    assert all(m["pending"] is None for m in after["messages"])


def test_a_turn_stored_without_memory_is_derived_by_the_retry(space: str, services: Voxmem) -> None:
    """An import that died after its message transaction left turns memory_pending: the retry
    stores nothing again and derives exactly those."""
    turns = [
        Turn(
            t["session"],
            t["speaker"],
            t["text"],
            t["addressees"],
            datetime.fromisoformat(t["ts"]),
            t["turn_id"],
        )
        for t in _turns()[:4]
    ]
    stored = services.messages.append_many(space, turns)  # the message step only
    assert all(t.stored and t.pending for t in stored)
    pending = services.db.query(
        "MATCH (m:Message {space: $space}) WHERE m.memory_pending RETURN count(m) AS n", space=space
    )
    assert pending[0]["n"] == 4
    result = services.pipeline.import_turns(space, turns)
    assert (result.stored, result.replayed, result.derived) == (0, 4, 4)
    print_ = fingerprint(services, space)
    assert all(m["pending"] is None for m in print_["messages"])
    assert "Maya/vocative" in print_["messages"][1]["to"]


@pytest.mark.parametrize(
    ("change", "status"),
    [
        (lambda ts: ts[3].pop("turn_id"), 422),  # every turn needs a turn id
        (lambda ts: ts[3].update(turn_id=ts[1]["turn_id"]), 422),  # a turn id twice
        (lambda ts: ts[3].update(text="   "), 422),  # empty after trimming
        (lambda ts: ts[3].update(text="x" * 20_001), 422),  # longer than max_text_chars
        (lambda ts: ts[3].update(session="bad session!"), 422),
        (lambda ts: ts[3].update(speaker=""), 422),
        (lambda ts: ts[3].update(addressees=["ok", "  "]), 422),  # a name empty after normalising
        (lambda ts: ts[3].update(extra="field"), 422),
        (lambda ts: ts.extend(dict(ts[0], turn_id=f"x{i}") for i in range(1001)), 422),  # too many
        (lambda ts: ts.clear(), 422),  # an empty batch
    ],
)
def test_a_bad_batch_is_a_4xx_and_writes_nothing(
    app_client: Any, space: str, space_headers: dict, services: Voxmem, change: Any, status: int
) -> None:
    turns = _turns()
    change(turns)
    r = app_client.post(f"/spaces/{space}/turns/batch", json={"turns": turns}, headers=space_headers)
    assert r.status_code == status, r.text
    assert "detail" in r.json() or "error" in r.json()
    n = services.db.query("MATCH (m:Message {space: $space}) RETURN count(m) AS n", space=space)[0]["n"]
    people = services.db.query("MATCH (p:Participant {space: $space}) RETURN count(p) AS n", space=space)[0][
        "n"
    ]
    assert (n, people) == (0, 0)


def test_a_batch_reusing_a_stored_turn_id_for_another_turn_is_409(
    app_client: Any, space: str, space_headers: dict, services: Voxmem
) -> None:
    """A replayed batch is idempotent; a batch that reuses a stored turn id for other words was
    answered 'replayed' and its new turn silently dropped. Now the whole batch is refused."""
    turns = _turns()[:3]
    r = app_client.post(f"/spaces/{space}/turns/batch", json={"turns": turns}, headers=space_headers)
    assert r.status_code == 200, r.text
    again = app_client.post(f"/spaces/{space}/turns/batch", json={"turns": turns}, headers=space_headers)
    assert again.status_code == 200 and again.json()["replayed"] == 3, again.text
    fresh = dict(turns[0], turn_id="fresh-1")
    changed = [fresh, dict(turns[1], text="Something else entirely.")]
    r = app_client.post(f"/spaces/{space}/turns/batch", json={"turns": changed}, headers=space_headers)
    assert r.status_code == 409 and turns[1]["turn_id"] in r.json()["detail"], r.text
    texts = services.db.query("MATCH (m:Message {space: $space}) RETURN m.text AS t", space=space)
    assert sorted(row["t"] for row in texts) == sorted(t["text"] for t in turns)  # nothing of it written


def test_unauthorised_import_is_refused(app_client: Any, space: str) -> None:
    r = app_client.post(f"/spaces/{space}/turns/batch", json={"turns": _turns()})
    assert r.status_code == 401


def test_imported_history_keeps_the_access_rule(
    app_client: Any, space: str, space_headers: dict, services: Voxmem
) -> None:
    """Participant policy: Dave spoke only in 'garden'; a mention elsewhere does not let him read
    'dinner'. Control: Priya, who spoke in both, reads both."""
    client = _client(app_client, space_headers)
    turns = _turns()
    turns.append(
        {
            "session": "dinner",
            "speaker": "Maya",
            "addressees": [],
            "text": "Our neighbour, Dave, must never hear about the surprise party.",
            "ts": (T0 + timedelta(minutes=30)).isoformat(),
            "turn_id": "secret",
        }
    )
    client.import_turns(space, turns, batch_size=4)

    def pid(key: str) -> str:
        rows = services.db.query(
            "MATCH (p:Participant {space: $space, key: $key}) RETURN p.id AS id", space=space, key=key
        )
        assert len(rows) == 1, rows
        return rows[0]["id"]

    def seen(asker: str, text: str) -> list[str]:
        out = client.retrieve(space, text, asker=asker, k=20, layers=["interaction"])
        return [e.get("text", "") for e in out["evidence"]]

    dave = seen(pid("dave"), "surprise party neighbour pizza plumber hedge trimmer")
    assert not any("surprise party" in t or "pizza" in t for t in dave)
    assert any("hedge" in t for t in dave)
    priya = seen(pid("priya"), "surprise party neighbour pizza plumber hedge trimmer")
    assert any("plumber" in t for t in priya) and any("trimmer" in t for t in priya)
