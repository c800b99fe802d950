"""BM25 scores from the asker's scope alone (migration 0013; docs/retrieval.md "BM25 from the asker's
scope").

Why: the BM25 tool ranked turns with Lucene's score, whose statistics (document frequency, document
count, average length) are those of the whole full-text index, every space in the database. A
tenant's scores and ranks moved whenever another tenant ingested (the same turn scored 6.330, 7.638
and 7.512 for one query), and the scores the API returns carried other tenants' word frequencies.
The tool now scores its Lucene candidates with the scope's own statistics, counted at ingest.

Here: another space's turns, and (participant scope) a session the asker never joined, leave a
space's scores and order unchanged; the scores are BM25 as written out by hand; a re-sent turn
counts once; the counters always equal a recount of the stored turns, also after a person's
deletion; and migration 0013's backfill counts a turn as ingest does.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from voxmem.core import Voxmem
from voxmem.cypher import query
from voxmem.graph_schema.migrate import available_migrations, run_statements
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.stores.messages import AudioMessage, MessageStore, Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
MINE = [
    ("s1", "Maya", "The plumber fixed the kitchen sink on Tuesday."),
    ("s1", "Leo", "Did the plumber charge a lot for the sink?"),
    ("s1", "Maya", "Not much. The garden hose leaks too."),
    ("s1", "Leo", "Call the plumber about the hose then, plumber Joe is cheap."),
]
QUERY = "plumber sink hose"
TERMS = "MATCH (m:Message {space: $space}) RETURN m.id AS id, m.bm25_terms AS t, m.bm25_tf AS tf ORDER BY id"


def _space(services: Voxmem, policy: str, prefix: str) -> str:
    space = f"test-bm25-{prefix}-{uuid.uuid4().hex[:8]}"
    services.spaces.create(space, policy)
    return space


def _say(services: Voxmem, space: str, turns: list[tuple[str, str, str]], start: int = 0) -> list[str]:
    ids = []
    for i, (session, speaker, text) in enumerate(turns):
        view = services.messages.append(
            space,
            Turn(session=session, speaker=speaker, text=text, ts=T0 + timedelta(minutes=start + i)),
        )
        services.messages.memory_done(space, view["id"])
        ids.append(view["id"])
    return ids


def _ranking(retrieval: RetrievalService, services: Voxmem, space: str, asker: str | None = None):
    scope = resolve_scope(services.db, space, asker)
    hits = retrieval.tools["message_fulltext"].search(scope, QUERY, k=10)
    return [(h.id, h.score) for h in hits]


def _person(services: Voxmem, space: str, key: str) -> str:
    return services.db.query(
        "MATCH (p:Participant {space: $space, key: $key}) RETURN p.id AS id", space=space, key=key
    )[0]["id"]


def bm25_idf(docs: int, df: int) -> float:
    """BM25's inverse document frequency of a word held by ``df`` of ``docs`` messages, as Lucene's
    BM25Similarity and retrieve_messages_fulltext compute it: ln(1 + (docs - df + 0.5) / (df + 0.5))."""
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def bm25_score(
    tf: dict[str, int], length: int, idf: dict[str, float], avgdl: float, k1: float = 1.2, b: float = 0.75
) -> float:
    """BM25 of one message (its term counts ``tf`` and ``length`` in tokens) for query words with
    ``idf``, the formula cypher/keyword/scored.cypher computes: the reference the test checks the
    product's scores against."""
    norm = k1 * (1 - b + b * length / avgdl)
    return sum(w * tf[t] / (tf[t] + norm) for t, w in idf.items() if tf.get(t))


@pytest.fixture()
def spaces(services: Voxmem) -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for space in made:
        services.spaces.delete(space)


def test_another_space_s_turns_leave_a_space_s_bm25_unchanged(
    services: Voxmem, retrieval: RetrievalService, spaces: list[str]
) -> None:
    """Before migration 0013 the scores moved (Lucene's df and document count are index-wide)."""
    mine = _space(services, "open", "mine")
    other = _space(services, "open", "other")
    spaces += [mine, other]
    _say(services, mine, MINE)
    before = _ranking(retrieval, services, mine)
    assert len(before) == 4 and before[0][1] > 0
    # another tenant talks a lot about plumbers and hoses, in long and short turns
    _say(services, other, [("o1", "Ann", "plumber " * (i % 3 + 1) + "hose garden") for i in range(30)])
    _say(services, other, [("o2", "Bob", f"Nothing about that here, turn {i}.") for i in range(30)], 40)
    assert _ranking(retrieval, services, mine) == before  # same ids, same order, same scores


def test_a_session_the_asker_never_joined_leaves_their_bm25_unchanged(
    services: Voxmem, retrieval: RetrievalService, spaces: list[str]
) -> None:
    """Participant scope: Maya reads session s1 only; Ann and Bob's session s2, of the same space,
    talks of plumbers. Her statistics are those of her sessions, so her scores do not move."""
    space = _space(services, "participant", "scope")
    spaces.append(space)
    _say(services, space, MINE)
    maya = _person(services, space, "maya")
    before = _ranking(retrieval, services, space, maya)
    assert len(before) == 4
    _say(services, space, [("s2", "Ann", "plumber " * (i % 3 + 1) + "hose") for i in range(20)], 10)
    _say(services, space, [("s2", "Bob", f"Something else entirely, {i}.") for i in range(20)], 40)
    assert _ranking(retrieval, services, space, maya) == before
    ann = _person(services, space, "ann")  # s2's own asker: its turns now count for her
    assert _ranking(retrieval, services, space, ann) != before


def test_scores_are_bm25_of_the_space_as_written_by_hand(
    services: Voxmem, retrieval: RetrievalService, spaces: list[str]
) -> None:
    """Three turns, lengths 2, 3 and 4 tokens (avgdl 3); query "apple cherry".
    apple: df 2 of 3, idf ln(1 + 1.5/2.5); cherry: df 2, the same idf.
    BM25 term part tf / (tf + 1.2 * (0.25 + 0.75 * len / 3))."""
    space = _space(services, "open", "hand")
    spaces.append(space)
    ids = _say(
        services,
        space,
        [
            ("s1", "Maya", "Apple banana."),
            ("s1", "Leo", "apple, APPLE cherry!"),
            ("s1", "Maya", "banana cherry date fig"),
        ],
    )
    idf = math.log(1 + 1.5 / 2.5)
    expected = {
        ids[0]: idf * 1 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3)),
        ids[1]: idf * 2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 3)) + idf * 1 / (1 + 1.2 * (0.25 + 0.75 * 3 / 3)),
        ids[2]: idf * 1 / (1 + 1.2 * (0.25 + 0.75 * 4 / 3)),
    }
    scope = resolve_scope(services.db, space, None)
    hits = retrieval.tools["message_fulltext"].search(scope, "apple cherry", k=10)
    assert [h.id for h in hits] == [ids[1], ids[0], ids[2]]
    for h in hits:
        assert h.score == pytest.approx(expected[h.id], rel=1e-9)
    # the Python statement of the formula agrees
    assert bm25_idf(3, 2) == pytest.approx(idf)
    assert bm25_score({"apple": 2, "cherry": 1}, 3, {"apple": idf, "cherry": idf}, 3.0) == pytest.approx(
        expected[ids[1]]
    )
    stored = services.db.query(
        "MATCH (m:Message {space: $space, id: $id}) "
        "RETURN m.bm25_terms AS t, m.bm25_tf AS tf, m.bm25_len AS n",
        space=space,
        id=ids[1],
    )
    assert stored == [{"t": ["apple", "cherry"], "tf": [2, 1], "n": 3}]


def _recount(services: Voxmem, space: str) -> tuple[dict, dict]:
    """(the stored counters, a recount of the stored turns): session -> (docs, length) and
    (session, term) -> df."""
    sessions = {
        r["id"]: (r["docs"], r["length"])
        for r in services.db.query(
            "MATCH (s:Session {space: $space}) WHERE coalesce(s.bm25_docs, 0) > 0 "
            "RETURN s.id AS id, s.bm25_docs AS docs, s.bm25_length AS length",
            space=space,
        )
    }
    terms = {
        (r["session"], r["term"]): r["df"]
        for r in services.db.query(
            "MATCH (d:Bm25Term {space: $space}) RETURN d.session AS session, d.term AS term, d.df AS df",
            space=space,
        )
    }
    docs: Counter = Counter()
    length: Counter = Counter()
    df: Counter = Counter()
    for r in services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.session AS s, m.bm25_terms AS t, m.bm25_len AS n",
        space=space,
    ):
        docs[r["s"]] += 1
        length[r["s"]] += r["n"]
        df.update((r["s"], t) for t in r["t"])
    return (sessions, terms), ({s: (docs[s], length[s]) for s in docs}, dict(df))


def test_a_re_sent_turn_counts_once(services: Voxmem, spaces: list[str]) -> None:
    space = _space(services, "open", "resend")
    spaces.append(space)
    turn = Turn(session="s1", speaker="Maya", text="The plumber comes at noon.", ts=T0, turn_id="t1")
    services.messages.append(space, turn)
    services.messages.append(space, turn)  # a retried request with the same turn_id
    batch = [
        Turn(
            session="s1",
            speaker="Leo",
            text=f"Plumber visit number {i}.",
            ts=T0 + timedelta(minutes=i + 1),
            turn_id=f"b{i}",
        )
        for i in range(3)
    ]
    services.messages.append_many(space, batch)
    services.messages.append_many(space, batch)  # the batch re-sent
    stored, recount = _recount(services, space)
    assert stored == recount
    assert stored[0] == {"s1": (4, 5 + 3 * 4)}
    assert stored[1][("s1", "plumber")] == 4


def test_deleting_a_person_takes_their_words_out_of_the_counters(services: Voxmem, spaces: list[str]) -> None:
    """Their turns' words leave the counters (a term only they said leaves no node; the deletion
    test of tests/probe searches every property for their name), and what stays equals a recount."""
    space = _space(services, "open", "delete")
    spaces.append(space)
    _say(services, space, [*MINE, ("s2", "Leo", "Zanzibar is where Leo grew up.")])
    leo = _person(services, space, "leo")
    report = services.memory.delete_participant(space, leo)
    assert report["clean"], report
    stored, recount = _recount(services, space)
    assert stored == recount
    assert stored[0] == {"s1": (2, 8 + 7)}
    assert not any(term == "zanzibar" for _, term in stored[1])
    assert ("s2", "grew") not in stored[1]


def test_migration_0013_counts_a_stored_turn_as_ingest_does(services: Voxmem, spaces: list[str]) -> None:
    """The backfill repeats the tokenizer and counting of cypher/keyword/ for turns stored before
    0013: strip a space's counts, run the migration's statements, get the same counters back."""
    space = _space(services, "open", "backfill")
    spaces.append(space)
    _say(services, space, [*MINE, ("s2", "Maya", "Caroline's dogs' café_bar: 3.5 miles—don’t go! 'Now'")])
    before = _recount(services, space)
    terms_before = services.db.query(TERMS, space=space)
    assert before[0] == before[1]
    odd = next(r["t"] for r in terms_before if "caroline's" in r["t"])  # mostly the standard analyzer's
    assert set(odd) == {"caroline's", "dogs", "café_bar", "3", "5", "miles", "don't", "go", "now"}
    services.db.execute(
        "MATCH (m:Message {space: $space}) REMOVE m.bm25_terms, m.bm25_tf, m.bm25_len", space=space
    )
    services.db.execute("MATCH (s:Session {space: $space}) REMOVE s.bm25_docs, s.bm25_length", space=space)
    services.db.execute("MATCH (d:Bm25Term {space: $space}) DELETE d", space=space)
    run_statements(services.db, next(m for m in available_migrations() if m.version == 13), services.settings)
    assert _recount(services, space) == before
    assert services.db.query(TERMS, space=space) == terms_before


def test_a_spoken_turn_is_counted_as_a_typed_one(services: Voxmem, spaces: list[str]) -> None:
    """message_audio_append counts its text too (the voice pipeline's and recordings' writer)."""
    space = _space(services, "open", "audio")
    spaces.append(space)
    services.db.execute("CREATE (:Speaker {space: $space, id: 'spk_t', n_obs: 0})", space=space)
    text = "The plumber said the sink is fixed."
    message = AudioMessage(
        session="s1",
        idx=0,
        id=f"{space}:a0",
        text=text,
        ts=T0.isoformat(),
        duration=2.0,
        source="audio",
        audio_uri=None,
        start=None,
        embedding=list(services.embedder.embed_one(text)),
        speaker_id="spk_t",
        voiceprint_id=None,
    )

    def work(tx) -> None:
        MessageStore.lock_session(tx, space, "s1", T0.isoformat())
        MessageStore.append_audio(tx, space, message)

    services.db.write(work)
    stored, recount = _recount(services, space)
    assert (
        stored
        == recount
        == (
            {"s1": (1, 7)},
            {("s1", t): 1 for t in ["fixed", "is", "plumber", "said", "sink"]} | {("s1", "the"): 1},
        )
    )


def test_the_scope_s_statistics_are_the_same_sought_or_scanned(
    services: Voxmem, retrieval: RetrievalService, spaces: list[str]
) -> None:
    """The query reads a scope of at most ``seek_sessions`` sessions by one index seek per session
    and word, a larger one by a scan of the space's counters of each word, and the space's own
    counters for an asker in every session (docs/retrieval.md "BM25 from the asker's scope: the
    latency won back"). Each way must give the same numbers: here every asker's ranking (ids and
    scores, to the last bit) is the same with the seek forced (a bound of 100) and the scan forced
    (0), participant and private; private's sessions repeat (two turns of s2 addressed to Maya,
    who never joined it, as the memory pipeline infers it) and must count once; and Leo, in every
    session, ranks as the open space does."""
    space = _space(services, "participant", "ways")
    spaces.append(space)
    _say(services, space, MINE)  # s1: Maya, Leo
    _say(services, space, [("s2", "Ann", "plumber " * (i % 3 + 1) + "hose sink") for i in range(5)], 10)
    _say(services, space, [("s2", "Leo", "The hose is long.")], 20)
    _say(services, space, [("s3", "Maya", "The sink again, the plumber said."), ("s3", "Leo", "Fine.")], 30)
    maya, leo, ann = (_person(services, space, key) for key in ("maya", "leo", "ann"))
    services.db.execute(
        "MATCH (m:Message {space: $space, session: 's2'}) WHERE m.idx < 2 "
        "MATCH (p:Participant {space: $space, id: $maya}) "
        "MERGE (m)-[:ADDRESSES {source: 'inferred'}]->(p)",
        space=space,
        maya=maya,
    )
    tool = retrieval.tools["message_fulltext"]

    def ranking(policy: str, asker: str | None, seek_sessions: int) -> list[tuple[str, float]]:
        services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = $p", space=space, p=policy)
        tool.seek_sessions = seek_sessions
        try:
            return _ranking(retrieval, services, space, asker)
        finally:
            del tool.seek_sessions  # back to the class's bound

    for policy in ("participant", "private"):
        for asker in (maya, leo, ann):
            sought = ranking(policy, asker, 100)
            assert sought, (policy, asker)
            assert ranking(policy, asker, 0) == sought, (policy, asker)
    assert ranking("private", maya, 100) != ranking("participant", maya, 100)  # s2 counts for her
    assert ranking("participant", leo, 100) == ranking("open", None, 100)


def _plan_lines(plan: dict) -> list[str]:
    """Each operator of a PROFILE plan as 'Operator | details | dbHits'."""
    line = f"{plan['operatorType']} | {plan.get('args', {}).get('Details', '')} | {plan.get('dbHits')}"
    return [line] + [x for child in plan.get("children", []) for x in _plan_lines(child)]


def test_migration_0015_gives_the_scope_statistics_from_the_indexes(
    services: Voxmem, retrieval: RetrievalService, spaces: list[str]
) -> None:
    """Migration 0015 (docs/retrieval.md "BM25 from the asker's scope: index-backed statistics"):
    on a database as 0014 left it (the (space, term) index of 0013 present) its statements drop that
    index and leave the two composite indexes, and a second run changes nothing. The BM25 query
    then reads every summed counter from those indexes (`cache[...]` in PROFILE, no property read
    in the sums) for the open scope (the scan) and a scope of a few sessions (the seek); the scores
    are the ones test_the_scope_s_statistics_are_the_same_sought_or_scanned and the hand-written
    test check. Fails without the migration (the hints name missing indexes) and with the Lucene
    call outside its CALL subquery (a procedure call in the statement makes the planner read the
    properties from the store)."""
    migration = next(m for m in available_migrations() if m.version == 15)
    indexes = (
        "SHOW INDEXES YIELD name, labelsOrTypes, properties, state "
        "WHERE any(label IN labelsOrTypes WHERE label IN ['Bm25Term', 'Session']) "
        "RETURN name, properties, state ORDER BY name"
    )
    services.db.execute(  # 0013's index, as a database at 0014 holds it
        "CREATE INDEX bm25_term_space_term IF NOT EXISTS FOR (d:Bm25Term) ON (d.space, d.term)"
    )
    for _ in range(2):  # at 0014's schema, then again: idempotent
        run_statements(services.db, migration, services.settings)
        services.db.execute("CALL db.awaitIndexes(300)")
        found = {r["name"]: (r["properties"], r["state"]) for r in services.db.query(indexes)}
        assert "bm25_term_space_term" not in found
        assert found["bm25_term_df"] == (["space", "term", "session", "df"], "ONLINE")
        assert found["session_bm25_counts"] == (["space", "id", "bm25_docs", "bm25_length"], "ONLINE")
    space = _space(services, "participant", "index")
    spaces.append(space)
    _say(services, space, MINE)
    _say(services, space, [("s2", "Ann", "The plumber and the hose, again.")], 10)
    maya = _person(services, space, "maya")
    tool = retrieval.tools["message_fulltext"]
    for policy, asker in (("open", None), ("participant", maya)):
        services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = $p", space=space, p=policy)
        scope = resolve_scope(services.db, space, asker)
        params = {
            **scope.params(),
            "lucene": "plumber OR sink OR hose",
            "query_text": QUERY,
            "fetch": 200,
            "exhaustive": tool.exhaustive,
            "seek_sessions": tool.seek_sessions,
            "k": 10,
            "lean": True,
            "session": None,
            "speaker": None,
            "addressee": None,
            "ts_from": None,
            "ts_to": None,
        }
        with services.db.driver.session(database=services.db.database) as session:
            result = session.run("PROFILE " + query("retrieve_messages_fulltext"), params)
            rows = list(result)
            lines = _plan_lines(result.consume().profile)
        assert rows, policy
        sums = [x for x in lines if x.startswith("EagerAggregation") and ("bm25_docs" in x or ".df" in x)]
        assert len(sums) == 4, (policy, sums)  # sessions and df, scan and seek
        assert all("cache[" in x and x.endswith("| 0") for x in sums), (policy, sums)
        assert any("RANGE INDEX d:Bm25Term(space, term, session, df)" in x for x in lines)
        assert any("RANGE INDEX s:Session(space, id, bm25_docs, bm25_length)" in x for x in lines)
