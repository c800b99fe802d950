"""The benchmark's bulk loader (bench/cypher/): turns land as MODEL.md messages of one space,
speakers and addressees as participants, and each session gets its NEXT chain in idx order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bench.retrieval_data import BatchLoader, Row, product_index

pytestmark = pytest.mark.integration


def test_batch_loader_writes_messages_and_next_chains(services, space, settings) -> None:
    t0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    rows = [
        Row("a:0", "a", 0, "Ann", "Bob, the keys are on the hook.", t0, ["Bob"]),
        Row("a:1", "a", 1, "Bob", "Thanks, Ann.", t0 + timedelta(minutes=1), ["Ann"]),
        Row("a:2", "a", 2, "Ann", "See you tonight.", t0 + timedelta(minutes=2)),
        Row("b:0", "b", 0, "Bob", "Morning.", t0 + timedelta(days=1)),
    ]
    vectors = np.random.default_rng(0).normal(size=(len(rows), settings.text_embedding_dim))
    assert BatchLoader(services.db, batch=3).load(space, rows, vectors) == 4
    chain = services.db.query(
        "MATCH (a:Message {space: $space})-[:NEXT]->(b:Message) RETURN a.id AS a, b.id AS b ORDER BY a",
        space=space,
    )
    assert [(r["a"], r["b"]) for r in chain] == [
        (f"{space}:a:0", f"{space}:a:1"),
        (f"{space}:a:1", f"{space}:a:2"),
    ]
    spoken = services.db.query(
        "MATCH (p:Participant {space: $space})-[:SPEAKS]->(m:Message) "
        "OPTIONAL MATCH (m)-[:ADDRESSES]->(to:Participant) "
        "RETURN m.id AS m, p.name AS who, collect(to.name) AS to ORDER BY m",
        space=space,
    )
    assert [(r["who"], r["to"]) for r in spoken] == [
        ("Ann", ["Bob"]),
        ("Bob", ["Ann"]),
        ("Ann", []),
        ("Bob", []),
    ]


def test_product_index_loads_turns_as_ingest_indexes_them(services, space) -> None:
    """answers_bench and retrieval_bench load through :func:`product_index`: each message gets
    the speaker-aware passage, its MiniLM vector and SPLADE terms, so the benchmark's agent
    searches what the product's would (bare-text vectors and no sparse terms did not)."""
    t0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    rows = [
        Row("a:0", "a", 0, "Ann", "The plumber comes on Thursday.", t0, ["Bob"]),
        Row("a:1", "a", 1, "Bob", "Good.", t0 + timedelta(minutes=1)),
    ]
    vectors, index = product_index(services.embedder, rows)
    BatchLoader(services.db).load(space, rows, vectors, index=index)
    stored = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.id AS id, m.passage AS passage, "
        "m.sparse_terms AS terms, m.embedding AS embedding ORDER BY id",
        space=space,
    )
    assert [r["passage"] for r in stored] == ["Ann to Bob: The plumber comes on Thursday.", "Bob: Good."]
    assert all(r["terms"] and r["terms"].startswith("t") for r in stored)
    passage_vector = services.embedder.embed(["Ann to Bob: The plumber comes on Thursday."])[0]
    assert np.allclose(stored[0]["embedding"], passage_vector, atol=1e-4)
