"""The offline reader's rules from the fifteenth pass (4 December, engineer Y): a stage direction
(a turn wholly in brackets, under a narrator's label such as FriendsQA's "#NOTE#") is never quoted
as someone's words, and the person it names is who did what it tells; a name that is also a frequent
English word ("dan", "mark") names its person where a question puts a name. Pure: evidence built in
memory, no embedder. Every line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.said import answered, said
from voxmem.retrieval.question import find_people
from voxmem.retrieval.text import narration
from voxmem.retrieval.tools import Hit

FLAT = [
    {"id": "p_nadia", "name": "Nadia Okafor"},
    {"id": "p_oskar", "name": "Oskar Lind"},
    {"id": "p_priya", "name": "Priya Raman"},
    {"id": "p_bruno", "name": "Bruno Costa"},
    {"id": "p_note", "name": "#NOTE#"},  # a transcript's narrator label, as FriendsQA writes it
]


def _said(i: str, text: str, speaker: str, to: list[str] | None = None) -> Hit:
    return said(FLAT, i, text, speaker, to or [], ts="2026-03-14T20:00:00Z")


def _evening() -> list[Hit]:
    return [
        _said("m0", "[ Scene : Nadia 's kitchen . Oskar and Nadia are washing up . ]", "#NOTE#"),
        _said("m1", "Oskar , the big pan goes on the left .", "Nadia", ["Oskar"]),
        _said("m2", "I know where the pan goes .", "Oskar", ["Nadia"]),
        _said("m3", "( Priya tells Oskar to leave the kitchen . )", "#NOTE#"),
        _said("m4", "Can we talk about the rent later ?", "Priya", ["Nadia"]),
        _said("m5", "( We see Nadia and Bruno dancing in the hallway . )", "#NOTE#"),
        _said("m6", "Nice moves , Bruno !", "Priya", ["Bruno"]),
        _said("m7", "The hallway is the only room with space .", "Bruno", ["Priya"]),
    ]


def test_a_turn_wholly_in_brackets_is_a_stage_direction():
    assert narration("[ Scene : Nadia 's kitchen . Oskar and Nadia are washing up . ]")
    assert narration("( Priya leaves .")  # opened, never closed: still the transcript's voice
    assert narration("[laughs]")
    # a direction inside speech, or words around brackets, is speech
    assert not narration("( to Oskar ) Hand me the towel .")
    assert not narration("I said (twice) that the pan goes left .")


def test_a_stage_direction_is_never_quoted_as_someone_s_words():
    answer = answered("Where are Oskar and Nadia washing up?", FLAT, _evening())
    assert answer.startswith("(stage direction) [ Scene : Nadia 's kitchen")
    assert "#NOTE#" not in answer


def test_who_did_what_a_stage_direction_tells_is_the_person_it_names():
    evening = _evening()
    # its label said nothing: the one who told Oskar to leave is the one the direction names
    assert answered("Who told Oskar to leave the kitchen?", FLAT, evening) == "Priya Raman"


def test_the_viewer_s_we_in_a_stage_direction_is_no_first_person():
    evening = _evening()
    # the viewer's "we" is no first person: Nadia is the one dancing with Bruno
    assert answered("Who was Bruno dancing with in the hallway?", FLAT, evening) == "Nadia Okafor"


CAR = [
    {"id": "p_daniel", "name": "Daniel Reyes"},
    {"id": "p_markus", "name": "Markus Berg"},
    {"id": "p_ines", "name": "Ines Prado"},
    {"id": "p_richard", "name": "Richard Okoye"},
]


def _named(text: str) -> list[str]:
    return [p["name"] for _, p in find_people(text, CAR)]


def test_a_frequent_word_in_a_name_s_place_is_the_name():
    # "dan" and "mark" are frequent English words; where a question puts its subject or an owner
    # they are the short forms of the people taking part
    assert _named("does dan want the window or the aisle") == ["Daniel Reyes"]
    assert _named("what seat did mark book") == ["Markus Berg"]
    assert _named("is dan's coffee the one with oat milk") == ["Daniel Reyes"]
    # where the word goes, it is the word
    assert _named("I did mark it on the map") == []
    assert _named("what is on the mark's edge") == []
    assert _named("mark the exit on the map") == []
    # a short form begins the name: "hard" inside "Richard" is the word
    assert _named("which is hard to find") == []


def test_a_question_about_dan_in_lower_case_reads_daniel_s_turns():
    window = "Whenever we travel I want the window seat, please remember that."
    trip = [
        said(CAR, "m1", window, "Daniel", ["Ines"]),
        said(CAR, "m2", "I'll take whatever is left, I sleep anyway.", "Markus", ["Ines"]),
        said(CAR, "m3", "Noted, I'll book the seats tonight.", "Ines", ["Daniel", "Markus"]),
    ]
    # without Daniel found the question is about nobody: a bare "Yes" (73e1a21, a6f8b97)
    assert "Daniel Reyes: Whenever we travel I want the window seat" in answered(
        "does dan want the window or the aisle", CAR, trip
    )
