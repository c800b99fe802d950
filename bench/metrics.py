"""Identity metrics: how well online routing recovers who spoke, against gold labels. They
live in the benchmark: the product never scores itself against gold labels.

Inputs are parallel lists in turn order: ``gold`` speaker labels, ``pred`` entity ids the
router assigned, and ``actions`` (CREATE/LINK). Definitions (EvoSpeakerMem-style):

* B-cubed P/R/F1 — per turn, overlap of its predicted cluster and its gold cluster.
* false-new-user rate — turns of a speaker already heard that were sent to a newly created
  entity, over all such returning turns.
* CREATE precision — CREATEs that were truly a first appearance; CREATE recall — first
  appearances that got a CREATE.
* LINK precision — LINKs into an entity whose turns *so far* are mostly this gold speaker
  (causal: judged against what the entity was when the decision was made). A wrong link
  is a LINK into an entity held by another person.
* fragmentation — predicted entities per gold speaker; contamination — entities holding
  turns of more than one gold speaker.
* DER — diarization error rate on RTTM segments, frame-based (10 ms), with the optimal
  one-to-one speaker mapping and an optional no-score collar around reference boundaries.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class IdentityScores:
    n_turns: int
    n_gold_speakers: int
    n_entities: int
    b3_precision: float
    b3_recall: float
    b3_f1: float
    false_new_user_rate: float
    create_precision: float
    create_recall: float
    link_precision: float
    wrong_links: int
    fragmentation: float
    contaminated_entities: int
    contamination_rate: float

    def as_dict(self) -> dict:
        return asdict(self)


def _ratio(num: float, den: float) -> float:
    return num / den if den else 1.0


def b_cubed(gold: Sequence[str], pred: Sequence[str]) -> tuple[float, float, float]:
    if len(gold) != len(pred):
        raise ValueError("gold and pred must have the same length")
    if not gold:
        return 1.0, 1.0, 1.0
    pair = Counter(zip(gold, pred, strict=True))
    gold_size, pred_size = Counter(gold), Counter(pred)
    p = sum(pair[(g, c)] / pred_size[c] for g, c in zip(gold, pred, strict=True)) / len(gold)
    r = sum(pair[(g, c)] / gold_size[g] for g, c in zip(gold, pred, strict=True)) / len(gold)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def identity_scores(gold: Sequence[str], pred: Sequence[str], actions: Sequence[str]) -> IdentityScores:
    if not len(gold) == len(pred) == len(actions):
        raise ValueError("gold, pred and actions must have the same length")
    p, r, f1 = b_cubed(gold, pred)
    seen_gold: set[str] = set()
    held: dict[str, Counter] = defaultdict(Counter)  # entity -> gold labels so far
    returning = false_new = creates = true_creates = firsts = links = good_links = 0
    for g, c, action in zip(gold, pred, actions, strict=True):
        first = g not in seen_gold
        firsts += first
        if action == "CREATE":
            creates += 1
            true_creates += first
            false_new += not first
        elif action == "LINK":
            links += 1
            owner = held[c].most_common(1)[0][0] if held[c] else None
            good_links += owner == g
        else:
            raise ValueError(f"unknown action {action!r}")
        returning += not first
        seen_gold.add(g)
        held[c][g] += 1
    by_gold: dict[str, set[str]] = defaultdict(set)
    by_pred: dict[str, set[str]] = defaultdict(set)
    for g, c in zip(gold, pred, strict=True):
        by_gold[g].add(c)
        by_pred[c].add(g)
    contaminated = sum(len(gs) > 1 for gs in by_pred.values())
    return IdentityScores(
        n_turns=len(gold),
        n_gold_speakers=len(by_gold),
        n_entities=len(by_pred),
        b3_precision=p,
        b3_recall=r,
        b3_f1=f1,
        false_new_user_rate=_ratio(false_new, returning) if returning else 0.0,
        create_precision=_ratio(true_creates, creates),
        create_recall=_ratio(true_creates, firsts),
        link_precision=_ratio(good_links, links),
        wrong_links=links - good_links,
        fragmentation=float(np.mean([len(cs) for cs in by_gold.values()])) if by_gold else 0.0,
        contaminated_entities=contaminated,
        contamination_rate=_ratio(contaminated, len(by_pred)) if by_pred else 0.0,
    )


# --- diarization error rate -------------------------------------------------------------------
Segment = tuple[float, float, str]  # (start, end, speaker)


def read_rttm(text: str) -> dict[str, list[Segment]]:
    """RTTM lines → {uri: [(start, end, speaker)]}."""
    out: dict[str, list[Segment]] = defaultdict(list)
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[0] == "SPEAKER":
            start, dur = float(parts[3]), float(parts[4])
            out[parts[1]].append((start, start + dur, parts[7]))
    return dict(out)


def write_rttm(uri: str, segments: Sequence[Segment]) -> str:
    return "".join(
        f"SPEAKER {uri} 1 {s:.3f} {e - s:.3f} <NA> <NA> {spk} <NA> <NA>\n" for s, e, spk in segments
    )


def _frames(segments: Sequence[Segment], labels: list[str], n: int, step: float) -> np.ndarray:
    grid = np.zeros((n, len(labels)), dtype=bool)
    index = {lab: i for i, lab in enumerate(labels)}
    for s, e, spk in segments:
        a, b = round(s / step), round(e / step)
        grid[max(a, 0) : min(b, n), index[spk]] = True
    return grid


def der(
    reference: Sequence[Segment],
    hypothesis: Sequence[Segment],
    collar: float = 0.0,
    step: float = 0.01,
    uem: tuple[float, float] | None = None,
) -> dict[str, float]:
    """Diarization error rate with optimal speaker mapping (Hungarian); overlap is scored."""
    from scipy.optimize import linear_sum_assignment

    end = max([e for _, e, _ in (*reference, *hypothesis)], default=0.0)
    n = int(np.ceil(end / step)) + 1
    ref_labels = sorted({s for *_, s in reference})
    hyp_labels = sorted({s for *_, s in hypothesis})
    ref = _frames(reference, ref_labels, n, step)
    hyp = _frames(hypothesis, hyp_labels, n, step)
    scored = np.ones(n, dtype=bool)
    if uem is not None:
        scored[: round(uem[0] / step)] = False
        scored[round(uem[1] / step) :] = False
    if collar > 0:
        c = round(collar / step)
        for s, e, _ in reference:
            for t in (round(s / step), round(e / step)):
                scored[max(0, t - c) : t + c] = False
    ref, hyp = ref[scored], hyp[scored]
    mapped_hits = np.zeros(len(ref), dtype=int)
    if ref_labels and hyp_labels:
        overlap = ref.T.astype(np.int64) @ hyp.astype(np.int64)  # (n_ref, n_hyp) frames in common
        rows, cols = linear_sum_assignment(-overlap)
        for r_i, h_i in zip(rows, cols, strict=True):
            mapped_hits += ref[:, r_i] & hyp[:, h_i]
    n_ref, n_hyp = ref.sum(axis=1), hyp.sum(axis=1)
    total = float(n_ref.sum())
    miss = float(np.maximum(n_ref - n_hyp, 0).sum())
    fa = float(np.maximum(n_hyp - n_ref, 0).sum())
    conf = float((np.minimum(n_ref, n_hyp) - mapped_hits).sum())
    return {
        "der": (miss + fa + conf) / total if total else 0.0,
        "missed": miss / total if total else 0.0,
        "false_alarm": fa / total if total else 0.0,
        "confusion": conf / total if total else 0.0,
        "scored_speech_s": total * step,
    }
