"""The hand-written occasions set: one event on several occasions, asked by month or season.

Why a test: the set is judged in two parts (``occasions`` may be tuned on, ``occasions-heldout`` is
only ever scored), so the two must not share a question, and every dated gold must fall in the
month or season its question names, or the set would reward answering the wrong occasion."""

from __future__ import annotations

import argparse
import re
from datetime import date

from bench import answers_bench
from bench.cases import NOT_MENTIONED

SEASONS = {"spring": (3, 4, 5), "summer": (6, 7, 8), "autumn": (9, 10, 11), "fall": (9, 10, 11)}
SEASONS["winter"] = (12, 1, 2)
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september"]
MONTHS += ["october", "november", "december"]


def _questions(split: str) -> list:
    args = argparse.Namespace(dataset="paraphrases", split=split, unseen=False)
    ((_name, rows, qas, _roster, _text, case),) = answers_bench.datasets(args)
    assert rows and case is not None
    return qas


def test_tune_and_heldout_are_disjoint_and_a_third_is_held_out() -> None:
    tune, held = _questions("occasions"), _questions("occasions-heldout")
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
