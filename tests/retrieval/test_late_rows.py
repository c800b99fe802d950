"""Late materialisation in the fused round (/retrieve, docs/retrieval.md "Latency, eleventh pass"):
the message channels return lean rows (ids, positions, scores), fusion picks the winners, and
one scoped query reads the final turns' rows with the top turns' neighbours. The rows returned
must be exactly the round's before the change, and no turn outside the asker's scope may leave a
channel query or the materialising query."""

from __future__ import annotations

from typing import Any

import pytest

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.retrieval.fusion import (
    FUSION_DEPTH,
    NEXT_ADDITIVE,
    NEXT_FACTOR,
    NEXT_TOP,
    expand_neighbours,
    fuse,
)
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.tools import LAYERS, Filters, Hit, LeanEvidence, layers_present, search_tools

pytestmark = pytest.mark.integration

CHANNELS = {
    query(name): name
    for name in (
        "retrieve_messages_vector",
        "retrieve_messages_vector_exact",
        "retrieve_messages_fulltext",
        "retrieve_messages_sparse_head",
        "retrieve_messages_sparse",
    )
}
TEXTS = ("garage door code", "Lena peanuts allergy", "who is driving to the dentist", "checkout time")


def _full_round(
    retrieval: Any, services: Any, scope: Any, text: str, layers: list[str] | None, filters: Filters | None
) -> list[dict]:
    """The round as it ran before late materialisation: every tool's full rows, RRF, the
    neighbours of the top NEXT_TOP from the context query (not for a filtered search), the top 10
    as they are."""
    present = layers_present(services.db, scope.space)
    rankings = [
        retrieval.tools[t.name].search(scope, text, filters, k=FUSION_DEPTH)
        for layer in layers or list(LAYERS)
        if layer in present
        for t in search_tools([layer])
    ]
    fused = fuse(rankings, k=retrieval.settings.fusion_rrf_k)
    if filters is not None:
        return [e.as_dict() for e in fused[:10]]
    anchors = [e.id for e in fused[:NEXT_TOP]]
    around = retrieval.tools["context"].turns(scope, anchors, anchors, window=1)[1]
    fused = expand_neighbours(fused, around, NEXT_FACTOR, NEXT_ADDITIVE)
    return [e.as_dict() for e in fused[:10]]


@pytest.mark.parametrize("policy", ["open", "participant", "private"])
def test_lean_channels_then_one_scoped_read_give_the_full_rounds_rows(
    households, retrieval, services, policy, monkeypatch
) -> None:
    """For every asker of each scope, unfiltered (all layers, messages only) and filtered by session:
    the channel queries ship no text, speaker or addressees and only turns the asker may read; one
    context query follows them; the answer equals the full-row round's, row for row (texts,
    speakers, addressees with or without confidence, tools, support).
    Fails with full channel rows (text shipped) or with any row that differs."""
    house = households[policy]
    calls: list[tuple[str, list[dict[str, Any]]]] = []
    real = Database.query

    def spy(self: Database, cypher: str, **params: Any) -> list[dict[str, Any]]:
        rows = real(self, cypher, **params)
        calls.append(
            (CHANNELS.get(cypher, "context" if cypher == query("retrieve_context") else "other"), rows)
        )
        return rows

    compared = 0
    for name in [None, *house.people]:
        asker = None if name is None else house.people[name]
        scope = resolve_scope(services.db, house.space, asker)
        seen = house.visible_messages(name)
        for text in TEXTS:
            for layers, filters in ((None, None), (["interaction"], None), (None, Filters(session="car"))):
                expected = _full_round(retrieval, services, scope, text, layers, filters)
                calls.clear()
                monkeypatch.setattr(Database, "query", spy)
                got = retrieval.search(scope, text, layers, filters, k=10)
                monkeypatch.setattr(Database, "query", real)
                assert got == expected, (policy, name, text, layers, filters)
                channel_rows = [row for kind, rows in calls if kind in CHANNELS.values() for row in rows]
                assert all(row["text"] is None and row["speaker"] is None for row in channel_rows)
                assert {row["id"] for row in channel_rows} <= seen
                contexts = [kind for kind, _ in calls].count("context")
                assert contexts == (1 if got else 0) if filters is None else contexts <= 1
                assert {row["id"] for row in got} <= seen
                compared += bool(got)
    assert compared >= 8  # the scopes' askers found something to compare


def test_a_turn_the_scope_refuses_at_materialisation_is_never_returned(households, retrieval, services):
    """The materialising query checks the access rule again: a lean hit for a turn the asker cannot
    read (as if a channel had leaked it) is dropped, with no row and no neighbours, while the
    visible turns of the same rankings keep theirs. Fails if fuse_round returned lean turns unread
    or read them without the rule."""
    house = households["private"]
    maya = resolve_scope(services.db, house.space, house.people["Maya"])
    hidden = house.mid("kitchen-1")
    assert hidden not in house.visible_messages("Maya")
    rankings = [
        retrieval.tools[n].ranking(maya, "garage door code", None, k=FUSION_DEPTH)
        for n in ("message_vector",)
    ]
    row = services.db.query(
        "MATCH (m:Message {space: $space, id: $id}) RETURN m.id AS id, m.session AS session, m.idx AS idx",
        space=house.space,
        id=hidden,
    )[0]
    leaked = Hit("interaction", "message_vector", hidden, "", 9.0, [LeanEvidence.from_lean_row(row)])
    got = retrieval.fuse_round(maya, [[leaked, *rankings[0]], *rankings], None, k=10)
    ids = [r["id"] for r in got]
    assert hidden not in ids and house.mid("kitchen-2") not in ids
    assert got and set(ids) <= house.visible_messages("Maya")
    assert all(r["text"] and r["speaker"] for r in got)
