"""The hand-written sets of the sixth reader pass: ``occasions`` (one event on several occasions,
asked by month or season) and ``swaps`` (a question about the wrong person).

Why a test: each set is judged in two parts (``<name>`` may be tuned on, ``<name>-heldout`` is only
ever scored), so the two must not share a question; in ``occasions`` every dated gold must fall in
the month or season its question names, or the set would reward answering the wrong occasion; in
``swaps`` every wrong-person question must have its right-person twin answered, or abstaining on
everything would score."""

from __future__ import annotations

import argparse
import re
from datetime import date
from pathlib import Path

import pytest

from bench import answers_bench
from bench.cases import NOT_MENTIONED, load_case

SEASONS = {"spring": (3, 4, 5), "summer": (6, 7, 8), "autumn": (9, 10, 11), "fall": (9, 10, 11)}
SEASONS["winter"] = (12, 1, 2)
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september"]
MONTHS += ["october", "november", "december"]


def _questions(split: str) -> list:
    args = argparse.Namespace(dataset="paraphrases", split=split, unseen=False)
    ((_name, rows, qas, _roster, _text, case),) = answers_bench.datasets(args)
    assert rows and case is not None
    return qas


@pytest.mark.parametrize("name", ["occasions", "swaps"])
def test_tune_and_heldout_are_disjoint_and_a_third_is_held_out(name: str) -> None:
    tune, held = _questions(name), _questions(f"{name}-heldout")
    assert tune and held
    assert not {q.question.lower() for q in tune} & {q.question.lower() for q in held}
    assert not {q.qa_id for q in tune} & {q.qa_id for q in held}
    assert len(held) * 3 >= len(tune) + len(held)
    assert {q.meta["split"] for q in tune} == {"tune"} and {q.meta["split"] for q in held} == {"heldout"}


def _month_of(gold: str) -> int | None:
    """The month a gold answer dates ("11 October 2025", "weekend before 14 July 2025")."""
    for i, month in enumerate(MONTHS, start=1):
        if month in gold.lower():
            day = re.search(r"(\d{1,2}) " + month, gold.lower())
            if gold.lower().startswith(("weekend before", "week before", "2 weeks before")) and day:
                before = {"weekend before": 2, "week before": 7, "2 weeks before": 14}
                back = next(v for k, v in before.items() if gold.lower().startswith(k))
                ref = date(2025, i, int(day.group(1)))
                return date.fromordinal(ref.toordinal() - back).month
            return i
    return None


def test_every_dated_gold_falls_in_the_month_or_season_asked() -> None:
    for q in _questions("occasions") + _questions("occasions-heldout"):
        text = q.question.lower()
        asked = [i for i, m in enumerate(MONTHS, start=1) if re.search(rf"\b{m}\b", text)]
        asked += [m for s, months in SEASONS.items() if re.search(rf"\b{s}\b", text) for m in months]
        assert asked, q.question  # every question names a month or a season
        if q.answer == NOT_MENTIONED:
            assert q.type == "adversarial"
            continue
        month = _month_of(q.answer)
        assert month in asked, (q.question, q.answer)


def test_most_wrong_person_questions_have_a_right_person_twin() -> None:
    case = load_case(Path(__file__).resolve().parents[2] / "bench" / "paraphrases" / "swaps" / "case.json")
    people = [p.name.lower() for p in case.participants]

    def unnamed(question: str) -> str:
        words = re.findall(r"[a-z]+", question.lower().replace("'s", ""))
        return " ".join("X" if w in people or w in ("his", "her") else w for w in words)

    wrong = [q for q in case.qa if q.type == "adversarial"]
    right = {unnamed(q.question) for q in case.qa if q.type != "adversarial"}
    assert all(q.answer == NOT_MENTIONED for q in wrong)
    assert all(q.answer != NOT_MENTIONED and q.evidence_ids for q in case.qa if q.type != "adversarial")
    twins = [q.question for q in wrong if unnamed(q.question) in right]
    assert len(twins) * 2 >= len(wrong) >= 4, twins
