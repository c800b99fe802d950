"""Voice routing: the online speaker router's decision rule, as pure functions on vectors (no I/O).

"Routing policy" here is how a voice is matched to known speakers; it is unrelated to a
space's access policy (who may read what) and to the retrieval policy (how evidence is
searched). Causal: each turn is decided from the speakers known *before* it, with no roster
and no speaker count. Four routing policies a study compares:

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
from typing import Literal, get_args

import numpy as np

from voxmem.voice.thresholds import Thresholds

RoutingPolicy = Literal["fixed", "ema", "gated", "knn"]
ROUTING_POLICIES: tuple[RoutingPolicy, ...] = get_args(RoutingPolicy)


@dataclass
class SpeakerState:
    """What the router knows about one speaker when a turn arrives."""

    id: str
    centroid: np.ndarray
    n_obs: int
    exemplars: np.ndarray | None = None  # (n, dim), only needed by knn
    person: str | None = None  # the participant it is identified as (asker margins)
    sessions: set[str] = field(default_factory=set)  # where it spoke (reconciliation cannot-links)


@dataclass
class Decision:
    action: str  # CREATE | LINK
    speaker_id: str | None  # None for CREATE (the store assigns the id)
    score: float
    margin: float
    policy: RoutingPolicy
    new_centroid: np.ndarray | None  # the centroid to store (None: unchanged)
    updated: bool  # whether this observation moved the voice state
    scores: dict[str, float] = field(default_factory=dict)


def check_routing_policy(policy: str) -> RoutingPolicy:
    if policy not in ROUTING_POLICIES:
        raise ValueError(f"unknown routing policy {policy!r}; choose from {', '.join(ROUTING_POLICIES)}")
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
    policy = check_routing_policy(policy)
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


MAX_RECONCILE_PASSES = 4  # one pass merges each speaker at most once; three fragments need two


def follow_merges(speaker_id: str | None, merged: dict[str, str]) -> str | None:
    """The speaker an id survives as after (possibly chained) merges (``merged``: source → target)."""
    seen: set[str] = set()
    while speaker_id in merged and speaker_id not in seen:
        seen.add(speaker_id)
        speaker_id = merged[speaker_id]
    return speaker_id


def reconcile_pairs(
    ids: list[str],
    centroids: np.ndarray,
    n_obs: list[int],
    merge_threshold: float,
    keys: list[str | None] | None = None,
    focus: set[str] | None = None,
    sessions: list[set[str]] | None = None,
    cross_threshold: float | None = None,
) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]]]:
    """Post-session reconciliation: which speakers to merge, as (source, target, cosine).

    A pair is eligible when its centroid cosine reaches the pair's threshold: ``merge_threshold``
    for two speakers heard in one session (one voice split while it spoke, or two people
    talking to each other: only a close match may join them), and the lower
    ``cross_threshold`` for two speakers never heard together (``sessions``: the sessions each
    one spoke in; a speaker with no known session gets the strict threshold: missing
    information never relaxes the safeguard). Why two thresholds: a voice that returns through
    another channel (a car, a phone, a reverberant room) lands about as far from its old voice
    state as a different person, but two people who talked to each other in one session are
    certainly two people, so that cannot-link evidence buys the lower threshold for pairs that
    never met. Among
    eligible pairs, a pair merges only if the two are each other's nearest eligible speaker
    and are not two different named participants (``keys``; those pairs are returned as
    conflicts). The smaller speaker merges into the larger one. ``focus`` limits it to pairs
    touching those ids (the speakers of one session).
    """
    if len(ids) < 2:
        return [], []
    c = np.stack([normalise(v) for v in centroids])
    sims = c @ c.T
    need = np.full(sims.shape, merge_threshold, dtype=np.float64)
    if sessions is not None and cross_threshold is not None and cross_threshold < merge_threshold:
        for i in range(len(ids)):
            for j in range(len(ids)):
                if sessions[i] and sessions[j] and not sessions[i] & sessions[j]:
                    need[i, j] = cross_threshold
    eligible = np.where(sims >= need, sims, -np.inf)
    np.fill_diagonal(eligible, -np.inf)
    nearest = eligible.argmax(axis=1)
    keys = keys or [None] * len(ids)
    merges: list[tuple[str, str, float]] = []
    conflicts: list[tuple[str, str, float]] = []
    done: set[int] = set()
    for i, j in enumerate(nearest):
        if focus is not None and ids[i] not in focus and ids[j] not in focus:
            continue
        if not np.isfinite(eligible[i, j]) or nearest[j] != i or {i, j} & done:
            continue
        if keys[i] and keys[j] and keys[i] != keys[j]:
            conflicts.append((ids[i], ids[j], float(sims[i, j])))
            continue
        small, big = (i, j) if (n_obs[i], ids[i]) < (n_obs[j], ids[j]) else (j, i)
        done |= {i, j}
        merges.append((ids[small], ids[big], float(sims[i, j])))
    return merges, conflicts


def asker_match(
    scores: dict[str, float], person_of: dict[str, str | None], thresholds: Thresholds
) -> tuple[str | None, float, float, bool]:
    """Read-only asker decision: (best speaker, score, margin, known).

    Several speakers (fragments) of one person do not compete with each other: the margin is
    taken over the best speaker identified as a *different* person, or the asker threshold.
    """
    if not scores:
        return None, 0.0, -thresholds.asker_threshold, False
    best = max(scores, key=lambda k: scores[k])
    me = person_of.get(best)
    others = [s for k, s in scores.items() if k != best and (me is None or person_of.get(k) != me)]
    runner_up = max(others, default=-1.0)
    margin = scores[best] - max(runner_up, thresholds.asker_threshold)
    known = scores[best] >= thresholds.asker_threshold and margin >= thresholds.asker_margin
    return best, scores[best], margin, known
