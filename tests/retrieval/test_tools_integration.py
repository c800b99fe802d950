"""Each retrieval tool against the real Neo4j: right evidence, right filters, right graph edges."""

from __future__ import annotations

import pytest

from voxmem.retrieval.fusion import FUSION_DEPTH
from voxmem.retrieval.scope import AccessScope, resolve_scope
from voxmem.retrieval.tools import LAYERS, Filters, layers_present, search_tools

pytestmark = pytest.mark.integration


def _ids(hits):
    return [h.id for h in hits]


def test_open_space_vector_and_fulltext_find_the_turn(households, retrieval, services):
    house = households["open"]
    scope = resolve_scope(services.db, house.space, None)
    vec = retrieval.tools["message_vector"].search(scope, "garage door code", k=3)
    ft = retrieval.tools["message_fulltext"].search(scope, "garage door code", k=3)
    assert vec[0].id == house.mid("kitchen-1")
    assert ft[0].id == house.mid("kitchen-1")
    hit = vec[0].sources[0]
    assert hit.speaker["name"] == "Tom" and [a["name"] for a in hit.addressees] == ["Ana"]
    assert hit.session == "kitchen" and hit.ts.startswith("2026-11-02")


def test_speaker_addressee_session_and_time_filters(households, retrieval, services):
    house = households["open"]
    scope = resolve_scope(services.db, house.space, None)
    tool = retrieval.tools["message_vector"]
    by_lena = tool.search(scope, "peanuts", Filters(speaker="Lena"), k=5)
    assert by_lena and all(h.sources[0].speaker["name"] == "Lena" for h in by_lena)
    to_ana = tool.search(scope, "anything", Filters(addressee=house.people["Ana"]), k=5)
    assert {h.id for h in to_ana} == {house.mid("kitchen-1"), house.mid("hall-2")}
    in_hall = tool.search(scope, "appointment", Filters(session="hall"), k=5)
    assert {h.sources[0].session for h in in_hall} == {"hall"}
    early = tool.search(scope, "pizza", Filters(ts_to="2026-11-02T18:01:30+00:00"), k=5)
    assert {h.id for h in early} == {house.mid("car-1"), house.mid("car-2")}


def test_fact_tools_current_only_and_timeline(households, retrieval, services):
    house = households["open"]
    scope = resolve_scope(services.db, house.space, None)
    current = retrieval.tools["fact_vector"].search(scope, "checkout time", Filters(current_only=True), k=3)
    assert house.facts["ana_checkout"] in _ids(current)
    assert house.facts["ana_checkout_old"] not in _ids(current)
    timeline = retrieval.tools["timeline"].search(scope, "checkout time", k=5)
    order = [h.id for h in timeline if h.meta.get("slot") == "checkout_time"]
    assert order == [house.facts["ana_checkout_old"], house.facts["ana_checkout"]]
    old = next(h for h in timeline if h.id == house.facts["ana_checkout_old"])
    assert old.meta["current"] is False and old.meta["valid_to"] is not None
    assert old.meta["superseded_by"] == [house.facts["ana_checkout"]]
    fulltext = retrieval.tools["fact_fulltext"].search(scope, "garage code", Filters(speaker="Tom"), k=3)
    assert _ids(fulltext)[0] == house.facts["garage_code"]
    assert fulltext[0].sources[0].id == house.mid("kitchen-1")


def test_graph_tools_who_said_addressees_said_to_context(households, retrieval, services):
    house = households["open"]
    scope = resolve_scope(services.db, house.space, None)
    who = retrieval.tools["who_said"].search(scope, "finish your homework", k=3)
    assert who[0].sources[0].speaker["name"] == "Tom"
    to = retrieval.tools["addressees"].search(scope, house.mid("car-3"))
    assert [a["name"] for a in to[0].sources[0].addressees] == ["Tom"]
    said = retrieval.tools["said_to"].search(scope, "", Filters(speaker="Tom", addressee="Maya"), k=5)
    assert _ids(said) == [house.mid("car-2")]
    context = retrieval.tools["context"].search(scope, house.mid("car-2"), k=10)
    assert [h.sources[0].idx for h in context] == [0, 1, 2, 3]


def test_profile_and_attribute_tools(households, retrieval, services):
    house = households["open"]
    scope = resolve_scope(services.db, house.space, None)
    profile = retrieval.profile(scope, "Lena")
    assert profile["participant"]["name"] == "Lena"
    assert [a["text"] for a in profile["attributes"]] == ["allergic to peanuts"]
    assert profile["attributes"][0]["sources"][0]["id"] == house.mid("car-3")
    attrs = retrieval.tools["attribute_vector"].search(scope, "food allergy", k=2)
    assert attrs[0].id == house.attributes["lena_allergy"]


def test_private_scope_narrows_each_tool(households, retrieval, services):
    house = households["private"]
    maya = resolve_scope(services.db, house.space, house.people["Maya"])
    seen = house.visible_messages("Maya")
    hits = retrieval.tools["message_vector"].search(maya, "garage door code", k=10)
    assert hits and {h.id for h in hits} <= seen
    assert house.mid("kitchen-1") not in {h.id for h in hits}
    assert retrieval.tools["fact_fulltext"].search(maya, "garage code", k=5) == []
    assert retrieval.tools["addressees"].search(maya, house.mid("kitchen-1")) == []
    context = retrieval.tools["context"].search(maya, house.mid("car-2"), k=10)
    assert {h.id for h in context} == {house.mid("car-1"), house.mid("car-2")}


def test_rows_and_neighbours_of_several_turns_in_one_query_stay_in_scope(households, retrieval, services):
    """The fused round's rows and neighbour step (ContextRetriever.turns): one query for all
    turns, one position each side of the anchors only, same session only, every turn (the ids
    asked for too) checked against the scope."""
    house = households["private"]
    anchors = [house.mid("car-2"), house.mid("car-3"), house.mid("kitchen-1"), house.mid("hall-1")]
    ids = [*anchors, house.mid("hall-2")]
    opened = AccessScope(house.space, "open")
    rows, around = retrieval.tools["context"].turns(opened, ids, anchors, window=1)
    assert sorted(rows) == sorted(ids) and all(rows[i].id == i for i in ids)
    assert {k: sorted(e.id for e in v) for k, v in around.items()} == {
        house.mid("car-2"): sorted([house.mid("car-1"), house.mid("car-3")]),
        house.mid("car-3"): sorted([house.mid("car-2"), house.mid("car-4")]),
        house.mid("kitchen-1"): [house.mid("kitchen-2")],  # first of its session
        house.mid("hall-1"): [house.mid("hall-2")],  # never the kitchen's last turn
    }  # hall-2 is no anchor: its own row, not its neighbours
    maya = resolve_scope(services.db, house.space, house.people["Maya"])
    seen = house.visible_messages("Maya")
    rows, around = retrieval.tools["context"].turns(maya, ids, anchors, window=1)
    assert set(rows) == set(ids) & seen and house.mid("kitchen-1") not in rows
    assert {e.id for v in around.values() for e in v} <= seen
    assert [e.id for e in around[house.mid("car-2")]] == [house.mid("car-1")]
    assert around[house.mid("kitchen-1")] == []


@pytest.mark.integration
@pytest.mark.parametrize("policy", ["open", "participant", "private"])
def test_concurrent_round_equals_the_sequential_round(households, retrieval, services, policy) -> None:
    """/retrieve runs its tools on the service's pool, asking which layers hold anything beside
    the message tools (docs/retrieval.md "Latency, fourth pass"); its answer must be exactly the
    round run one step after another: the present layers, each search tool in order, then fusion.
    Fails if a present layer's tool is dropped, an absent layer's tool is run, or the rankings
    reach fusion in another order (RRF ties and each turn's tool list follow that order)."""
    house = households[policy]
    for name in [None, *house.people]:
        scope = resolve_scope(services.db, house.space, None if name is None else house.people[name])
        for text, layers in (
            ("garage door code", None),
            ("Lena peanuts allergy", ["fact", "interaction"]),
            ("checkout time", ["profile"]),
        ):
            wanted = layers or list(LAYERS)
            present = layers_present(services.db, house.space)
            rankings = [
                retrieval.tools[t.name].search(scope, text, Filters(), k=FUSION_DEPTH)
                for layer in wanted
                if layer in present
                for t in search_tools([layer])
            ]
            sequential = retrieval.fuse_round(scope, rankings, None, k=10)
            assert retrieval.search(scope, text, layers, None, k=10) == sequential, (policy, name, text)


@pytest.mark.parametrize("policy", ["open", "private"])
def test_agent_asks_layers_beside_the_participants_same_result(households, retrieval, services, policy):
    """The agent asks which layers hold anything on its pool, beside the participant list; with
    and without a pool (layers then asked in line) the rounds, skips and evidence are the same."""
    from voxmem.retrieval.agent import POLICIES

    house = households[policy]
    pooled = retrieval.agent()
    inline = retrieval.agent()
    inline.executor = None
    for name in [None, *house.people]:
        scope = resolve_scope(services.db, house.space, None if name is None else house.people[name])
        for question in ("What is the garage door code?", "When is Lena's dentist appointment?"):
            a = pooled.run(question, scope, POLICIES["heuristic"]())
            b = inline.run(question, scope, POLICIES["heuristic"]())
            assert [e.id for e in a.evidence] == [e.id for e in b.evidence], (policy, name, question)
            assert [(r.actions, r.skipped) for r in a.trace] == [(r.actions, r.skipped) for r in b.trace]


@pytest.mark.parametrize("policy", ["open", "private"])
def test_every_tool_a_time_filter_may_reach_honours_it_inside_the_scope(
    households, retrieval, services, policy
):
    """The learned policy puts the window of a date the question names on every tool that
    searches by a query (learned.FILTERS "time"): each must keep only turns said in the window
    (facts and attributes valid in it) and still nothing outside the asker's scope."""
    from datetime import datetime, timedelta

    from voxmem.retrieval import learned as L

    from .household import T0

    house = households[policy]
    asker = "Maya" if policy == "private" else None
    scope = resolve_scope(services.db, house.space, house.people[asker] if asker else None)
    seen = house.visible_messages(asker)
    items = house.visible_facts(asker) | house.visible_attributes(asker)
    space = L.ActionSpace(L.tool_specs())
    timed = [t.name for t in space.tools if space.time_filtered(t)]
    assert {"message_vector", "message_sparse", "fact_fulltext", "timeline", "attribute_fulltext"} <= set(
        timed
    )
    early = Filters(
        ts_from=(T0 - timedelta(days=30)).isoformat(), ts_to=(T0 + timedelta(seconds=90)).isoformat()
    )
    before = Filters(ts_from="1990-01-01T00:00:00+00:00", ts_to="1990-12-31T00:00:00+00:00")
    # attributes carry validity as the memory writer sets it (valid_from = the source turn's ts)
    services.db.execute(
        "MATCH (at:Attribute {space: $space}) SET at.valid_from = datetime($t0)",
        space=house.space,
        t0=T0.isoformat(),
    )
    try:
        for name in timed:
            tool = retrieval.tools[name]
            for text in ("pizza peanuts garage code checkout", "allergic to peanuts"):
                everything = tool.search(scope, text, Filters(), k=20)
                windowed = tool.search(scope, text, early, k=20)
                assert tool.search(scope, text, before, k=20) == [], name
                assert {h.id for h in windowed} <= {h.id for h in everything}, name
                for hit in windowed:
                    if hit.layer == "interaction":
                        said = datetime.fromisoformat(hit.sources[0].ts)
                        assert hit.id in seen and said <= T0 + timedelta(seconds=90), (name, hit.id)
                    else:
                        assert hit.id in items, (name, hit.id)
            if tool.layer == "interaction":  # car-2, said a minute after T0, seen by Maya too
                assert house.mid("car-2") in {h.id for h in tool.search(scope, "homework", early, k=20)}, name
    finally:
        services.db.execute("MATCH (at:Attribute {space: $space}) REMOVE at.valid_from", space=house.space)
