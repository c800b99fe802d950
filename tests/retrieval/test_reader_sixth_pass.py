"""The offline reader's rules from the 3 December sixth pass (engineer Y): a when-question naming a
month or a season picks the occasion told in it. Pure: evidence built in memory, no embedder.
Every question and line here is made up for the rule it tests."""

from __future__ import annotations

from datetime import date

from tests.retrieval.test_reader_generalises import _ask, _hit
from voxmem.retrieval.answer import NOT_IN_MEMORY
from voxmem.retrieval.spans import told_months
from voxmem.retrieval.when import asked_months

# Sophie goes to the lake three times: a plan told in March, a swim in June, another in September
LAKE = [
    _hit(
        "m1",
        "We're planning to swim in the lake in June, once it warms up.",
        "Sophie",
        ["Leo"],
        "2026-03-08T10:00:00Z",
    ),
    _hit(
        "m2",
        "I swam in the lake yesterday, it was still freezing.",
        "Sophie",
        ["Leo"],
        "2026-06-14T10:00:00Z",
    ),
    _hit(
        "m3",
        "Another swim in the lake this morning, the water was perfect.",
        "Sophie",
        ["Peter"],
        "2026-09-20T10:00:00Z",
    ),
]


def test_the_month_or_season_a_question_names():
    assert asked_months("When did Sophie swim in the lake in June?") == {6}
    assert asked_months("When did Leo go skiing during the winter?") == {12, 1, 2}
    assert asked_months("When did Leo go skiing in winter?") == {12, 1, 2}
    # before a noun a season is as often a kind of thing as a time
    assert asked_months("When did Leo buy the summer tyres?") == frozenset()
    assert asked_months("When did Leo go hiking in the fall?") == {9, 10, 11}
    assert asked_months("When did Leo fall off his bike?") == frozenset()  # the verb
    assert asked_months("When may Leo come over?") == frozenset()  # the verb
    assert asked_months("When did Leo move in May 2025?") == {5}
    # a day of a month is a reference day ("before 5 July"), not the occasion's month
    assert asked_months("When did Leo call, before or after 5 July 2025?") == frozenset()


def test_the_months_a_turn_tells_read_against_the_day_it_was_said():
    sunday = date(2026, 6, 14)
    assert told_months("I swam yesterday", sunday, past=True) == {6}
    assert told_months("We went last weekend", date(2026, 7, 6), past=True) == {7}  # Sat 4 July
    assert told_months("It was two weeks ago", date(2026, 10, 5), past=True) == {9}
    assert told_months("I went in May, then again on 3 August", date(2026, 9, 1), past=True) == {5, 8}
    # asked when something happened, a time still ahead is a plan: no occasion at all
    assert told_months("We'll go in July", date(2026, 3, 8), past=True) == frozenset()
    assert told_months("We'll go next month", date(2026, 3, 8), past=False) == {4}
    assert told_months("Nothing dated here.", sunday) is None


def test_a_when_question_naming_a_month_takes_the_occasion_in_it():
    # the plan told in March names June, the swims share every word: only the month tells them apart
    assert "13 June 2026" in _ask("When did Sophie swim in the lake in June?", LAKE).answer
    assert "20 September 2026" in _ask("When did Sophie swim in the lake in September?", LAKE).answer
    # a season is its months; an undated turn counts by the day it was said
    assert "20 September 2026" in _ask("When did Sophie swim in the lake in the autumn?", LAKE).answer
    # no occasion in the month asked: not the plan told in it, not another month's swim
    assert _ask("When did Sophie swim in the lake in March?", LAKE).answer == NOT_IN_MEMORY
    # no month named: the reader reads as before (some swim, not an abstention)
    assert _ask("When did Sophie swim in the lake?", LAKE).answer != NOT_IN_MEMORY


def test_your_thing_said_to_a_listener_the_question_names_is_the_thing_asked_about():
    ladder = [_hit("m1", "I borrowed your ladder on Saturday to fix the gutter.", "Peter", ["Leo"])]
    # the question names Leo as the ladder's owner: Peter's "your ladder" to Leo is it
    assert "Saturday" in _ask("When did Peter borrow Leo's ladder?", ladder).answer
    # asked of Peter's own things, "your garden" to Leo is still Leo's, not Peter's
    garden = [_hit("m2", "Your garden looks great, all those roses!", "Peter", ["Leo"])]
    assert _ask("How is Peter's garden doing?", garden).answer == NOT_IN_MEMORY
