"""The hindsight ceiling of the identity benchmark: an upper bound that must see what the
embeddings separate, and only that."""

from __future__ import annotations

import numpy as np

from bench.identity_bench import hindsight_ceiling
from bench.voices import CHOSEN_6


class _FakeCache:
    """Each voice a fixed random direction plus small per-utterance noise; ``twins`` voices share
    one direction (indistinguishable to any clustering)."""

    def __init__(self, twins: tuple[str, ...] = ()) -> None:
        rng = np.random.default_rng(0)
        self.centre = {v: rng.normal(size=32) for v in CHOSEN_6}
        for v in twins[1:]:
            self.centre[v] = self.centre[twins[0]]
        self.rng = np.random.default_rng(1)

    def get(self, voice: str, text: str, condition: str = "clean") -> np.ndarray:
        e = self.centre[voice] + 0.05 * self.rng.normal(size=32)
        return e / np.linalg.norm(e)


def test_separable_voices_reach_a_perfect_ceiling() -> None:
    ceiling = hindsight_ceiling(_FakeCache(), 3)
    assert {row["b3_f1"] for row in ceiling.values()} == {1.0}


def test_indistinguishable_voices_lower_the_ceiling() -> None:
    ceiling = hindsight_ceiling(_FakeCache(twins=tuple(CHOSEN_6)), 3)
    # every voice the same: one cluster is the best any cut can do, far below 1
    assert all(row["b3_f1"] < 0.8 for row in ceiling.values())
