"""The online router's decision rule, as pure functions on vectors (no I/O).

Causal: each turn is decided from the speakers known *before* it, with no roster and no
speaker count. Four policies a study compares:

* ``fixed`` — a speaker is its first voiceprint; never updated.
* ``ema`` — every LINK moves the centroid: c ← norm((1-w)·c + w·e), with
  w = max(ema_weight, 1/(n_obs+1)) so the first few observations form a running mean.
* ``gated`` — like ``ema`` but the centroid moves only when the match clears the stricter
  ``update`` threshold *and* beats the runner-up by ``update_margin`` (EvoSpeakerMem's
  gated update: unsure matches are recorded but cannot drag a voice towards another).
* ``knn`` — all exemplars kept; a speaker's score is the mean of its top-k exemplar cosines.

Scores are cosines of L2-normalised vectors. ``margin`` = best score − max(runner-up score,
link threshold): how far the winner clears the next alternative (another speaker, or a new
one); it is negative for CREATE.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from voxmem.voice.thresholds import Thresholds

POLICIES = ("fixed", "ema", "gated", "knn")


@dataclass
class SpeakerState:
    """What the router knows about one speaker when a turn arrives."""

    id: str
    centroid: np.ndarray
    n_obs: int
    exemplars: np.ndarray | None = None  # (n, dim), only needed by knn


@dataclass
class Decision:
    action: str  # CREATE | LINK
    speaker_id: str | None  # None for CREATE (the store assigns the id)
    score: float
    margin: float
    policy: str
    new_centroid: np.ndarray | None  # the centroid to store (None: unchanged)
    updated: bool  # whether this observation moved the voice state
    scores: dict[str, float] = field(default_factory=dict)


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise ValueError(f"unknown routing policy {policy!r}; choose from {', '.join(POLICIES)}")
    return policy


def normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / max(float(np.linalg.norm(v)), 1e-12)


def speaker_score(embedding: np.ndarray, state: SpeakerState, policy: str, k: int) -> float:
    """The match score of one speaker for this policy."""
    if policy == "knn" and state.exemplars is not None and len(state.exemplars):
        sims = np.sort(state.exemplars @ embedding)[::-1]
        return float(sims[: max(1, k)].mean())
    return float(np.dot(state.centroid, embedding))


def ema_update(centroid: np.ndarray, embedding: np.ndarray, n_obs: int, weight: float) -> np.ndarray:
    w = max(weight, 1.0 / (n_obs + 1))
    return normalise((1.0 - w) * centroid + w * embedding)


def decide(
    embedding: np.ndarray,
    candidates: list[SpeakerState],
    policy: str,
    thresholds: Thresholds,
    ema_weight: float = 0.1,
) -> Decision:
    """CREATE or LINK for one turn, given the speakers found for it (possibly none)."""
    check_policy(policy)
    e = normalise(embedding)
    link = thresholds.knn_link if policy == "knn" else thresholds.link
    scores = {c.id: speaker_score(e, c, policy, thresholds.knn_k) for c in candidates}
    ranked = sorted(candidates, key=lambda c: -scores[c.id])
    if not ranked:
        return Decision("CREATE", None, 0.0, -link, policy, e, True, scores)
    best = ranked[0]
    best_score = scores[best.id]
    runner_up = scores[ranked[1].id] if len(ranked) > 1 else -1.0
    margin = best_score - max(runner_up, link)
    if best_score < link:
        return Decision("CREATE", None, best_score, margin, policy, e, True, scores)
    gap = best_score - runner_up
    if policy == "fixed" or policy == "knn":
        return Decision("LINK", best.id, best_score, margin, policy, None, policy == "knn", scores)
    if policy == "gated" and (best_score < thresholds.update or gap < thresholds.update_margin):
        return Decision("LINK", best.id, best_score, margin, policy, None, False, scores)
    centroid = ema_update(best.centroid, e, best.n_obs, ema_weight)
    return Decision("LINK", best.id, best_score, margin, policy, centroid, True, scores)


class MemoryRouter:
    """The same decisions kept in memory: for benchmarks that compare policies quickly and
    for unit tests. The Neo4j router (voxmem.voice.router) applies :func:`decide` identically."""

    def __init__(self, policy: str, thresholds: Thresholds, ema_weight: float = 0.1) -> None:
        self.policy = check_policy(policy)
        self.thresholds = thresholds
        self.ema_weight = ema_weight
        self.speakers: dict[str, SpeakerState] = {}
        self.decisions: list[Decision] = []

    def route(self, embedding: np.ndarray) -> Decision:
        decision = decide(
            embedding, list(self.speakers.values()), self.policy, self.thresholds, self.ema_weight
        )
        e = normalise(embedding)
        if decision.action == "CREATE":
            decision.speaker_id = f"spk{len(self.speakers) + 1}"
            self.speakers[decision.speaker_id] = SpeakerState(decision.speaker_id, e, 1, e[None, :])
        else:
            state = self.speakers[decision.speaker_id]
            state.n_obs += 1
            state.exemplars = np.vstack([state.exemplars, e[None, :]])
            if decision.new_centroid is not None:
                state.centroid = decision.new_centroid
        self.decisions.append(decision)
        return decision

    def identify(self, embedding: np.ndarray) -> tuple[str | None, float, float]:
        """Read-only: best speaker (or None), score, margin — the asker path."""
        d = decide(embedding, list(self.speakers.values()), self.policy, self.thresholds, self.ema_weight)
        ok = d.action == "LINK" and d.margin >= self.thresholds.asker_margin
        best = max(d.scores, key=d.scores.get) if d.scores else None
        return (best if ok else None), d.score, d.margin
