"""``answers_bench --unseen``: the questions a ``--sample`` run does not read, cached apart."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench import answers_bench
from bench.cases import load_case, sample_questions

CASES = Path(__file__).resolve().parents[2] / "bench" / "cases"


def test_unseen_questions_are_exactly_the_ones_the_sample_leaves_out() -> None:
    case = load_case(CASES / "household.json")
    n = len(case.qa) // 3
    seen = [q.qa_id for q in sample_questions(case, n).qa]
    unseen = [q.qa_id for q in answers_bench.unseen_questions(case, n).qa]
    assert len(seen) == n and unseen
    assert not set(seen) & set(unseen)
    assert sorted(seen + unseen) == sorted(q.qa_id for q in case.qa)
    assert unseen == [q.qa_id for q in case.qa if q.qa_id not in set(seen)]  # the case's order
    assert not answers_bench.unseen_questions(case, len(case.qa)).qa  # a sample of all leaves none


def test_every_sampled_list_has_its_complement_too() -> None:
    qas = load_case(CASES / "household.json").qa
    seen = {q.qa_id for q in answers_bench._sampled(qas, 5, unseen=False)}
    unseen = {q.qa_id for q in answers_bench._sampled(qas, 5, unseen=True)}
    assert len(seen) == 5 and not seen & unseen and seen | unseen == {q.qa_id for q in qas}


def test_unseen_locomo_conversations_get_their_own_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # The evidence cache is keyed by the conversation's key; a cache lacking a question is
    # retrieved anew as a whole, so the unseen questions under the sample's key would replace
    # the sample's evidence.
    case = load_case(CASES / "household.json").model_copy(update={"case_id": "locomo-conv-26"})
    monkeypatch.setattr(answers_bench, "load_locomo", lambda path: [case])
    args = argparse.Namespace(dataset="locomo", split="dev", sample=4, locomo="x", unseen=False)
    (sample,) = answers_bench.datasets(args)
    (unseen,) = answers_bench.datasets(argparse.Namespace(**{**vars(args), "unseen": True}))
    assert sample[0] == "locomo-conv-26" and unseen[0] == "locomo-conv-26-unseen"
    assert len(sample[2]) == 4 and len(unseen[2]) == len(case.qa) - 4
    assert not {q.qa_id for q in sample[2]} & {q.qa_id for q in unseen[2]}


def test_unseen_without_a_sample_is_refused() -> None:
    with pytest.raises(SystemExit):
        answers_bench.main(["--dataset", "locomo", "--split", "dev", "--unseen"])
