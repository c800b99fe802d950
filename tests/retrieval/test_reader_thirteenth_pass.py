"""The offline reader's rules from the thirteenth pass (4 December, engineer Y): a who-question is
answered by a person's name. Pure: evidence built in memory, no embedder. Every question and line
here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.said import answered, said
from tests.retrieval.test_reader_generalises import PLUMBER, _ask
from voxmem.retrieval.question import read_question
from voxmem.retrieval.tools import Hit

HOUSE = [
    {"id": "p_nadia", "name": "Nadia Okafor"},
    {"id": "p_tom", "name": "Tom Becker"},
    {"id": "p_ines", "name": "Ines Duarte"},
]


def _said(i: str, text: str, speaker: str, to: list[str]) -> Hit:
    return said(HOUSE, i, text, speaker, to)


def _asked(question: str, hits: list[Hit]) -> str:
    return answered(question, HOUSE, hits)


def test_a_who_question_is_answered_by_the_person_the_line_names():
    # the line tells what someone else did: the one asked for is Tom, by his name in memory
    door = [
        _said(
            "m1",
            "The back door was wide open this morning, Tom had left it unlocked again.",
            "Nadia",
            ["Ines"],
        ),
        _said("m2", "The cat got out too.", "Ines", ["Nadia"]),
        _said("m3", "Sorry about that.", "Tom", ["Nadia"]),  # so memory knows Tom by his full name
    ]
    assert _asked("Who left the back door open?", door) == "Tom Becker"
    assert _asked("who left the back door open", door) == "Tom Becker"  # a recogniser's transcript
    # the speaker telling it in the first person is the likelier doer: the line is quoted
    mine = [_said("m1", "I left the back door open this morning, Tom saw it.", "Nadia", ["Tom"])]
    assert _asked("Who left the back door open?", mine).startswith("Nadia Okafor:")
    # a name that only addresses its bearer names the listener, not the doer
    told = [_said("m1", "Tom, the back door was left open all morning.", "Nadia", ["Tom"])]
    assert _asked("Who left the back door open?", told).startswith("Nadia Okafor:")
    # two people named: which one did it is not read, the line is quoted
    both = [_said("m1", "The back door was left open this morning by Tom or Ines.", "Nadia", ["Tom", "Ines"])]
    assert _asked("Who left the back door open?", both).startswith("Nadia Okafor:")
    # the question's own people are never the answer: Ines is named by the question, Tom is asked for
    seen = [
        _said("m1", "Ines was startled to see Tom climb in through the kitchen window.", "Nadia", ["Tom"]),
        _said("m2", "He forgot his keys again.", "Ines", ["Nadia"]),
    ]
    assert _asked("Who startled Ines by climbing in through the kitchen window?", seen) == "Tom Becker"


def test_whose_idea_or_request_was_it_asks_who_suggested_or_requested_it():
    r = read_question("Whose request was it that Peter call the plumber?", [])
    assert (r.kind, r.act) == ("who_said", "request")
    r = read_question("Whose idea was it to go camping in July?", [])
    assert (r.kind, r.act) == ("who_said", "say")
    assert read_question("Whose bike has a flat tyre?", []).kind == "general"  # a possessive, not an act
    # Peter accepted the request: the one who made it is Sophie, not the one who said "Sure, I'll …"
    assert _ask("Whose request was it that Peter call the plumber?", PLUMBER).answer == "Sophie"
