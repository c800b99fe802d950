"""Routing policies on synthetic vectors (no models, no database)."""

from __future__ import annotations

import numpy as np
import pytest

from voxmem.voice.routing import SpeakerState, check_routing_policy, decide, normalise
from voxmem.voice.thresholds import Thresholds, load_thresholds

T = Thresholds(link=0.8, update=0.9, update_margin=0.05, knn_link=0.75, knn_k=2, merge=0.9, asker_margin=0.02)


def near(base: np.ndarray, cos: float, seed: int) -> np.ndarray:
    """A unit vector with cosine ``cos`` to ``base``."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=base.shape)
    noise -= noise.dot(base) * base
    noise = normalise(noise)
    return normalise(cos * base + np.sqrt(1 - cos**2) * noise)


@pytest.fixture
def a() -> np.ndarray:
    return normalise(np.random.default_rng(1).normal(size=64))


def test_gated_updates_only_on_confident_match(a) -> None:
    state = SpeakerState("s", a, 10)
    unsure = decide(near(a, 0.85, 4), [state], "gated", T)
    assert unsure.action == "LINK" and not unsure.updated and unsure.new_centroid is None
    sure = decide(near(a, 0.95, 5), [state], "gated", T)
    assert sure.updated and sure.new_centroid is not None
    ema = decide(near(a, 0.85, 4), [state], "ema", T)
    assert ema.updated  # plain EMA moves on every link
    fixed = decide(near(a, 0.95, 5), [state], "fixed", T)
    assert fixed.action == "LINK" and not fixed.updated


def test_gated_needs_margin_over_runner_up(a) -> None:
    b = near(a, 0.9, 6)
    e = normalise(a + b)
    d = decide(e, [SpeakerState("a", a, 5), SpeakerState("b", b, 5)], "gated", T)
    assert d.action == "LINK" and not d.updated  # both ~0.97: too close to call, no update


def test_knn_scores_top_k_exemplars(a) -> None:
    ex = np.stack([near(a, 0.9, 7), near(a, 0.9, 8), near(a, 0.2, 9)])
    state = SpeakerState("s", normalise(ex.mean(axis=0)), 3, ex)
    d = decide(a, [state], "knn", T)
    assert d.action == "LINK" and d.score == pytest.approx(0.9, abs=0.01)


def test_unknown_policy_and_thresholds_table() -> None:
    with pytest.raises(ValueError):
        check_routing_policy("magic")
    t = load_thresholds("resemblyzer")
    assert 0.5 < t.link < t.update < 1.0  # calibrated for GE2E, not ECAPA's 0.35/0.40


def test_two_speakers_heard_together_need_the_strict_merge_threshold(a) -> None:
    """A pair that never shared a session merges at ``merge_cross``; one that did needs ``merge``."""
    from voxmem.voice.routing import reconcile_pairs

    b = near(a, 0.85, 13)
    args = (["x", "y"], np.stack([a, b]), [3, 1], 0.9)
    apart = reconcile_pairs(*args, sessions=[{"s1"}, {"s2"}], cross_threshold=0.8)[0]
    together = reconcile_pairs(*args, sessions=[{"s1"}, {"s1", "s2"}], cross_threshold=0.8)[0]
    assert [(m[0], m[1]) for m in apart] == [("y", "x")] and together == []
    assert reconcile_pairs(*args)[0] == []  # without sessions: the strict threshold only


def test_a_speaker_without_known_sessions_gets_the_strict_threshold(a) -> None:
    from voxmem.voice.routing import reconcile_pairs

    b = near(a, 0.85, 17)
    args = (["x", "y"], np.stack([a, b]), [3, 1], 0.9)
    assert reconcile_pairs(*args, sessions=[{"s1"}, set()], cross_threshold=0.8)[0] == []
