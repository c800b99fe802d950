"""bench.round2_predictor (issue 12): the features of round 1's outcome on a hand-made state, and the
fit side's cross-validated pick on synthetic rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from bench import round2_predictor as R
from voxmem.retrieval.agent import AgentState
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence, Hit

MAYA, TOM = {"id": "p_maya", "name": "Maya"}, {"id": "p_tom", "name": "Tom"}


def _ev(i: str, text: str, speaker: dict[str, Any]) -> Evidence:
    return Evidence(id=i, session=f"s{i}", idx=0, text=text, ts=None, speaker=speaker)


def _state(texts: dict[str, tuple[str, dict[str, Any]]], rankings: dict[str, list[str]]) -> AgentState:
    question = "What did Maya say about the telescope?"
    state = AgentState(
        query=question,
        scope=AccessScope(space="s", access_policy="open"),
        reading=read_question(question, [MAYA, TOM], None),
        participants=[MAYA, TOM],
        budgets=[30, 8, 5],
        max_rounds=3,
    )
    for n, (i, (text, who)) in enumerate(texts.items()):
        state.retained[i] = FusedEvidence(_ev(i, text, who), score=1.0 / (n + 1), tools=["message_vector"])
    for n, (tool, ids) in enumerate(rankings.items()):
        hits = [
            Hit("interaction", tool, i, i, 10.0 - k, [_ev(i, texts[i][0], texts[i][1])])
            for k, i in enumerate(ids)
        ]
        state.last_hits[f"1:{tool}:{n}"] = hits
    return state


TEXTS = {
    "a": ("the telescope arrived today", MAYA),
    "b": ("dinner at eight", TOM),
    "c": ("I love the stars", MAYA),
    "d": ("see you soon", TOM),
    "e": ("the weather is fine", TOM),
    "x": ("what a day", TOM),
}


def test_channel_agreement_people_and_rare_words_are_read_from_round_1() -> None:
    state = _state(
        TEXTS,
        {
            "message_vector": ["a", "b", "c", "d", "e"],
            "message_fulltext": ["a", "x", "b", "d", "e"],
            "message_sparse": ["a", "b", "c", "d", "e"],
        },
    )
    f = R.state_features(state, {"telescope": 5.0, "say": 0.5, "stars": 3.0}, [])
    assert f["jaccard5:message_vector:message_sparse"] == 1.0
    assert f["jaccard5:message_vector:message_fulltext"] == 4 / 6
    assert f["message_fulltext:top_in_fused_top3"] == 1.0
    assert f["message_vector:margin_1_2"] == 0.1  # scores 10, 9: (10 - 9) / 10
    assert f["top10_by_first_person"] == 2 / 6 and f["top1_by_first_person"] == 1.0
    assert f["rarest_word_in_top5"] == 1.0 and f["rarest_missing_word_idf"] == 0.0


def test_a_rare_word_missing_from_the_retained_lines_and_a_top_turn_by_someone_else() -> None:
    texts = {k: v for k, v in TEXTS.items() if k != "a"}
    state = _state(texts, {"message_vector": ["b", "c"], "message_fulltext": ["x", "d"]})
    f = R.state_features(state, {"telescope": 5.0, "say": 0.5, "stars": 3.0}, [])
    assert f["message_sparse:ran"] == 0.0 and f["jaccard5:message_vector:message_fulltext"] == 0.0
    assert f["top1_by_first_person"] == 0.0
    assert f["rarest_word_in_top10"] == 0.0 and f["rarest_missing_word_idf"] == 1.0


def _rows(n: int, informative: bool, seed: int = 0) -> list[dict[str, Any]]:
    """Synthetic fit rows: 10 candidates per question; candidate 3 raises recall when the state's
    first feature is 1 (informative) or at random (not)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        on = float(rng.integers(0, 2))
        good = (
            (3 if on else None) if informative else (int(rng.integers(0, 10)) if rng.random() < 0.5 else None)
        )
        labels = {i: (1.0 if i == good else 0.5, int(i == good)) for i in range(10)}
        rows.append(
            {
                "s": [on, float(rng.random())],
                "a": [[float(i == j) for j in range(10)] for i in range(10)],
                "cands": list(range(10)),
                "base": 0.5,
                "labels": labels,
            }
        )
    return rows


def test_the_cross_validated_pick_finds_an_action_the_state_predicts_and_abstains_otherwise() -> None:
    tau, cv = R.cv_threshold(_rows(80, informative=True), use_state=True, target="r10")
    raised, possible = cv["cv_top_pick_raises_where_possible"]
    assert possible > 25 and raised == possible and cv["cv_gain_at_tau"] > 0.2 and tau <= 1.0
    _, cv = R.cv_threshold(_rows(80, informative=False), use_state=True, target="r10")
    assert cv["cv_gain_at_tau"] < 0.1
