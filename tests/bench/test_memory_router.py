"""The benchmark's in-memory router twin: its own behaviour on synthetic vectors, and proof that
the Neo4j router makes the same decisions (so policy comparisons measured in memory hold for the
server)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.memory_router import MemoryRouter
from bench.metrics import b_cubed
from voxmem.voice.router import SpeakerRouter
from voxmem.voice.routing import normalise
from voxmem.voice.thresholds import Thresholds

T = Thresholds(link=0.8, update=0.9, update_margin=0.05, knn_link=0.75, knn_k=2, merge=0.9, asker_margin=0.02)
T_DB = Thresholds(**{**T.__dict__, "knn_k": 3})  # the voice router integration tests' thresholds


def near(base: np.ndarray, cos: float, seed: int) -> np.ndarray:
    """A unit vector with cosine ``cos`` to ``base``."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=base.shape)
    noise -= noise.dot(base) * base
    noise = normalise(noise)
    return normalise(cos * base + np.sqrt(1 - cos**2) * noise)


def voice(seed: int, dim: int = 64) -> np.ndarray:
    return normalise(np.random.default_rng(seed).normal(size=dim))


@pytest.fixture
def a() -> np.ndarray:
    return voice(1)


def test_first_turn_creates_and_close_turn_links(a) -> None:
    router = MemoryRouter("gated", T)
    first = router.route(a)
    assert first.action == "CREATE" and first.margin < 0
    second = router.route(near(a, 0.95, 2))
    assert second.action == "LINK" and second.speaker_id == first.speaker_id
    assert second.score == pytest.approx(0.95, abs=1e-5)


def test_far_voice_creates_new_speaker(a) -> None:
    router = MemoryRouter("ema", T)
    router.route(a)
    d = router.route(near(a, 0.5, 3))
    assert d.action == "CREATE" and len(router.speakers) == 2


def test_ema_weight_is_a_running_mean_at_first(a) -> None:
    router = MemoryRouter("ema", T, ema_weight=0.05)
    router.route(a)
    b = near(a, 0.9, 10)
    router.route(b)
    centroid = next(iter(router.speakers.values())).centroid
    assert np.dot(centroid, normalise(a + b)) == pytest.approx(1.0, abs=1e-5)


def test_asker_identification_is_read_only(a) -> None:
    router = MemoryRouter("gated", T)
    router.route(a)
    before = {k: v.centroid.copy() for k, v in router.speakers.items()}
    who, score, margin = router.identify(near(a, 0.95, 11))
    assert who is not None and score > 0.9 and margin > 0
    assert router.identify(near(a, 0.3, 12))[0] is None
    assert len(router.decisions) == 1 and all(
        np.array_equal(before[k], v.centroid) for k, v in router.speakers.items()
    )


def test_memory_router_reconciles_a_voice_back_in_another_session_but_not_a_co_speaker(a) -> None:
    t = Thresholds(0.9, 0.95, 0.0, 0.9, 2, merge=0.95, asker_margin=0.02, merge_cross=0.8)
    router = MemoryRouter("fixed", t)
    first = router.route(a, "s1").speaker_id
    co_speaker = router.route(near(a, 0.85, 14), "s1").speaker_id  # another person, heard with a
    assert router.reconcile() == []
    back = router.route(near(a, 0.86, 15), "s2")  # a again, through another channel
    assert back.action == "CREATE"
    assert len(router.reconcile()) == 1
    assert router.resolve(back.speaker_id) == router.resolve(first)
    assert router.resolve(co_speaker) == co_speaker and len(router.speakers) == 2


@pytest.mark.integration
@pytest.mark.parametrize("policy", ["gated", "knn"])
def test_neo4j_router_decides_like_the_memory_router(services, space, policy) -> None:
    """The benchmark compares policies with MemoryRouter; the server must make the same decisions."""
    rng = np.random.default_rng(5)
    people = [voice(100 + i, 256) for i in range(4)]
    gold = [int(g) for g in rng.integers(0, 4, size=30)]
    turns = [near(people[g], float(rng.uniform(0.82, 0.97)), 1000 + i) for i, g in enumerate(gold)]
    router = SpeakerRouter("test-encoder", policy, T_DB)

    def route(e: np.ndarray):
        def work(tx):
            router.lock(tx, space)
            return router.route(tx, space, e, None)

        return services.db.write(work)

    memory = MemoryRouter(policy, T_DB)
    db_pred, mem_pred = [], []
    for e in turns:
        r = route(e)
        d = memory.route(e)
        assert r.decision.action == d.action
        assert r.decision.score == pytest.approx(d.score, abs=1e-4)
        db_pred.append(r.speaker_id)
        mem_pred.append(d.speaker_id)
    assert b_cubed(db_pred, mem_pred)[2] == pytest.approx(1.0)  # identical partitions
