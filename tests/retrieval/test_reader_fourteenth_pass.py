"""The offline reader's rule from the fourteenth pass (4 December, engineer Y): a name written in lower
case or misspelt by a recogniser still names its person. Pure: evidence built in memory, no
embedder. Every question and line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.said import answered, said
from voxmem.retrieval.question import find_people, read_question
from voxmem.retrieval.tools import Hit

GARDEN = [
    {"id": "p_kian", "name": "Kian Doyle"},
    {"id": "p_rhea", "name": "Rhea Sandhu"},
    {"id": "p_tomas", "name": "Tomas Novak"},
    {"id": "p_rosalind", "name": "Rosalind Hale"},
    {"id": "p_akin", "name": "Akin Bello"},  # Kian's consonants, another onset
]


def _named(text: str) -> list[str]:
    return [p["name"] for _, p in find_people(text, GARDEN)]


def test_a_lower_case_or_misheard_name_names_its_person():
    # a recogniser writes names in lower case and drops or swaps a vowel: "kyan" is Kian (not Akin)
    assert _named("who asked kyan to water the tomatoes") == ["Kian Doyle"]
    assert _named("did kyan's sister come by") == ["Kian Doyle"]
    # a short form with a possessive heard without its apostrophe: "toms" is Tomas's
    assert _named("is toms bike fixed yet") == ["Tomas Novak"]
    # a frequent word in lower case is that word, not a short form of a name
    assert _named("who planted the rose bush") == []
    # a frequent word keeps its vowels: "Tim" is not Tomas by sound, nor by any letter dropped
    assert _named("Did Tim fix the bike?") == []


def _said(i: str, text: str, speaker: str, to: list[str]) -> Hit:
    return said(GARDEN, i, text, speaker, to, ts="2026-06-02T18:00:00Z")


def test_who_asked_a_lower_case_name_is_the_one_who_asked_them():
    tomatoes = [
        _said("m1", "Kian, could you water the tomatoes tonight?", "Rhea", ["Kian"]),
        _said("m2", "Sure, I'll water the tomatoes tonight.", "Kian", ["Rhea"]),
        _said("m3", "The hose has a leak near the tap.", "Tomas", ["Rhea"]),
    ]
    question = "who asked kyan to water the tomatoes"
    assert [p["name"] for p in read_question(question, GARDEN).people] == ["Kian Doyle"]
    # Kian said "Sure, I'll …": without his name the one who said the words was answered
    assert answered(question, GARDEN, tomatoes).startswith("Rhea")
