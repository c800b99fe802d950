"""Names are name-shaped (issue 11, item 4): a place phrase or a common word said where a call
would be must never become a person's name.

On FriendsQA (speakers hidden) Joey's "All right, first stop, Westminster Abbey." before two of
Chandler's replies named Chandler's voice "Westminster Abbey" (the weak link heard again in
another session, 63a1f81), and Monica's "… you could have salmon.... Mmmmm... Salmon!!" put a
rival vote on Emily's voice (docs/memory.md, "Names are name-shaped, 2 December (N2)"). The
sentences here are hand-written; none is from FriendsQA, the demo or the generator.
"""

from __future__ import annotations

import pytest

from tests.memory.test_names_heard_again import _name_of, speak_days
from voxmem.core import Voxmem
from voxmem.extractors.naming import plausible_new_name
from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.offline.names import vocatives
from voxmem.memory.identity import PersonState, decide

from .helpers import window


@pytest.mark.parametrize(
    "phrase",
    [
        "Westminster Abbey",
        "Baker Street",
        "Lincoln Memorial",
        "Union Station",
        "Chelsea Harbour",
        "Golden Gate Bridge",
        "Grand Hotel",
        "Tate Gallery",
        "Penn State",
        "Jersey City",
    ],
)
def test_a_phrase_ending_in_a_place_noun_is_no_name(phrase):
    assert not plausible_new_name(phrase)


@pytest.mark.parametrize(
    "name", ["Abbey", "Bay", "Monty Hall", "Faith Hill", "Nathan Lane", "Jimin Park", "Rachel Green", "Noor"]
)
def test_given_names_and_surnames_that_are_place_words_stay_names(name):
    """One word alone may be a given name; generics that are common surnames are left out."""
    assert plausible_new_name(name)


@pytest.mark.parametrize("kind, confidence", [("self_intro", 0.95), ("addressed", 0.7), ("addressed", 0.3)])
def test_identity_names_no_voice_after_a_place_whatever_backend_heard_it(kind, confidence):
    """An LLM record may carry "Baker Street" as a name; the identity rules refuse it as the
    offline reader does, so no backend can name a voice after a place."""
    voice_state = PersonState(
        "p_v", None, [], ["baker street|Baker Street|0.30|addressed|mon|m1"], True, None
    )
    assert decide("Baker Street", kind, False, confidence, voice_state, [], "tue").action == "none"


def test_a_tour_stop_is_not_a_call():
    turns = [("guide", "Okay, everybody out. First stop, Baker Street."), ("tourist", "Is that the museum?")]
    stop = OfflineExtractor().extract(window(turns[:1])).record
    reply = OfflineExtractor().extract(window(turns)).record
    assert not any(a.target == "Baker Street" for a in stop.addressees)
    assert not any(n.name == "Baker Street" for n in reply.names)


@pytest.mark.parametrize(
    "text",
    ["Push, push!", "Knock, knock.", "Lights! Less lights, please.", "Salmon! We could have salmon."],
)
def test_a_word_the_turn_also_writes_in_lower_case_is_no_name(text):
    assert vocatives(text, set()) == []


@pytest.mark.parametrize(
    "text",
    [
        "Because, I said so.",
        "See, I told you.",
        "Her, she never calls.",
        "Yo! Over here!",
        "Again, thanks.",
        "Remember?",
    ],
)
def test_closed_class_words_and_interjections_call_nobody(text):
    """A pronoun, conjunction, particle, discourse verb or interjection where a call would be."""
    assert vocatives(text, set()) == []


def test_names_and_known_names_written_in_lower_case_elsewhere_stay():
    assert [v.term for v in vocatives("Noor, can you push the door?", set())] == ["Noor"]
    # "Will" is a known name here: the window's names are not questioned by casing
    assert [v.term for v in vocatives("Will, will you come?", {"will"})] == ["Will"]


@pytest.mark.integration
def test_a_tour_stop_said_in_two_sessions_names_nobody(services: Voxmem, space: str) -> None:
    """The same stop announced before the same voice's reply on two days: without the rule the
    voice took the stop's name (a weak link heard again) and the stop became a participant."""
    days = {
        "mon": [("spk_g", "Right, first stop, Baker Street."), ("spk_t", "Is it far from here?")],
        "tue": [("spk_g", "Next one, Baker Street."), ("spk_t", "My feet hurt already.")],
    }
    speak_days(services, space, days)
    assert _name_of(services, space, "spk_t") is None
    named = services.db.query(
        "MATCH (p:Participant {space: $space}) WHERE p.name = 'Baker Street' RETURN p.id AS id", space=space
    )
    assert named == []
