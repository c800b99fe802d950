"""Unit tests of the deterministic extractor on crafted dialogues (no database, no model)."""

from __future__ import annotations

from datetime import date

import pytest

from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.offline.facts import rewrite, slot_of
from voxmem.extractors.offline.temporal import normalise_times
from voxmem.extractors.schema import TurnExtraction

from .helpers import SESSION_DATE, window

EX = OfflineExtractor()


def run(turns, names=None, roster=None) -> TurnExtraction:
    return EX.extract(window(turns, names, roster=roster)).record


def names_of(record: TurnExtraction) -> dict[str, tuple[str, str]]:
    return {n.name: (n.speaker, n.kind) for n in record.names}


# --- names --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Hi, I'm Maya.",
        "My name is Maya and I'm new here.",
        "Hello, this is Maya speaking.",
        "It's Maya here.",
    ],
)
def test_self_introductions_name_the_speaker(text):
    record = run([("a", text)])
    assert names_of(record)["Maya"] == ("S1", "self_intro")


def test_im_plus_common_word_is_not_a_name():
    assert run([("a", "I'm Tired of this traffic.")]).names == []
    assert run([("a", "I'm going home now.")]).names == []


def test_call_me_is_an_alias_and_correction_is_flagged():
    record = run([("a", "Please call me Kate.")])
    assert record.names[0].name == "Kate" and record.names[0].alias
    record = run([("a", "Sorry, it's Katherine, not Kathy.")])
    assert names_of(record)["Katherine"] == ("S1", "correction")


def test_thanks_vocative_names_the_previous_speaker():
    record = run([("a", "Your room is ready."), ("b", "Thanks, Tom.")])
    assert names_of(record)["Tom"] == ("S1", "addressed")


def test_question_by_name_names_the_one_who_answers_next():
    record = run([("a", "Tom, are you coming tonight?"), ("b", "Yes, I'll be there at eight.")])
    assert names_of(record)["Tom"] == ("S2", "addressed")


def test_kinship_vocative_is_an_alias_and_a_relationship():
    record = run([("a", "We're almost home."), ("b", "Thanks, Dad.")])
    dad = next(n for n in record.names if n.name.lower() == "dad")
    assert (dad.speaker, dad.kind, dad.alias) == ("S1", "kinship", True)
    assert any(a.kind == "relationship" and "dad" in a.text for a in record.attributes)


def test_nickname_prefix_of_known_name_becomes_alias():
    record = run(
        [("c", "Good morning."), ("m", "Hey Mel! Good to see you.")], names={"c": "Caroline", "m": "Melanie"}
    )
    # Melanie speaks and addresses "Mel": the other known person is Caroline, so no alias for the speaker
    assert all(n.speaker != "S2" for n in record.names)


# --- addressees ---------------------------------------------------------------------------
def test_vocative_addresses_known_participant():
    record = run(
        [("t", "I parked the car."), ("a", "Maya, where did you put the keys?")],
        names={"t": "Tom", "a": "Anna", "m": "Maya"},
        roster=["t", "a", "m"],
    )
    assert [(a.target, a.source) for a in record.addressees] == [("S3", "vocative")]


def test_group_address():
    record = run([("a", "Hi all, how's everybody doing?")], names={"a": "Sophie"})
    assert [a.target for a in record.addressees] == ["group"]


def test_reply_to_question_addresses_asker():
    record = run(
        [("t", "Did you book the table?"), ("a", "Yes, for seven.")], names={"t": "Tom", "a": "Anna"}
    )
    assert [(a.target, a.source) for a in record.addressees] == [("S1", "reply")]


def test_reply_to_the_one_who_called_us_beats_the_last_speaker():
    record = run(
        [("t", "Anna, did you feed the cat?"), ("b", "The post just arrived."), ("a", "Yes, this morning.")],
        names={"t": "Tom", "a": "Anna", "b": "Ben"},
    )
    assert record.addressees[0].target == "S1"


def test_first_turn_without_cue_has_no_addressee():
    assert run([("a", "The weather is lovely today.")]).addressees == []


def test_given_addressees_suppress_inference():
    w = window([("t", "Good night."), ("a", "Night, Tom.")], names={"t": "Tom", "a": "Anna"})
    w.current.given_addressees = ["S1"]
    assert EX.extract(w).record.addressees == []


# --- facts and attributes ------------------------------------------------------------------
def test_first_and_second_person_resolved_to_names():
    assert rewrite("I love hiking with my dog.", "Maya", None) == "Maya loves hiking with Maya's dog."
    assert rewrite("You're in room 412.", "Tom", "Maya") == "Maya is in room 412."
    assert (
        rewrite("I went there and I have two kids.", "Maya", None) == "Maya went there and Maya has two kids."
    )


def test_every_irregular_past_the_reader_stems_stays_unconjugated_in_a_fact():
    """One table (lexicon.IRREGULAR_PAST) serves the reader's stem and this rewrite: "drew" and
    "spoke" were missing from the extractor's own list and became "drews" / "spokes"."""
    assert rewrite("I drew a map of the garden.", "Leo", None) == "Leo drew a map of the garden."
    assert rewrite("I spoke to the landlord.", "Maya", None) == "Maya spoke to the landlord."
    assert rewrite("I forgot the keys.", "Tom", None) == "Tom forgot the keys."


def test_fact_from_turn_has_subject_slot_and_normalised_time():
    record = run(
        [("a", "Hi there."), ("b", "Yesterday I went to the dentist. My checkout is at 11 am.")],
        names={"a": "Tom", "b": "Maya"},
    )
    contents = [f.content for f in record.facts]
    assert "Yesterday Maya went to the dentist." in contents
    dentist = record.facts[contents.index("Yesterday Maya went to the dentist.")]
    assert dentist.subject == "S2" and dentist.time is not None and dentist.time.value == "2026-11-01"
    checkout = next(f for f in record.facts if f.slot == "checkout_time")
    assert checkout.value == "11 am" and checkout.content == "Maya's checkout is at 11 am."


def test_second_person_fact_is_about_the_addressee():
    record = run(
        [("m", "Can I have my key?"), ("t", "Maya, your room is 412.")], names={"m": "Maya", "t": "Tom"}
    )
    fact = record.facts[0]
    assert fact.content == "Maya's room is 412." and fact.subject == "S1" and fact.slot == "room"


def test_a_known_person_named_as_subject_after_a_vocative_is_the_facts_subject():
    names = {"m": "Maya", "t": "Tom", "d": "Dana"}
    turns = [("m", "Hi."), ("t", "Morning."), ("d", "Tom, Maya's checkout is at noon.")]
    fact = run(turns, names=names).facts[0]
    # about Maya (S1), not the speaker Dana (S3) nor Tom whom she addressed (S2)
    assert fact.content == "Maya's checkout is at noon." and fact.subject == "S1"
    assert fact.slot == "checkout_time"
    assert run([*turns[:2], ("d", "Tom, Maya is vegetarian.")], names=names).facts[0].subject == "S1"
    # a capitalised word nobody in the window bears names no one: the speaker's fact as before
    assert run([*turns[:2], ("d", "Tom, Monday's meeting is at noon.")], names=names).facts[0].subject == "S3"
    # a first-person sentence stays the speaker's, whoever it names
    fact = run([*turns[:2], ("d", "Tom, Maya's friend and I went hiking.")], names=names).facts[0]
    assert fact.subject == "S3"


def test_questions_and_pleasantries_are_not_facts():
    assert run([("a", "How are you doing today?")]).facts == []
    assert run([("a", "Thanks, sounds good.")]).facts == []


def test_attributes_background_preference_relationship():
    record = run(
        [("a", "I work as a nurse at the city hospital. I love green tea. My sister Anna lives in Oslo.")],
        names={"a": "Maya"},
    )
    kinds = {a.kind for a in record.attributes}
    assert kinds == {"background", "preference", "relationship"}
    drink = next(a for a in record.attributes if a.slot == "drink")
    assert drink.text == "Maya loves green tea."
    anna = next(f for f in record.facts if "Anna" in f.about)
    assert anna.content == "Maya's sister Anna lives in Oslo."


def test_unnamed_speaker_gets_placeholder_for_backfill():
    record = run([("p_x", "I am vegetarian.")])
    assert record.facts[0].content == "{p_x} is vegetarian."


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("Please change my checkout to noon.", "checkout_time", "noon"),
        ("I'm in room 12B.", "room", "12b"),
        ("I'm vegan now.", "diet", "vegan"),
        ("Set it to 21 degrees.", "temperature", "21"),
        ("My favourite food is Thai food.", "favourite_food", "thai food"),
        ("I want the aisle seat.", "seat", "aisle"),
    ],
)
def test_slots(text, slot, value):
    assert slot_of(text) == (slot, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm moving to Berlin next month.", "berlin"),
        ("We moved to Portland, Oregon last year.", "portland"),
        ("The match moved to Sunday morning after lunch.", None),  # a day, not a place (the demo)
        ("Yeah, living in the city, I do miss nature a lot.", None),  # LoCoMo: not a residence
        ("I mean, we're living in the moment.", None),  # Molweni
    ],
)
def test_residence_is_a_capitalised_place_never_a_day(text, value):
    assert slot_of(text) == ("residence", value) if value else slot_of(text)[0] != "residence"


# --- temporal -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I saw her yesterday", "2026-11-01"),
        ("see you tomorrow", "2026-11-03"),
        ("we ran a race last Saturday", "2026-10-31"),
        ("we meet next Friday", "2026-11-06"),
        ("I moved here two years ago", "2024"),
        ("it happened last month", "2026-10"),
        ("due next week", "2026-W46"),
        ("born on 8 May 1990", "1990-05-08"),
        ("on March 3", "2026-03-03"),
        ("back in 2019", "2019"),
    ],
)
def test_temporal_normalisation(text, value):
    refs = normalise_times(text, SESSION_DATE)
    assert refs and refs[0].value == value


def test_no_time_in_plain_text():
    assert normalise_times("I like tea", date(2026, 11, 2)) == []
