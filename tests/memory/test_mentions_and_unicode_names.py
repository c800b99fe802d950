"""A mention is not an address, and names are keyed Unicode-aware (issue 16, findings 3 and 5).

Hand-written sentences (not the generator's phrasing): a name talked about — in apposition
to a person noun, with its own appositive, or as the subject of the sentence — must not
become a vocative or an addressee; names called out at the edges of a sentence still must.
"""

from __future__ import annotations

import pytest

from voxmem.extractors.naming import plausible_new_name
from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.offline.names import self_names, vocatives
from voxmem.ids import name_key
from voxmem.memory.identity import PersonState, decide

from .helpers import window

EX = OfflineExtractor()

MENTIONS = [
    "Our neighbour, Dave, must never hear about this.",
    "My brother, Tom, will pick us up at noon.",
    "Dave, who lives upstairs, complained about the noise again.",
    "Dave, the plumber, came by this morning.",
    "I ran into my old roommate, Priya.",
    "We should not invite her boss, Karen, to the barbecue.",
    "The landlord, Mr Okafor, says the boiler is fine.",
    "I told our babysitter, Julia, that we would be late.",
    "So anyway, Dave, said he wanted the car back.",  # ASR comma before the verb: still a subject
    "Honestly, Marcus, has no idea what he is doing.",
]

ADDRESSES = [
    ("Dave, can you hear me?", "Dave"),
    ("Could you pass the salt, Dave?", "Dave"),
    ("That one is vegetarian, Leo, your mother will like it.", "Leo"),
    ("Dave, is that you?", "Dave"),
    ("Priya, can everyone see the slides now?", "Priya"),
    ("Marcus, will the two of you be home for dinner?", "Marcus"),
    ("Thanks, Priya.", "Priya"),
    ("Marcus, the kids are home early.", "Marcus"),
    ("Don't worry, Karen, I locked the door.", "Karen"),
]


@pytest.mark.parametrize("text", MENTIONS)
def test_a_name_talked_about_is_not_a_vocative(text):
    assert [v.term for v in vocatives(text, set()) if v.kind == "name"] == []


@pytest.mark.parametrize(("text", "name"), ADDRESSES)
def test_a_name_called_out_is_still_a_vocative(text, name):
    assert name in [v.term for v in vocatives(text, set()) if v.kind == "name"]


def test_mention_of_a_known_person_does_not_address_them():
    # Dave is known in this space (he spoke earlier in the window) but is only talked about now.
    turns = [
        ("dave", "I'll be back at six."),
        ("maya", "Sure."),
        ("maya", "Our neighbour, Dave, must never hear about this."),
    ]
    w = window(turns, names={"dave": "Dave", "maya": "Maya"})
    record = EX.extract(w).record
    assert not any(a.source == "vocative" for a in record.addressees)
    # and nobody gets named "Dave" from it
    assert not any(n.name == "Dave" for n in record.names)


def test_mention_of_an_unknown_person_makes_no_name_addressee():
    w = window([("tom", "What happened?"), ("maya", "Our neighbour, Dave, must never hear about this.")])
    record = EX.extract(w).record
    assert all(a.target != "Dave" for a in record.addressees)


# --- Unicode-aware name keys --------------------------------------------------------------
def test_names_differing_only_in_non_latin_letters_have_different_keys():
    assert name_key("Wei 王") != name_key("Wei 李")
    assert name_key("王伟") != name_key("李伟")


@pytest.mark.parametrize("name", ["Иван", "محمد", "李雷", "Ολγα", "राम"])
def test_all_non_latin_names_have_a_key(name):
    assert name_key(name)


def test_name_key_folds_case_width_accents_and_spacing():
    assert name_key("  José   García ") == name_key("jose garcia")
    assert name_key("ИВАН") == name_key("иван")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("ＡＮＮＡ") == name_key("anna")  # full-width letters (NFKC)
    # a non-Latin letter keeps its diacritics: Й is not И
    assert name_key("Йосиф") != name_key("Иосиф")


@pytest.mark.parametrize("name", ["Иван", "محمد", "李雷", "Wei 王"])
def test_non_latin_names_are_plausible_names(name):
    assert plausible_new_name(name)


@pytest.mark.parametrize("word", ["the", "Okay", "", "  ", "123"])
def test_common_words_and_non_letters_are_not_names(word):
    assert not plausible_new_name(word)


@pytest.mark.parametrize(("text", "name"), [("My name is Иван.", "Иван"), ("I'm 李雷.", "李雷")])
def test_self_introductions_in_other_scripts(text, name):
    assert [s.name for s in self_names(text)] == [name]


def test_identity_rules_keep_wei_wang_and_wei_li_apart():
    wang = PersonState("p1", "Wei 王")
    li = PersonState("p2", None)
    # "Wei 李" introducing themself is a new name, not Wei 王's
    d = decide("Wei 李", "self_intro", False, 0.95, li, holders=[])
    assert d.action == "name"
    assert name_key("Wei 李") not in wang.names()


# --- reactions and interjections are not naming cues ------------------------------------------
@pytest.mark.parametrize("text", ["Shoot!", "Whoa, slow down.", "You're Bonnie?", "Ooh, that looks good."])
def test_interjections_and_contractions_are_not_vocatives(text):
    assert [v.term for v in vocatives(text, set()) if v.kind == "name"] == []


def test_a_reaction_by_name_does_not_name_the_previous_speaker():
    # "Yeah, Susan." turns to Susan, who need not be the one who just spoke.
    record = EX.extract(window([("a", "The car is finally fixed."), ("b", "Yeah, Susan.")])).record
    assert not any(n.name == "Susan" and n.speaker == "S1" for n in record.names)
    thanked = EX.extract(window([("a", "I fixed the car."), ("b", "Thanks, Susan.")])).record
    assert any(n.name == "Susan" and n.speaker == "S1" for n in thanked.names)
