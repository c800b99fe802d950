"""Scoped retrieval filtered inside the indexes (issue 17, migration 0007), on the real Neo4j.

The message vector query searches inside the index with the space (open) or the asker's sessions
(participant, private) as the index filter; the full-text query requires the space and sessions
in Lucene. Filtering in the index is a shortcut: these tests check that it never returns a turn
outside the scope, that it does not starve a scope (as many turns as the scope holds, up to k,
from the index query alone, without the exact fallback) and that the 5.26 fallback is wired.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from voxmem.config import Settings
from voxmem.cypher import compose
from voxmem.graph_schema.migrate import available_migrations
from voxmem.ids import turn_message_id
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.tools import LEGACY_QUERIES, Filters, Retriever
from voxmem.stores.messages import Turn

QUESTIONS = ["garage door code", "pizza on Friday", "the plumber appointment", "peanuts allergy"]


@pytest.mark.integration
@pytest.mark.parametrize("policy", ["open", "participant", "private"])
def test_index_filtered_queries_stay_in_scope_and_fill_k(households, retrieval, services, policy) -> None:
    house = households[policy]
    vector = retrieval.tools["message_vector"]
    fulltext = retrieval.tools["message_fulltext"]
    no_filters: dict[str, Any] = {k: None for k in ("speaker", "addressee", "session", "ts_from", "ts_to")}
    for name in [None, *house.people]:
        asker = None if name is None else house.people[name]
        scope = resolve_scope(services.db, house.space, asker)
        visible = house.visible_messages(name)
        for text in QUESTIONS:
            params = {**scope.params(), **no_filters, "embedding": retrieval.embed(text)}
            rows = vector.run("retrieve_messages_vector", fetch=50, k=5, **params)
            ids = [r["id"] for r in rows]
            assert set(ids) <= visible, (policy, asker, text)
            # the index query alone fills k whenever the scope holds k turns (no exact fallback)
            assert len(ids) == min(5, len(visible)), (policy, asker, text, len(ids), len(visible))
            hits = fulltext.search(scope, text, Filters(), k=5)
            assert {h.id for h in hits} <= visible, (policy, asker, text)


def test_migration_drops_index_filters_for_neo4j_5() -> None:
    """Neo4j 5.26 has no vector index filter properties: the runner removes them (and CYPHER 25)."""
    migration = next(m for m in available_migrations() if m.name == "message_scope_filters")
    settings = Settings()
    modern = migration.statements(settings)
    legacy = migration.statements(settings, legacy=True)
    assert any("WITH [m.space, m.session]" in s and s.startswith("CYPHER 25") for s in modern)
    assert len(legacy) == len(modern)
    assert not any("WITH [" in s or "CYPHER 25" in s for s in legacy)
    assert any(s.startswith("CREATE VECTOR INDEX message_embedding") for s in legacy)


class _Server:
    """Records which query text runs; stands for a server whose Cypher version is given."""

    def __init__(self, cypher25: bool) -> None:
        self.cypher25 = cypher25
        self.ran: list[str] = []

    def query(self, text: str, **params: Any) -> list[dict[str, Any]]:
        self.ran.append(text)
        return []


def test_neo4j_5_runs_the_legacy_vector_query() -> None:
    from voxmem.cypher import query

    class Tool(Retriever):
        name, queries = "probe", ("retrieve_messages_vector",)

    for cypher25, expected in (
        (True, "retrieve_messages_vector"),
        (False, LEGACY_QUERIES["retrieve_messages_vector"]),
    ):
        server = _Server(cypher25)
        Tool(db=server).run("retrieve_messages_vector")  # type: ignore[arg-type]
        assert server.ran == [query(expected)]
    legacy = [
        ln for ln in query(LEGACY_QUERIES["retrieve_messages_vector"]).splitlines() if not ln.startswith("//")
    ]
    assert not any("SEARCH" in ln or "CYPHER 25" in ln for ln in legacy)


_LUCENE_FILTER = compose("@access.asker()\nRETURN @access.message_lucene_filter() AS lucene")
_EVERY_SESSION = compose("@access.asker()\nRETURN @access.asker_in_every_session() AS every")


def _addressed_elsewhere_rows(services: Any, scope: Any) -> int:
    """Rows the vector query's private branch expands from the asker along ADDRESSES (PROFILE):
    @access.message_search skips that branch when the asker took part in every session."""
    from voxmem.cypher import query

    params = {**scope.params(), "embedding": [0.05] * 384, "fetch": 10, "k": 5, "lean": False}
    params |= {key: None for key in ("speaker", "addressee", "session", "ts_from", "ts_to")}

    def work(tx: Any) -> Any:
        result = tx.run("PROFILE " + query("retrieve_messages_vector"), params)
        list(result)
        return result.consume().profile

    rows, stack = 0, [services.db.read(work)]
    while stack:
        op = stack.pop()
        stack += op.get("children", [])
        if op.get("operatorType", "").startswith("Expand") and "(asker)<-[:ADDRESSES]-(m)" in str(
            op.get("args")
        ):
            rows += op.get("rows", 0)
    return rows


@pytest.mark.integration
@pytest.mark.parametrize("policy", ["participant", "private"])
def test_no_session_clause_when_the_asker_took_part_in_every_session(services, retrieval, policy) -> None:
    """The Lucene session clause is left out only when the asker took part in every session of the
    space (it would filter nothing and is the costly part of the query); the scope still holds:
    under private, Maya (in both sessions) gets only her own turns and the turns addressed to her,
    and Omar (in one session) keeps the session clause and reads his session's turns and, under
    private, a turn addressed to him by inference in the other session; each message tool. The
    vector query's addressed-elsewhere branch expands nothing for Maya, who took part in every
    session (@access.asker_in_every_session; fails without the skip)."""
    name = f"test-lucene-sessions-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, policy)
    try:
        turns = [
            Turn(session="kitchen-mon", speaker="Maya", text="The plumber comes at nine.", turn_id="k0"),
            Turn(session="kitchen-mon", speaker="Tom", text="The plumber wants cash.", turn_id="k1"),
            Turn(
                session="kitchen-mon",
                speaker="Tom",
                text="Maya, the plumber is late.",
                turn_id="k2",
                addressees=["Maya"],
            ),
            Turn(session="car-tue", speaker="Maya", text="Call the plumber again.", turn_id="c0"),
            Turn(session="car-tue", speaker="Omar", text="The plumber never called back.", turn_id="c1"),
        ]
        for turn in turns:
            services.messages.append(name, turn)
        people = {
            r["key"]: r["id"]
            for r in services.db.query(
                "MATCH (p:Participant {space: $space}) RETURN p.key AS key, p.id AS id", space=name
            )
        }
        expected = {
            ("maya", "participant"): {"k0", "k1", "k2", "c0", "c1"},
            ("maya", "private"): {"k0", "k2", "c0"},
            ("omar", "participant"): {"c0", "c1"},
            ("omar", "private"): {"c1", "k1"},
        }
        # k1 addressed to Omar by inference, in a session he never joined (no PARTICIPATED_IN):
        # the private rule lets him read it, through the vector query's addressed-elsewhere branch
        # and the Lucene clause of such turns' sessions
        services.db.execute(
            "MATCH (m:Message {space: $space, id: $mid}), (p:Participant {space: $space, key: 'omar'}) "
            "MERGE (m)-[:ADDRESSES {source: 'inferred'}]->(p)",
            space=name,
            mid=turn_message_id(name, "k1"),
        )
        for key, clause in (("maya", False), ("omar", True)):
            scope = resolve_scope(services.db, name, people[key])
            lucene = services.db.query(_LUCENE_FILTER, **scope.params())[0]["lucene"]
            assert ("+session:" in lucene) is clause, (key, lucene)
            every = services.db.query(_EVERY_SESSION, **scope.params())[0]["every"]
            assert every is not clause, (key, every)
            for tool in ("message_fulltext", "message_sparse", "message_vector"):
                hits = retrieval.tools[tool].search(scope, "plumber", Filters(), k=10)
                got = {h.id.rsplit("~", 1)[-1] for h in hits}
                assert got == expected[(key, policy)], (tool, key, got)
            if policy == "private":  # the addressed-elsewhere branch reads nothing for Maya
                expanded = _addressed_elsewhere_rows(services, scope)
                assert (expanded == 0) is (key == "maya"), (key, expanded)
        # a second PARTICIPATED_IN edge to car-tue (two concurrent MERGEs can make one) gives Omar
        # as many session ids as the space has sessions, yet he missed kitchen-mon: the clause and
        # the addressed-elsewhere branch stay (fails with a count of sessions: k1 lost under private)
        services.db.execute(
            "MATCH (p:Participant {space: $space, key: 'omar'})-[:PARTICIPATED_IN]->(s:Session) "
            "CREATE (p)-[:PARTICIPATED_IN]->(s)",
            space=name,
        )
        scope = resolve_scope(services.db, name, people["omar"])
        assert services.db.query(_EVERY_SESSION, **scope.params())[0]["every"] is False
        for tool in ("message_fulltext", "message_sparse", "message_vector"):
            hits = retrieval.tools[tool].search(scope, "plumber", Filters(), k=10)
            assert {h.id.rsplit("~", 1)[-1] for h in hits} == expected[("omar", policy)], tool
    finally:
        services.spaces.delete(name)


class _Recorder:
    """A server that records each query's candidate count and returns k rows."""

    cypher25 = True

    def __init__(self) -> None:
        self.fetches: list[int] = []

    def query(self, text: str, **params: Any) -> list[dict[str, Any]]:
        self.fetches.append(params.get("fetch", -1))
        row = {"id": "m", "session": "s", "idx": 0, "text": "t", "score": 1.0}
        return [row] * params["k"]


@pytest.mark.parametrize(
    ("policy", "filters", "fetch"),
    [
        ("open", Filters(), 200),  # the space filter inside the index is the whole scope: 4 × k
        # the keys of the asker's sessions (space and session, migration 0011): the whole scope
        # (test_same_named_sessions_of_other_spaces_do_not_crowd_the_index)
        ("participant", Filters(), 200),
        ("private", Filters(), 500),  # the private rule drops candidates after the index
        ("open", Filters(speaker="Tom"), 500),  # so does a speaker filter
    ],
)
def test_vector_candidates_are_4k_only_when_the_index_filter_is_the_scope(policy, filters, fetch) -> None:
    from voxmem.retrieval.scope import AccessScope
    from voxmem.retrieval.tools import MessageVectorRetriever

    server = _Recorder()
    tool = MessageVectorRetriever(db=server, embed=lambda text: [0.1] * 4)  # type: ignore[arg-type]
    scope = AccessScope(space="s", access_policy=policy, asker=None if policy == "open" else "p_1")
    assert len(tool.search(scope, "plumber", filters, k=50)) == 50
    assert server.fetches == [fetch]


@pytest.mark.integration
def test_same_named_sessions_of_other_spaces_do_not_crowd_the_index(services, retrieval) -> None:
    """Session ids repeat across spaces (LoCoMo's `session_1` in every conversation). The vector
    index filters participant and private searches on the session's key, space and session
    together (migration 0011, @access.session_key), so another space's same-named session, whose
    turns outrank the scope's, never takes a candidate: a search for k candidates returns k turns,
    all of the scope. Before 0011 the filter was the bare session, these 30 turns filled all the
    candidates and none survived (fails with `m.session IN asker_sessions`); the tool still gets k
    turns, none of the other space."""
    from voxmem.retrieval.tools import MessageVectorRetriever

    mine, other = (f"test-samename-{tag}-{uuid.uuid4().hex[:8]}" for tag in ("mine", "other"))
    services.spaces.create(mine, "participant")
    services.spaces.create(other, "open")
    try:
        ours = [f"Maya mentions item number {i} of the shopping list." for i in range(6)]
        for i, text in enumerate(ours):
            services.messages.append(
                mine, Turn(session="session_1", speaker="Maya", text=text, turn_id=f"m{i}")
            )
        for i in range(30):
            text = f"The plumber fixed the kitchen sink leak, visit {i}."
            services.messages.append(
                other, Turn(session="session_1", speaker="Tom", text=text, turn_id=f"o{i}")
            )
        maya = services.db.query(
            "MATCH (p:Participant {space: $space, key: 'maya'}) RETURN p.id AS id", space=mine
        )[0]["id"]
        scope = resolve_scope(services.db, mine, maya)
        tool = MessageVectorRetriever(services.db, retrieval.embed, fetch=1)
        text = "plumber fixed the kitchen sink leak"
        assert tool._filtered_in_index(scope, Filters())
        params = {**scope.params(), "embedding": retrieval.embed(text), "k": 5}
        params |= {key: None for key in ("speaker", "addressee", "session", "ts_from", "ts_to")}
        mine_ids = {turn_message_id(mine, f"m{i}") for i in range(6)}
        for policy in ("participant", "private"):
            first = tool.run("retrieve_messages_vector", fetch=5, **{**params, "access_policy": policy})
            assert len(first) == 5 and {r["id"] for r in first} < mine_ids, policy
        hits = tool.search(scope, text, Filters(), k=5)
        assert {h.id for h in hits} < {turn_message_id(mine, f"m{i}") for i in range(6)}
        assert len(hits) == 5
    finally:
        services.spaces.delete(mine)
        services.spaces.delete(other)


# 7 of 500 survive: the retry asks for 500 x ceil(2 x 50 / 7) = 7,500; a query reporting 500 Lucene
# hits there read them all, one without the count goes on to the widest, 20 x 500
@pytest.mark.parametrize(
    ("candidates", "fetches"), [(7, [500]), (500, [500, 7_500]), (None, [500, 7_500, 10_000])]
)
def test_fulltext_retries_only_when_lucene_filled_the_fetch(candidates, fetches) -> None:
    """The BM25 query reports how many hits Lucene returned; fewer than $fetch means every match
    inside the index filter was read, and a wider search would return the same rows (fails if the
    tool retries whenever fewer than k rows survive). A query without the count retries up to the
    widest fetch."""
    from voxmem.retrieval.scope import AccessScope
    from voxmem.retrieval.tools import MessageFulltextRetriever

    class Few(_Recorder):
        def query(self, text: str, **params: Any) -> list[dict[str, Any]]:
            rows = super().query(text, **params)[:7]
            return [row if candidates is None else {**row, "candidates": candidates} for row in rows]

    server = Few()
    tool = MessageFulltextRetriever(db=server)  # type: ignore[arg-type]
    scope = AccessScope(space="s", access_policy="participant", asker="p_1")
    assert len(tool.search(scope, "plumber", Filters(), k=50)) == 7
    assert server.fetches == fetches


class _Lucene(_Recorder):
    """A full-text query over 20,000 hits ranked by score, of which the scope keeps every 13th
    (about the private scope's share of a space): returns the top k kept among the first $fetch,
    with Lucene's hit count, as retrieve_messages_fulltext does."""

    def query(self, text: str, **params: Any) -> list[dict[str, Any]]:
        self.fetches.append(params["fetch"])
        kept = [i for i in range(min(params["fetch"], 20_000)) if i % 13 == 0][: params["k"]]
        row = {"session": "s", "idx": 0, "text": "t", "candidates": min(params["fetch"], 20_000)}
        return [{**row, "id": f"m{i}", "score": 1.0 - i / 20_000} for i in kept]


def test_fulltext_widens_by_the_survival_rate_to_the_same_rows() -> None:
    """39 of 500 hits survive the scope for k = 50: the retry asks for what that rate needs twice
    over (1,500), not 20 x 500, and gets the same 50 rows the widest search gets (fails with the
    straight 20 x widening: fetches [500, 10000])."""
    from voxmem.retrieval.scope import AccessScope
    from voxmem.retrieval.tools import MessageFulltextRetriever

    scope = AccessScope(space="s", access_policy="private", asker="p_1")
    server = _Lucene()
    hits = MessageFulltextRetriever(db=server).search(scope, "plumber", Filters(), k=50)  # type: ignore[arg-type]
    assert server.fetches == [500, 1_500]
    widest = server.query("", fetch=10_000, k=50)
    assert [h.id for h in hits] == [r["id"] for r in widest] and len(hits) == 50


@pytest.mark.integration
def test_fulltext_reports_its_lucene_hits(households, retrieval, services) -> None:
    """`candidates` is the number of Lucene hits before the rule: the private rule drops some of
    the session-filtered hits, and every surviving row carries the same count, at least the rows."""
    house = households["private"]
    tool = retrieval.tools["message_fulltext"]
    for name, asker in house.people.items():
        scope = resolve_scope(services.db, house.space, asker)
        params = {**scope.params(), "lucene": "plumber OR garage OR pizza OR peanuts", "k": 50}
        params |= {"query_text": "plumber garage pizza peanuts", "exhaustive": 0}  # Lucene's $fetch
        params |= {"seek_sessions": tool.seek_sessions}
        params |= {key: None for key in ("speaker", "addressee", "session", "ts_from", "ts_to")}
        rows = tool.run("retrieve_messages_fulltext", fetch=500, **params)
        assert len({r["candidates"] for r in rows}) <= 1, name
        assert all(len(rows) <= r["candidates"] < 500 for r in rows), name


def test_other_spaces_facts_and_attributes_do_not_take_the_fetch_limit(services, retrieval) -> None:
    """The fact and attribute full-text indexes were shared by every space, and the fetch limit
    was taken before the space filter: another space's thirty short "plumber" facts outranked the
    space's one long fact and filled every candidate, so a search with fetch 5 found nothing
    (fails on fact_content / attribute_text). Since 0014 the space is required inside Lucene."""
    mine, other = (f"test-ftcrowd-{tag}-{uuid.uuid4().hex[:8]}" for tag in ("mine", "other"))
    create = (
        "UNWIND $rows AS row "
        "CREATE (:Fact {space: $space, id: row.id, content: row.text, current: true}) "
        "CREATE (:Attribute {space: $space, id: row.id + '-a', text: row.text, kind: 'background', "
        "current: true})"
    )
    services.spaces.create(mine, "open")
    services.spaces.create(other, "open")
    try:
        long = "The plumber said on Tuesday that the old copper pipes under the sink should be replaced soon."
        services.db.execute(create, space=mine, rows=[{"id": f"{mine}-f", "text": long}])
        crowd = [{"id": f"{other}-f{i}", "text": "Plumber booked."} for i in range(30)]
        services.db.execute(create, space=other, rows=crowd)
        scope = resolve_scope(services.db, mine, None)
        params = {**scope.params(), "lucene": "plumber", "fetch": 5, "k": 5, "current_only": True}
        params |= {key: None for key in ("speaker", "addressee", "about", "session", "ts_from", "ts_to")}
        from voxmem.cypher import query

        for name, expected in (
            ("retrieve_facts_fulltext", f"{mine}-f"),
            ("retrieve_timeline", f"{mine}-f"),
            ("retrieve_attributes_fulltext", f"{mine}-f-a"),
        ):
            rows = services.db.query(query(name), **params, participant=None, kind=None)
            assert [r["id"] for r in rows] == [expected], name
    finally:
        services.spaces.delete(mine)
        services.spaces.delete(other)
