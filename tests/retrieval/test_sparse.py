"""SPLADE channel, speaker-aware passages and the ONNX query encoder (issue 18).

Unit: the SPLADE encoding of a known sentence (non-empty, deterministic, carries the
sentence's own words), and ONNX int8 query vectors within cosine 0.99 of the torch vectors
the messages are stored with. Integration (real Neo4j): stored messages are found by the
sparse tool, the backfill indexes messages without sparse data exactly once, and a
renaming re-indexes the passages that name the participant.
"""

from __future__ import annotations

import re
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voxmem.config import Settings
from voxmem.cypher import compose, query
from voxmem.embeddings import TextEmbedder, sparse_encoder
from voxmem.graph_schema.migrate import available_migrations, run_statements
from voxmem.ids import turn_message_id
from voxmem.passages import MessageIndexer, passage, sparse_query
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.tools import SparseTermStats, build_tools
from voxmem.stores.messages import Turn

SENTENCE = "The garage door code is 4417, don't tell the kids."


def _token_id(word: str) -> int:
    from tokenizers import Tokenizer

    from voxmem.embeddings import splade_model_path

    return Tokenizer.from_file(str(splade_model_path() / "tokenizer.json")).token_to_id(word)


def test_splade_encoding_of_a_known_sentence():
    encoder = sparse_encoder()
    first = encoder.encode([SENTENCE, "hello"])
    again = encoder.encode(["hello", SENTENCE])  # other batch, other order: same vector
    weights = first[0]
    assert weights == again[1] and first[1] == again[0]
    assert 10 <= len(weights) <= encoder.max_terms
    assert all(w > 0 for w in weights.values())
    for word in ("garage", "door", "code"):
        assert weights.get(_token_id(word), 0.0) > 0.5, word
    assert "cognition" not in sys.modules  # the wheel's framework is never imported


def test_onnx_query_vectors_match_torch(services):
    questions = [
        "When did Caroline go to the LGBTQ support group?",
        "What does Melanie like to paint?",
        "who said the garage code is 4417",
        "x",
        "What did Tom tell Ana about the anniversary dinner and the blue room at the restaurant last week?",
    ]
    torch_vectors = TextEmbedder(Settings(text_embedding_backend="torch")).embed(questions)
    onnx_vectors = services.embedder.embed_queries(questions)
    cosines = (torch_vectors * onnx_vectors).sum(axis=1)
    assert onnx_vectors.shape == torch_vectors.shape
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-5)
    assert cosines.min() >= 0.99, cosines


def test_passage_and_query_text():
    assert passage("Hi", "Ana", ["Tom", "Lena"]) == "Ana to Tom, Lena: Hi"
    assert passage("Hi", "Ana") == "Ana: Hi"
    assert passage("Hi", None, ["Tom"]) == "Hi"
    lucene, terms = sparse_query({7: 1.5, 9: 0.25, 11: 0.1}, max_terms=2)
    assert lucene == "t7^1.500 t9^0.250"
    assert terms == {"t7": 1.5, "t9": 0.25}
    # the head query's clauses: space-qualified and quoted (':' and '~' are query syntax)
    lucene, head_terms = sparse_query({7: 1.5, 9: 0.25, 11: 0.1}, max_terms=2, space="a:b")
    assert lucene == '"a:b~t7"^1.500 "a:b~t9"^0.250'
    assert head_terms == terms


def test_common_terms_leave_the_lucene_clauses_not_the_scores():
    lucene, terms = sparse_query({7: 1.5, 9: 0.25, 11: 0.1}, common={"t7"})
    assert lucene == "t9^0.250 t11^0.100"
    assert terms == {"t7": 1.5, "t9": 0.25, "t11": 0.1}
    lucene, terms = sparse_query({7: 1.5, 9: 0.25}, common={"t7", "t9"})
    assert lucene == "t7^1.500 t9^0.250"  # every term common: nothing else to select candidates on


@pytest.fixture()
def space(services):
    name = f"test-sparse-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, "open")
    turns = [
        ("s1", "Maya", ["Tom"], "Can we stop for pizza on the way home?"),
        ("s2", "Tom", ["Maya"], "Only if you finish your homework first."),
        ("s3", "Lena", [], "My dentist appointment moved to Friday."),
    ]
    for turn_id, speaker, to, text in turns:
        services.messages.append(
            name, Turn(session="kitchen", speaker=speaker, text=text, addressees=to, turn_id=turn_id)
        )
    yield name
    services.spaces.delete(name)


def _stored(services, space: str) -> dict[str, dict]:
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.id AS id, m.passage AS passage, "
        "m.sparse_terms AS terms, m.sparse_weights AS weights, m.sparse_head AS head, "
        "m.embedding AS embedding",
        space=space,
    )
    return {r["id"]: r for r in rows}


@pytest.mark.integration
def test_ingest_indexes_passages_and_the_sparse_tool_finds_them(services, space):
    stored = _stored(services, space)
    s1 = stored[turn_message_id(space, "s1")]
    assert s1["passage"] == "Maya to Tom: Can we stop for pizza on the way home?"
    assert stored[turn_message_id(space, "s3")]["passage"] == "Lena: My dentist appointment moved to Friday."
    for row in stored.values():
        assert len(row["terms"].split()) == len(row["weights"]) > 5
    tool = build_tools(services.db, services.embedder)["message_sparse"]
    scope = resolve_scope(services.db, space, None)
    hits = tool.search(scope, "When is Lena's dentist appointment?", k=3)
    assert hits and hits[0].id == turn_message_id(space, "s3") and hits[0].score > 0
    assert tool.search(scope, "pizza", k=3)[0].id == turn_message_id(space, "s1")


@pytest.mark.integration
def test_sparse_tool_scores_are_the_exact_splade_dot_product(services, space):
    """The tool's score is the dot product of the query weights with the stored weights, for every
    hit (the Cypher reads sparse_weights once per candidate and indexes it by term position)."""
    stored = _stored(services, space)
    tool = build_tools(services.db, services.embedder)["message_sparse"]
    question = "When is Lena's dentist appointment?"
    _, terms = sparse_query(tool.sparse(question))  # type: ignore[misc]
    hits = tool.search(resolve_scope(services.db, space, None), question, k=5)
    assert hits
    for hit in hits:
        row = stored[hit.id]
        pairs = zip(row["terms"].split(), row["weights"], strict=True)
        expected = sum(terms.get(t, 0.0) * w for t, w in pairs)
        assert hit.score == pytest.approx(expected, rel=1e-6)


@pytest.mark.integration
def test_only_the_scoped_sparse_index_is_kept(services):
    """Migration 0009 drops 0006's space-only SPLADE index; the tool's indexes (0008, 0010) stay."""
    names = {r["name"] for r in services.db.query("SHOW FULLTEXT INDEXES YIELD name RETURN name")}
    assert {"message_scoped_sparse", "message_scoped_sparse_head"} <= names
    assert "message_sparse" not in names


@pytest.mark.integration
def test_backfill_is_idempotent(services, space):
    before = _stored(services, space)
    services.db.execute(
        "MATCH (m:Message {space: $space}) REMOVE m.passage, m.sparse_terms, m.sparse_weights", space=space
    )
    indexer = MessageIndexer(services.db, services.embedder, sparse_encoder())
    assert indexer.backfill(space) == 3
    assert indexer.backfill(space) == 0
    after = _stored(services, space)
    for mid, row in before.items():
        assert after[mid]["passage"] == row["passage"]
        assert after[mid]["terms"] == row["terms"]
        assert np.dot(after[mid]["embedding"], row["embedding"]) > 0.999


@pytest.mark.integration
def test_renaming_reindexes_the_passages_that_name_the_participant(services, space):
    indexer = MessageIndexer(services.db, services.embedder, sparse_encoder())
    tom = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'tom'}) RETURN p.id AS id", space=space
    )[0]["id"]
    services.db.execute(query("participant_set_name"), space=space, id=tom, name="Thomas", key="thomas")
    assert indexer.reindex_participant(space, tom) == 2  # Tom's own turn and Maya's turn to him
    stored = _stored(services, space)
    assert stored[turn_message_id(space, "s2")]["passage"].startswith("Thomas to Maya: ")
    assert stored[turn_message_id(space, "s1")]["passage"].startswith("Maya to Thomas: ")
    assert indexer.reindex_participant(space, tom) == 0  # unchanged passages are not re-embedded


@pytest.mark.integration
def test_sparse_candidates_are_filtered_by_the_askers_sessions_inside_the_index(services):
    """Under a participant scope the Lucene candidates come only from the asker's sessions
    (migration 0008, @access.message_lucene_filter): with room for ONE candidate, the asker's
    weakly matching turn is still it, though 30 better matches sit in a session they never
    joined. Before, the space-only index gave one of those, the scope removed it, and the tool
    had to widen its candidate list 20-fold."""
    name = f"test-sparse-scope-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, "participant")
    try:
        for i in range(30):  # short passages that are all about pizza: Lucene ranks these first
            turn = Turn(session="garage", speaker="Tom", text=f"Pizza {i}!", turn_id=f"g{i}")
            services.messages.append(name, turn)
        long_turn = (
            "After the long drive home tonight, once the kids are asleep and the dishes are done, we"
            " could maybe order a pizza or something else entirely, whatever everyone prefers."
        )
        services.messages.append(name, Turn(session="car", speaker="Lena", text=long_turn, turn_id="c0"))
        lena = services.db.query(
            "MATCH (p:Participant {space: $space, key: 'lena'}) RETURN p.id AS id", space=name
        )[0]["id"]
        scope = resolve_scope(services.db, name, lena)
        assert scope.access_policy == "participant"
        tool = build_tools(services.db, services.embedder)["message_sparse"]
        lucene, terms = sparse_query(tool.sparse("pizza"))  # type: ignore[misc]
        clauses = {  # the head index holds space-qualified terms (migration 0012)
            "retrieve_messages_sparse_head": sparse_query(tool.sparse("pizza"), space=name)[0],  # type: ignore[misc]
            "retrieve_messages_sparse": lucene,
        }
        params = {"speaker": None, "addressee": None, "session": None, "ts_from": None, "ts_to": None}
        # the head index (migration 0010) and the all-terms index (0008) both filter in the index

        def top(query_name: str, **scope_params: Any) -> list[dict[str, Any]]:
            return tool.run(
                query_name, lucene=clauses[query_name], weights=terms, fetch=1, k=1, **params, **scope_params
            )

        for name_of_query in ("retrieve_messages_sparse_head", "retrieve_messages_sparse"):
            rows = top(name_of_query, **scope.params())
            assert [r["id"] for r in rows] == [turn_message_id(name, "c0")], name_of_query
            open_rows = top(name_of_query, **{**scope.params(), "access_policy": "open", "asker": None})
            assert open_rows and open_rows[0]["session"] == "garage"  # the open scope's best is elsewhere
    finally:
        services.spaces.delete(name)


class _CountingDb:
    def __init__(self, rows):
        self.rows, self.calls = rows, 0

    def query(self, _cypher, **_params):
        self.calls += 1
        return self.rows


def test_term_stats_share_sample_and_refresh_off_the_query_path():
    rows = [{"terms": "t1 t2 t1"}, {"terms": "t1 t3"}, {"terms": "t1 t2"}, {"terms": "t4"}]
    db = _CountingDb(rows)
    stats = SparseTermStats(db, share=0.5, sample=4, ttl=0.0)  # type: ignore[arg-type]
    assert stats("s") == frozenset({"t1"})  # 3 of 4 documents (t2: 2 of 4 is not more than half)
    assert db.calls == 1
    db.rows = rows[:1] * 4
    assert stats("s") == frozenset({"t1"})  # stale: answered at once, refreshed in the background
    for _ in range(100):
        if db.calls == 2 and not stats._refreshing:
            break
        time.sleep(0.01)
    assert stats("s") == frozenset({"t1", "t2"})
    few = SparseTermStats(_CountingDb(rows), sample=5)  # type: ignore[arg-type]
    assert few("s") == frozenset()  # fewer rows than the sample: nothing is common


_TOPICS = [
    "the dentist appointment moved to Friday",
    "the piano lesson is at four",
    "we need milk and eggs",
    "the car service costs too much",
    "the garden needs water",
    "my laptop battery died",
    "the football match starts at nine",
    "grandma arrives by train",
    "the heating bill came today",
    "the dog chewed my shoe",
    "school pickup is at three",
    "the hotel checkout is at noon",
]


@pytest.mark.integration
def test_common_terms_of_a_space_and_the_ranking_without_them(services):
    """Every passage of a two-person conversation names both speakers, so their names are common
    terms of the space (a space with fewer messages than the sample has none). Without them in
    the Lucene clauses the best turn is still found, and when the rare terms match fewer turns
    than asked for, the tool widens with every term: the same hits as the full query."""
    name = f"test-sparse-common-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, "open")
    try:
        for i, topic in enumerate(_TOPICS * 2):
            speaker, other = ("Maya", "Tom") if i % 2 == 0 else ("Tom", "Maya")
            text = f"{topic.capitalize()}." if i < len(_TOPICS) else f"Remember, {topic}!"
            turn = Turn(session="kitchen", speaker=speaker, text=text, addressees=[other], turn_id=f"c{i}")
            services.messages.append(name, turn)
        stats = SparseTermStats(services.db, share=0.5, sample=20)
        common = stats(name)
        maya = f"t{_token_id('maya')}"
        assert {maya, f"t{_token_id('tom')}"} <= common
        assert f"t{_token_id('piano')}" not in common and f"t{_token_id('dentist')}" not in common
        assert SparseTermStats(services.db, sample=100)(name) == frozenset()  # fewer messages than the sample
        tool = build_tools(services.db, services.embedder)["message_sparse"]
        full_query = SparseTermStats(services.db, sample=10_000)  # never any common term
        scope = resolve_scope(services.db, name, None)
        question = "When is Maya's dentist appointment?"
        lucene, _ = sparse_query(tool.sparse(question), common=common)  # type: ignore[misc]
        assert maya not in lucene.split("^")[0] and f" {maya}^" not in f" {lucene}"
        tool.common = stats  # type: ignore[attr-defined]
        best = tool.search(scope, question, k=1)
        widened = tool.search(scope, question, k=len(_TOPICS) * 2)
        tool.common = full_query  # type: ignore[attr-defined]
        assert best[0].id == tool.search(scope, question, k=1)[0].id == turn_message_id(name, "c0")
        assert [(h.id, round(h.score, 6)) for h in widened] == [
            (h.id, round(h.score, 6)) for h in tool.search(scope, question, k=len(_TOPICS) * 2)
        ]
    finally:
        services.spaces.delete(name)


ROOT = Path(__file__).resolve().parents[2]
HEAD = re.compile(r"sparse_head\s*[:=]\s*@sparse\.head\(")


def _body(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))


def test_every_writer_of_sparse_terms_writes_the_head():
    """Document-side pruning (migration 0010) only holds if every message has its head: each
    product and benchmark Cypher file that writes ``sparse_terms`` writes ``sparse_head`` from the
    one fragment, and migration 0012 re-writes older heads with the fragment's expression."""
    writers = []
    for path in sorted([*(ROOT / "cypher").glob("*.cypher"), *(ROOT / "bench" / "cypher").glob("*.cypher")]):
        body = _body(path.read_text(encoding="utf-8"))
        if re.search(r"sparse_terms\s*:\s*[$\w]|\.sparse_terms\s*=", body):  # a map entry or a SET
            writers.append(path.stem)
            assert HEAD.search(body), f"{path.name} writes sparse_terms without @sparse.head"
    assert {"message_append", "message_batch_append", "message_index_set", "load_messages"} <= set(writers)
    migration = next(m for m in available_migrations() if m.version == 12)
    squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731
    assert squash(compose("@sparse.head(m.space, m.sparse_terms, m.sparse_weights)")) in squash(
        migration.text
    )


@pytest.mark.integration
def test_the_head_is_the_heavy_prefix_of_the_stored_terms(services, space):
    for row in _stored(services, space).values():
        terms, weights = row["terms"].split(), row["weights"]
        assert weights == sorted(weights, reverse=True)
        expected = [f"{space}~{t}" for t, w in zip(terms, weights, strict=True) if w >= 0.3 * weights[0]]
        assert row["head"].split() == expected
        assert 0 < len(expected) < len(terms)


def _head_query_top(services, space: str, question: str, fetch: int = 10) -> list[str]:
    """The head query's ids for ``question`` in an open scope, its clauses built as the tool builds them."""
    tool = build_tools(services.db, services.embedder)["message_sparse"]
    lucene, terms = sparse_query(tool.sparse(question), space=space)  # type: ignore[misc]
    params = {"speaker": None, "addressee": None, "session": None, "ts_from": None, "ts_to": None}
    scope = resolve_scope(services.db, space, None)
    rows = tool.run(
        "retrieve_messages_sparse_head",
        lucene=lucene,
        weights=terms,
        fetch=fetch,
        k=1,
        **params,
        **scope.params(),
    )
    return [r["id"] for r in rows]


@pytest.mark.integration
def test_migrations_0010_and_0012_backfill_messages_stored_without_a_head(services, space):
    """A store from before 0010: messages with SPLADE terms and no head. Running the migrations'
    statements in order (as migrate() does, the back-fills in batches) gives each the head the
    writers give, the head index finds them, and a second run changes nothing."""
    before = _stored(services, space)
    services.db.execute("MATCH (m:Message {space: $space}) REMOVE m.sparse_head", space=space)
    assert all(r["head"] is None for r in _stored(services, space).values())
    migrations = [m for m in available_migrations() if m.version in (10, 12)]
    for migration in migrations:
        run_statements(services.db, migration, services.settings)
    after = _stored(services, space)
    assert {i: r["head"] for i, r in after.items()} == {i: r["head"] for i, r in before.items()}
    assert all(r["head"] for r in after.values())
    for migration in migrations:  # idempotent
        run_statements(services.db, migration, services.settings)
    assert _stored(services, space) == after
    assert _head_query_top(services, space, "When is Lena's dentist appointment?") == [
        turn_message_id(space, "s3")
    ]


@pytest.mark.integration
def test_migration_0012_qualifies_the_heads_0010_wrote(services, space):
    """Heads as 0010 wrote them (bare `t<id>` terms, which the head query no longer asks for) are
    re-written as the writers write them now: each term qualified by the message's space."""
    before = _stored(services, space)
    assert all(t.startswith(f"{space}~t") for r in before.values() for t in r["head"].split())
    services.db.execute(
        "MATCH (m:Message {space: $space}) SET m.sparse_head = replace(m.sparse_head, $prefix, '')",
        space=space,
        prefix=f"{space}~",
    )
    assert _head_query_top(services, space, "When is Lena's dentist appointment?") == []
    run_statements(services.db, next(m for m in available_migrations() if m.version == 12), services.settings)
    assert _stored(services, space) == before
    assert _head_query_top(services, space, "When is Lena's dentist appointment?") == [
        turn_message_id(space, "s3")
    ]


@pytest.mark.integration
def test_the_head_query_selects_the_space_by_its_terms_without_a_space_clause(services, space):
    """The head query's Lucene string requires no space (a `+space:` clause held by every document
    of a big space stopped Lucene's top-k pruning, docs/retrieval.md "Latency, tenth pass"); its
    space-qualified terms select the space instead: with room for ONE candidate, each of two
    spaces holding the same turns gets its own turn, never the other space's."""
    lucene_of = compose(
        "@access.asker()\nRETURN @access.message_lucene_sessions() + '+sparse_head:(x)' AS lucene"
    )
    sent = services.db.query(lucene_of, space=space, asker=None, access_policy="open")[0]["lucene"]
    assert sent == "+sparse_head:(x)"
    twin = f"test-sparse-twin-{uuid.uuid4().hex[:8]}"
    services.spaces.create(twin, "open")
    try:
        services.messages.append(
            twin,
            Turn(
                session="kitchen",
                speaker="Lena",
                text="My dentist appointment moved to Friday.",
                turn_id="s3",
            ),
        )
        question = "When is Lena's dentist appointment?"
        for name in (space, twin):
            assert _head_query_top(services, name, question, fetch=1) == [turn_message_id(name, "s3")]
    finally:
        services.spaces.delete(twin)


@pytest.mark.integration
def test_a_turn_matching_only_outside_its_head_is_found_by_the_widening(services, space):
    """Candidates come from the head terms; when they find fewer than k turns, the tool widens
    over every stored term, so a turn whose only shared term is light is still returned, with
    its exact score."""
    target = turn_message_id(space, "s3")
    services.db.execute(
        "MATCH (m:Message {id: $id}) SET m.sparse_terms = 't1 t2 t3', m.sparse_weights = [1.0, 0.5, 0.1],"
        " m.sparse_head = $space + '~t1 ' + $space + '~t2'",
        id=target,
        space=space,
    )
    tool = build_tools(services.db, services.embedder)["message_sparse"]
    tool.sparse = lambda _text: {3: 2.0}  # type: ignore[assignment,method-assign]
    scope = resolve_scope(services.db, space, None)
    hits = tool.search(scope, "anything", k=1)
    assert [(h.id, round(h.score, 6)) for h in hits] == [(target, 0.2)]
    tool.sparse = lambda _text: {2: 2.0}  # type: ignore[assignment,method-assign]
    assert [(h.id, round(h.score, 6)) for h in tool.search(scope, "anything", k=1)] == [(target, 1.0)]
