"""The voice router's decisions kept in memory, for benchmarks that compare routing policies
quickly (thousands of turns, no database).

It lives in the benchmark, not the product: the product routes through Neo4j
(``voxmem.voice.router``), and this twin applies the same pure rules (:func:`decide`,
:func:`reconcile_pairs`, :func:`asker_match`). ``tests/bench/test_memory_router.py`` proves
on synthetic voices that both make identical decisions, so a benchmark number measured here
holds for the server.
"""

from __future__ import annotations

import numpy as np

from voxmem.voice.routing import (
    MAX_RECONCILE_PASSES,
    Decision,
    SpeakerState,
    asker_match,
    check_routing_policy,
    decide,
    follow_merges,
    normalise,
    reconcile_pairs,
)
from voxmem.voice.thresholds import Thresholds


class MemoryRouter:
    """The router's decisions in memory. The Neo4j router (voxmem.voice.router) applies
    :func:`decide` identically."""

    def __init__(self, policy: str, thresholds: Thresholds, ema_weight: float = 0.1) -> None:
        self.policy = check_routing_policy(policy)
        self.thresholds = thresholds
        self.ema_weight = ema_weight
        self.speakers: dict[str, SpeakerState] = {}
        self.decisions: list[Decision] = []
        self.merged: dict[str, str] = {}

    def route(self, embedding: np.ndarray, session: str | None = None) -> Decision:
        decision = decide(
            embedding, list(self.speakers.values()), self.policy, self.thresholds, self.ema_weight
        )
        e = normalise(embedding)
        if decision.action == "CREATE":
            decision.speaker_id = f"spk{len(self.decisions) + 1}"
            self.speakers[decision.speaker_id] = SpeakerState(decision.speaker_id, e, 1, e[None, :])
        else:
            state = self.speakers[decision.speaker_id]
            state.n_obs += 1
            state.exemplars = np.vstack([state.exemplars, e[None, :]])
            if decision.new_centroid is not None:
                state.centroid = decision.new_centroid
        if session is not None:
            self.speakers[decision.speaker_id].sessions.add(session)
        self.decisions.append(decision)
        return decision

    def reconcile(self) -> list[tuple[str, str, float]]:
        """Merge fragments (same criteria and passes as the Neo4j reconciliation before a new
        session); returns the merges."""
        done: list[tuple[str, str, float]] = []
        for _ in range(MAX_RECONCILE_PASSES):
            ids = list(self.speakers)
            states = [self.speakers[i] for i in ids]
            merges, _ = reconcile_pairs(
                ids,
                np.stack([s.centroid for s in states]) if ids else np.zeros((0, 1)),
                [s.n_obs for s in states],
                self.thresholds.merge,
                sessions=[s.sessions for s in states],
                cross_threshold=self.thresholds.merge_cross_threshold,
            )
            for source, target, _ in merges:
                a, b = self.speakers.pop(source), self.speakers[target]
                b.centroid = normalise(a.n_obs * a.centroid + b.n_obs * b.centroid)
                b.n_obs += a.n_obs
                b.exemplars = np.vstack([b.exemplars, a.exemplars])
                b.sessions |= a.sessions
                self.merged[source] = target
            done += merges
            if not merges:
                break
        return done

    def resolve(self, speaker_id: str) -> str:
        """The surviving speaker an id was (possibly repeatedly) merged into."""
        return follow_merges(speaker_id, self.merged)

    def identify(self, embedding: np.ndarray) -> tuple[str | None, float, float]:
        """Read-only: best speaker (or None), score, margin — the asker path."""
        d = decide(embedding, list(self.speakers.values()), self.policy, self.thresholds, self.ema_weight)
        best, score, margin, known = asker_match(d.scores, {k: k for k in d.scores}, self.thresholds)
        return (best if known else None), score, margin
