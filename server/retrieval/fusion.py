"""Reciprocal rank fusion over tool rankings, de-duplicated by source turn, and context selection.

Why by source turn: a fact and the message it was derived from are the same evidence
seen through two layers; counting them twice would let one turn crowd out others. So
every hit is mapped to the turns it rests on (a message to itself, a fact or attribute
to its ``DERIVED_FROM`` messages), each ranking contributes ``1 / (k + rank)`` to each of
those turns once (RRF, k = 60, via :func:`voxmem.stores.messages.rrf`), and the facts and
attributes ride along as ``support`` on their turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from voxmem.retrieval.tools import Evidence, Hit
from voxmem.stores.messages import rrf

# The fused round: one design for /retrieve (``RetrievalService.fuse_round``) and the agent's
# first round (``Agent.step``), chosen on the LoCoMo tune conversations only (issue 18,
# bench/fusion_study.py, results/retrieval/fusion_study.json): each tool ranks its top
# FUSION_DEPTH, RRF with a small k (the setting ``fusion_rrf_k``, VOXMEM_FUSION_RRF_K, default 10:
# agreement near the top counts more than depth), then the turns next to the top NEXT_TOP turns
# gain NEXT_FACTOR times their score, added to their own (NEXT_ADDITIVE; the third pass, chosen on
# all 755 tune questions: top 5 additive 0.714 vs top 3 max 0.687).
FUSION_DEPTH = 50
NEXT_TOP = 5
NEXT_ADDITIVE = True
NEXT_FACTOR = 0.5


@dataclass
class FusedEvidence:
    """One source turn after fusion, with the tools and memory items that pointed at it."""

    evidence: Evidence
    score: float
    tools: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    support: list[dict[str, Any]] = field(default_factory=list)
    round: int = 0

    @property
    def id(self) -> str:
        return self.evidence.id

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.evidence.as_dict(),
            "score": round(self.score, 6),
            "tools": self.tools,
            "layers": self.layers,
            "support": self.support,
            "round": self.round,
        }


def turn_ranking(hits: Iterable[Hit]) -> list[str]:
    """The source-turn ids of a ranked hit list, best first, each turn once."""
    ranking: list[str] = []
    seen: set[str] = set()
    for hit in hits:
        for source in hit.sources:
            if source.id not in seen:
                seen.add(source.id)
                ranking.append(source.id)
    return ranking


def fuse(rankings: list[list[Hit]], k: int = 60) -> list[FusedEvidence]:
    """RRF over several tools' rankings; one entry per source turn, best first."""
    scores = rrf([turn_ranking(hits) for hits in rankings], k=k)
    merged: dict[str, FusedEvidence] = {}
    for hits in rankings:
        for hit in hits:
            for source in hit.sources:
                entry = merged.get(source.id)
                if entry is None:
                    entry = merged[source.id] = FusedEvidence(evidence=source, score=scores[source.id])
                if hit.tool not in entry.tools:
                    entry.tools.append(hit.tool)
                if hit.layer not in entry.layers:
                    entry.layers.append(hit.layer)
                if hit.layer != "interaction" and all(s["id"] != hit.id for s in entry.support):
                    entry.support.append({"layer": hit.layer, "id": hit.id, "text": hit.text, **hit.meta})
    return sorted(merged.values(), key=lambda e: (-e.score, e.evidence.session, e.evidence.idx))


def expand_neighbours(
    fused: list[FusedEvidence], neighbours: dict[str, list[Evidence]], factor: float, additive: bool = False
) -> list[FusedEvidence]:
    """Adjacent-turn expansion: each turn next to a top turn (same session, one position away)
    gains ``factor`` times that turn's (pre-expansion) score: added to what the channels gave it
    when ``additive``, else only if that is higher than its own score.

    Why: a LoCoMo answer often spans a question and its reply, or a statement and the turn that
    dates it; the neighbour shares few words with the question, so no channel ranks it. Additive:
    a neighbour the channels also found is the likelier evidence (chosen on LoCoMo tune
    conversations, bench/fusion_study.py --neighbours). ``neighbours`` maps a top turn's id to its
    visible neighbours (the caller fetched them inside the asker's scope).
    """
    by_id = {e.id: e for e in fused}
    base = {pid: by_id[pid].score for pid in neighbours if pid in by_id}
    for parent_id, around in neighbours.items():
        if parent_id not in base:
            continue
        score = base[parent_id] * factor
        for evidence in around:
            entry = by_id.get(evidence.id)
            if entry is None:
                by_id[evidence.id] = FusedEvidence(
                    evidence=evidence, score=score, tools=["context"], layers=["interaction"]
                )
                continue
            if additive:
                entry.score += score
            elif entry.score < score:
                entry.score = score
            else:
                continue
            if "context" not in entry.tools:
                entry.tools.append("context")
    return sorted(by_id.values(), key=lambda e: (-e.score, e.evidence.session, e.evidence.idx))


def neighbour_anchors(fused: list[FusedEvidence]) -> list[str]:
    """The fused round's turns whose neighbours it fetches: the top NEXT_TOP (a fused id is a
    message id)."""
    return [e.id for e in fused[:NEXT_TOP]]


def with_neighbours(fused: list[FusedEvidence], around: dict[str, list[Evidence]]) -> list[FusedEvidence]:
    """The fused round's neighbour step over ``around`` (each anchor's visible neighbours)."""
    return expand_neighbours(fused, around, NEXT_FACTOR, NEXT_ADDITIVE)


def merge_into(
    retained: dict[str, FusedEvidence],
    fused: list[FusedEvidence],
    budget: int,
    round_no: int,
) -> list[FusedEvidence]:
    """Context selection: keep at most ``budget`` turns not retained yet (best first).

    Turns already retained get their score raised by the new round's score (evidence found
    again by a rewritten query is stronger), and their tools/support are merged. Returns the
    newly retained entries (the evidence gain of this round).
    """
    gained: list[FusedEvidence] = []
    for entry in fused:
        old = retained.get(entry.id)
        if old is not None:
            old.score += entry.score
            old.tools += [t for t in entry.tools if t not in old.tools]
            old.layers += [layer for layer in entry.layers if layer not in old.layers]
            old.support += [s for s in entry.support if all(o["id"] != s["id"] for o in old.support)]
            continue
        if len(gained) >= budget:
            continue
        entry.round = round_no
        retained[entry.id] = entry
        gained.append(entry)
    return gained


def ranked(retained: dict[str, FusedEvidence]) -> list[FusedEvidence]:
    """Retained evidence best first (earlier rounds win ties: they answered the original query)."""
    return sorted(retained.values(), key=lambda e: (-e.score, e.round, e.evidence.session, e.evidence.idx))
