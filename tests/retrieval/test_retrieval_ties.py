"""Equal scores are ranked the same way on every load (docs/retrieval.md "Is the answers
benchmark's retrieval reproducible?").

Why: a message tool's Cypher ordered its rows by score alone, so turns with equal scores (the same
words in turns of the same length: "Thanks!", a repeated question, the same sentence said in two
sessions) came back in an order set by how the index held them (three tied turns loaded s2, s3, s1 came
back s3, s1, s2 from all three channels), not by anything about the turns. Fusion weighs a turn by
its rank, so a conversation loaded in another order (or an index whose segments merged otherwise)
could fuse a different top ten. The queries now break ties by session, idx and
id, as fusion does. Here the same turn is said in three sessions, loaded out of session order.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from voxmem.core import Voxmem
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.integration

SAID = "The spare key is under the blue flower pot."
LOAD_ORDER = ["s2", "s3", "s1"]  # loaded in this order; before the fix they came back s3, s1, s2


@pytest.fixture(scope="module")
def tied_space(services: Voxmem) -> Iterator[str]:
    space = f"test-ties-{uuid.uuid4().hex[:8]}"
    services.spaces.create(space, "open")
    t0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
    try:
        for i, session in enumerate(LOAD_ORDER):
            view = services.messages.append(
                space, Turn(session=session, speaker="Maya", text=SAID, ts=t0 + timedelta(days=i))
            )
            services.messages.memory_done(space, view["id"])
        yield space
    finally:
        services.spaces.delete(space)


@pytest.mark.parametrize("tool", ["message_fulltext", "message_vector", "message_sparse"])
def test_equal_scores_rank_by_session_not_by_load_order(
    tied_space: str, retrieval: RetrievalService, services: Voxmem, tool: str
) -> None:
    scope = resolve_scope(services.db, tied_space, None)
    hits = retrieval.tools[tool].search(scope, "where is the spare key", k=3)
    assert len({round(h.score, 9) for h in hits}) == 1, [h.score for h in hits]  # a real tie
    assert [h.sources[0].session for h in hits] == ["s1", "s2", "s3"]
