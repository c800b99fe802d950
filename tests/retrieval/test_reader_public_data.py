"""The offline reader's rules from the 2 December second pass on public data (engineer Y): the
teller of a question ("How did Peter tell Sophie to …?"), a listener's name counting as present in
a turn spoken to them, framing words that are no keywords. Pure: evidence built in memory. Every
question and line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.test_reader_generalises import PEOPLE, _ask, _hit
from voxmem.retrieval.question import read_question


def test_the_subject_of_a_verb_of_saying_is_the_teller():
    assert read_question("How did Peter tell Sophie to fix the tap?", PEOPLE).teller["name"] == "Peter"
    assert read_question("What book does Caroline recommend to Leo?", PEOPLE).teller["name"] == "Caroline"
    assert read_question("Where did Sophie say Leo left the keys?", PEOPLE).teller["name"] == "Sophie"
    # a pronoun is the one person the question names
    said = read_question("When Peter lists his chores, what does he say is left?", PEOPLE)
    assert said.teller["name"] == "Peter"
    # "according to" names the teller outright
    assert read_question("Why is the printer broken according to Leo?", PEOPLE).teller["name"] == "Leo"
    # no verb of saying: no teller
    assert read_question("What did Peter fix in the kitchen?", PEOPLE).teller is None


def test_negated_auxiliaries_and_according_to_are_no_keywords():
    reading = read_question("Why doesn't the printer work according to Leo?", PEOPLE)
    assert "doesn" not in reading.keywords and "according" not in reading.keywords
    assert {"printer", "work"} <= set(reading.keywords)


def test_a_question_naming_a_teller_is_answered_by_the_tellers_words():
    hits = [
        _hit("m1", "The tap keeps dripping and I cannot fix the tap.", "Sophie", ["Peter"]),
        _hit("m2", "Fix it by tightening the valve under the sink.", "Peter", ["Sophie"]),
    ]
    answer = _ask("How did Peter tell Sophie to fix the tap?", hits)
    assert "valve" in answer.answer, answer.answer


def test_the_tellers_turn_is_looked_for_below_the_first_ten():
    hits = [_hit(f"m{i}", f"The tap in room {i} keeps dripping.", "Sophie", ["Peter"]) for i in range(11)]
    hits.append(_hit("m11", "Tighten the valve under the sink to stop the tap.", "Peter", ["Sophie"]))
    answer = _ask("How did Peter tell Sophie to stop the tap?", hits)
    assert "valve" in answer.answer, answer.answer


def test_the_listeners_name_counts_as_said_in_a_turn_spoken_to_them():
    hits = [
        _hit("m1", "I will cook pasta tonight.", "Sophie", ["Leo"]),
        _hit("m2", "I will cook risotto tonight.", "Sophie", ["Peter"]),
    ]
    answer = _ask("Which dish did Sophie cook for Peter?", hits)
    assert "risotto" in answer.answer, answer.answer
