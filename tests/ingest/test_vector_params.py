"""Stored embeddings sent as packed float32 vectors (``Database.vector``, issue 17 bulk import).

On a server with Cypher 25 the writers send each embedding as one ``neo4j.vector.Vector`` and
the statement reads it with ``toFloatList``; on 5.26 they send a list of floats. Either way the
stored property must be the encoder's float32 vector exactly, for messages (batch and per turn),
facts and attributes, and re-indexed passages."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import neo4j
import numpy as np
import pytest
from neo4j.vector import Vector

from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
SAID = [
    ("Tom", "I love hiking, so I will be out on Thursday morning."),
    ("Priya", "My favourite food is sushi, by the way."),
    ("Dave", "I work as a nurse, so only Sunday works for me."),
]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every ``embedding`` parameter the writers send (top level or inside rows)."""
    seen: list[Any] = []
    run = neo4j.ManagedTransaction.run

    def spy(tx: Any, query: Any, parameters: Any = None, **kwargs: Any) -> Any:
        params = {**(parameters or {}), **kwargs}
        for value in params.values():
            rows = value if isinstance(value, list) else [value]
            seen.extend(r["embedding"] for r in rows if isinstance(r, dict) and "embedding" in r)
        if "embedding" in params:
            seen.append(params["embedding"])
        return run(tx, query, parameters, **kwargs)

    monkeypatch.setattr(neo4j.ManagedTransaction, "run", spy)
    yield seen


def _exact(services: Voxmem, space: str) -> None:
    """Every message's and fact's stored embedding equals its text's float32 vector."""
    rows = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.passage AS text, m.embedding AS stored "
        "UNION ALL MATCH (f:Fact {space: $space}) RETURN f.content AS text, f.embedding AS stored "
        "UNION ALL MATCH (a:Attribute {space: $space}) RETURN a.text AS text, a.embedding AS stored",
        space=space,
    )
    assert len(rows) > len(SAID)  # messages and at least one fact or attribute
    vectors = services.embedder.embed([r["text"] for r in rows])
    for row, vector in zip(rows, vectors, strict=True):
        assert row["stored"] == vector.astype(np.float32).tolist(), row["text"]


@pytest.mark.parametrize("packed", [True, False], ids=["vector", "list"])
def test_stored_embeddings_exact_either_way(
    services: Voxmem, space: str, sent: list[Any], packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if packed and not services.db.cypher25:
        pytest.skip("the server has no Cypher 25 (5.26): lists only")
    monkeypatch.setattr(services.db, "cypher25", packed)  # the cached property, per instance
    turns = [
        Turn("dinner", who, text, ts=T0 + timedelta(minutes=i), turn_id=f"v{i}")
        for i, (who, text) in enumerate(SAID[:2])
    ]
    services.pipeline.import_turns(space, turns)
    who, text = SAID[2]
    services.pipeline.append_text(space, Turn("dinner", who, text, ts=T0 + timedelta(minutes=5)))
    services.pipeline.indexer.index(space, [r["id"] for r in services.messages.list(space)], force=True)
    _exact(services, space)
    assert sent, "no embedding parameter seen"
    kinds = {type(v) for v in sent}
    assert kinds == ({Vector} if packed else {list}), kinds
