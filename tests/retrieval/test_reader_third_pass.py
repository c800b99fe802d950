"""The offline reader's rules from the 2 December third pass on public data (engineer Y): the
question's words said in another form or another word of the same sense; what someone did on an
event (their next turn); a why-question's reason; names with brackets. Pure: evidence built in
memory, a stand-in word embedder. Every question and line here is made up for the rule it tests."""

from __future__ import annotations

import zlib

import numpy as np

from tests.retrieval.test_reader_generalises import PEOPLE, _ask, _hit
from voxmem.retrieval.answer import NearWords, WordVectors
from voxmem.retrieval.question import find_people, read_question


class _Senses:
    """A stand-in embedder: words of one sense share a dimension; any other text is a fixed
    pseudo-random direction of its own (cosines near 0, as unrelated sentences are)."""

    senses = ({"purchase", "bought", "buy"}, {"paris", "rome"}, {"sofa", "couch"})
    dim = 64

    def __call__(self, text: str) -> list[float]:
        word = text.strip(".,?!").lower()
        for i, sense in enumerate(self.senses):
            if word in sense:
                return [float(j == i) for j in range(self.dim)]
        rng = np.random.default_rng(zlib.crc32(text.encode()))
        return list(rng.normal(size=self.dim))


def test_a_word_of_the_same_sense_counts_as_the_questions_word():
    near = NearWords(["purchase"], WordVectors(_Senses()))
    assert near.held("purchase", ["bought", "green"]) == 1.0
    assert near.held("purchase", ["painting", "green"]) == 0.0
    assert NearWords(["purchase"], WordVectors()).held("purchase", ["bought"]) == 0.0  # no embedder
    hits = [
        _hit("m1", "The flat needs painting.", "Sophie"),
        _hit("m2", "I bought a green velvet sofa for the flat.", "Sophie"),
    ]
    answer = _ask("What did Sophie purchase for the flat?", hits, embed=_Senses())
    assert "velvet" in answer.answer, answer.answer


def test_a_name_the_question_gives_is_not_matched_by_another_name():
    hits = [
        _hit("m1", "The flat needs painting.", "Sophie"),
        _hit("m2", "I bought a lamp in Rome for the flat.", "Sophie"),
    ]
    # "Paris" and "Rome" share a sense for the stand-in embedder, as places do for MiniLM
    answer = _ask("What did Sophie get in Paris for the flat?", hits, embed=_Senses())
    assert "Rome" not in answer.answer, answer.answer


def test_what_someone_did_on_an_event_is_read_with_the_event_and_the_doer():
    reading = read_question("What did Peter do when Sophie told him the boiler broke?", PEOPLE)
    assert reading.event == "Sophie told him the boiler broke" and reading.doer["name"] == "Peter"
    reading = read_question("How did Leo react after the landlord called?", PEOPLE)
    assert reading.event == "the landlord called" and reading.doer["name"] == "Leo"
    # a state, not an event: told in the same turn
    assert read_question("What did Leo do when he was in Rome?", PEOPLE).event is None


def test_what_someone_did_on_an_event_is_their_next_turn():
    hits = [
        _hit("m1", "The boiler broke again this morning, no hot water at all.", "Sophie", ["Peter"]),
        _hit("m2", "Oh no, not again.", "Leo", ["Sophie"]),
        _hit("m3", "I phoned the repair service straight away.", "Peter", ["Sophie"]),
        _hit("m7", "The repair service is expensive.", "Peter", ["Leo"]),
    ]
    answer = _ask("What did Peter do when the boiler broke?", hits)
    assert "phoned" in answer.answer, answer.answer


_REASONS = [
    (
        "Why does Leo take the stairs?",
        [
            _hit("m1", "I always take the stairs, never the lift.", "Leo", ["Sophie"]),
            _hit("m2", "Nice, the lift is slow anyway.", "Sophie", ["Leo"]),
            _hit("m9", "I take the stairs because I got stuck in a lift as a kid.", "Leo", ["Peter"]),
        ],
        "stuck",
    ),
    (
        "What made Caroline quit the choir?",
        [
            _hit("m1", "I quit the choir last spring.", "Caroline", ["Leo"]),
            _hit(
                "m5", "The choir rehearsals clashed with my night shifts, so that's why I quit.", "Caroline"
            ),
        ],
        "night shifts",
    ),
    (
        "How does Peter explain why he sleeps on the left side of the bed?",
        [
            _hit(
                "m1",
                "So, about the flat. I have to sleep on the left side of the bed, I always have. Sounds "
                "silly, I know. It's because the window is on that side and I need the air at night. "
                "Anyway, how was your weekend, did you get to the market in the end or not?",
                "Peter",
                ["Sophie"],
            ),
        ],
        "window",
    ),
]


def test_a_why_question_is_answered_by_the_reason():
    for question, hits, reason in _REASONS:
        answer = _ask(question, hits)
        assert reason in answer.answer, (question, answer.answer)


def test_a_reason_told_a_turn_later_is_added_and_a_reason_for_something_else_is_not():
    hits = [
        _hit("m1", "I stopped cycling to work in March.", "Sophie", ["Peter"]),
        _hit("m2", "Really? You loved it.", "Peter", ["Sophie"]),
        _hit("m3", "The new road works made it too dangerous, that's why.", "Sophie", ["Peter"]),
    ]
    answer = _ask("How come Sophie stopped cycling to work?", hits)
    assert "road works" in answer.answer and answer.used == ["m1", "m3"], answer.answer
    hits = [
        _hit("m1", "I painted the kitchen yellow, it makes mornings feel sunny.", "Caroline", ["Leo"]),
        _hit("m3", "I skipped the gym because my knee hurts.", "Caroline", ["Leo"]),
    ]
    answer = _ask("Why did Caroline paint the kitchen yellow?", hits)
    assert "sunny" in answer.answer and "knee" not in answer.answer, answer.answer


def test_a_name_with_brackets_or_braces_is_found_in_a_question():
    people = [{"id": "p_z", "name": "{Zed}"}, {"id": "p_m", "name": "m[a]rk"}, {"id": "p_l", "name": "lina"}]
    assert [p["name"] for _, p in find_people("What did {Zed} tell lina to install?", people)] == [
        "{Zed}",
        "lina",
    ]
    assert read_question("Which driver does M[a]rk suggest?", people).teller["name"] == "m[a]rk"
