"""The retrieval benchmark's latency phase against the real test Neo4j, at a toy size: it times
every scope and leaves the kept space as it found it."""

from __future__ import annotations

import uuid

import pytest

from bench.retrieval_bench import latency
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.retrieval.service import RetrievalService

pytestmark = pytest.mark.integration


def test_latency_times_every_scope_and_puts_the_space_policy_back(services: Voxmem, settings: Settings):
    space = f"test-{uuid.uuid4().hex[:12]}"
    services.spaces.create(space, "open")
    try:
        retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
        report = latency(services, retrieval, [60], n_queries=2, keep=True, space=space)
        entry = report["60"]
        for tag in ("open", "participant+asker", "private+asker", "participant+listener"):
            assert entry[f"hybrid_round[{tag}]"]["p50"] > 0
        # the phase switches the policy per scope; an open space left at 'participant' would make a
        # later open-scope run on it see nothing
        policy = services.db.query("MATCH (s:Space {id: $space}) RETURN s.policy AS p", space=space)
        assert policy == [{"p": "open"}]
    finally:
        services.spaces.delete(space)
