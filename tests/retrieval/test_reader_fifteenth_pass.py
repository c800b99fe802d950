"""The offline reader's rules from the fifteenth pass (4 December, engineer Y): a stage direction
(a turn wholly in brackets, under a narrator's label such as FriendsQA's "#NOTE#") is never quoted
as someone's words, and the person it names is who did what it tells. Pure: evidence built in
memory, no embedder. Every line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.said import answered, said
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
