"""Public lexicons as evidence against a new name (issue 11, item 4: a wrong name is worse than none).

A frequent English word or a place that is no given name, said where a call would be, must not
become a name-only person or a vote ("Umbrella, check!"); names that are also words or places
(Hope, Mark, Austin, Florence) and names the lists do not cover (any language, any script) must
stay nameable. The sentences are hand-written; none is from FriendsQA, the demo or the generator
(docs/memory.md, "Naming precision: public lexicons and corrections, 2 December").
"""

from __future__ import annotations

import pytest

from voxmem.extractors.name_lexicon import not_a_name
from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.offline.names import vocatives
from voxmem.extractors.window import window_from_rows
from voxmem.memory.identity import PersonState, decide

from .helpers import SESSION_DATE


@pytest.mark.parametrize(
    "text, word",
    [
        ("Umbrella, check! Tickets, check!", "Umbrella"),
        ("Pizza, dude!", "Pizza"),
        ("Cheese, anyone?", "Cheese"),
        ("Homework, now!", "Homework"),
        ("Good night, Rotterdam!", "Rotterdam"),
        ("Hello, Bratislava!", "Bratislava"),
        ("Spaghetti Bolognese?", "Spaghetti Bolognese"),
    ],
)
def test_a_frequent_word_or_a_place_that_is_no_given_name_calls_nobody(text, word):
    assert not_a_name(word)
    assert [v.term for v in vocatives(text, set())] == []


@pytest.mark.parametrize(
    "text, name",
    [
        ("Hope, can you pass the salt?", "Hope"),
        ("Mark, come here.", "Mark"),
        ("Thanks, Grace.", "Grace"),
        ("Austin, your turn.", "Austin"),
        ("Florence, are you coming?", "Florence"),
        ("Paris, wait for me!", "Paris"),
        ("Oluwaseun, can you help?", "Oluwaseun"),
        ("Priya, did you call?", "Priya"),
        ("Xiaoming, your tea is ready.", "Xiaoming"),
        ("Siobhan, hold on.", "Siobhan"),
        ("Thanks, Nguyen.", "Nguyen"),
        ("José, come in.", "José"),
        ("Jean-Luc, look at this.", "Jean-Luc"),
        ("Иван, иди сюда.", "Иван"),
        ("Thanks, 李雷.", "李雷"),
    ],
)
def test_given_names_that_are_words_or_places_and_names_of_any_language_stay(text, name):
    """The given-name records rescue a word that is a name; other scripts and spellings with a
    hyphen are never questioned."""
    assert not_a_name(name) is None
    assert [v.term for v in vocatives(text, set())] == [name]


def test_a_known_name_is_never_questioned():
    """Seo is a frequent English token (SEO) and no name in the US records: once a person bears
    it (they said "my name is Seo"), a call by it is a call."""
    assert not_a_name("Seo")
    assert vocatives("Seo, are you ready?", set()) == []
    assert [v.term for v in vocatives("Seo, are you ready?", {"seo"})] == ["Seo"]


def test_a_name_the_asr_was_told_to_expect_is_a_name():
    """A spoken turn's vocabulary (the client's name hints) overrides the lexicons."""
    rows = [
        {
            "id": "m0",
            "idx": 0,
            "text": "Seo, can you take the bags?",
            "ts": SESSION_DATE,
            "speaker": {"id": "spk_a", "name": None, "aliases": []},
            "vocabulary": ["Seo"],
        }
    ]
    record = OfflineExtractor().extract(window_from_rows(rows, [], "s1", SESSION_DATE)).record
    assert [a.target for a in record.addressees if a.source == "vocative"] == ["Seo"]


@pytest.mark.parametrize("kind, confidence", [("addressed", 0.7), ("addressed", 0.3), ("thanks", 0.75)])
def test_identity_takes_no_vote_for_a_common_word_whatever_backend_heard_it(kind, confidence):
    """An LLM record may carry "Umbrella" as the name a voice answered to."""
    voice = PersonState("p_v", None, [], [], True, None)
    assert decide("Umbrella", kind, False, confidence, voice, [], "mon").action == "none"


def test_a_name_a_person_gives_themself_is_not_questioned():
    """No list covers every language: "my name is Seo" names the voice."""
    voice = PersonState("p_v", None, [], [], True, None)
    assert decide("Seo", "self_intro", False, 0.95, voice, [], "mon").action == "name"
