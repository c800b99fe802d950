"""Unit tests (no database, no model) of the offline name rules that spoken turns depend on.

On the audio path nobody has a name when the rules run, and a "Tom, …?" call has already
made a name-only placeholder "Tom" in the session roster; the rules must still give the
answering voice the name, and an answer that calls the previous asker by name names them.
"""

from __future__ import annotations

import pytest
from memory.helpers import window as memory_window

from voxmem.extractors.offline import LOOSE_REPLY, OfflineExtractor
from voxmem.extractors.offline.names import vocatives
from voxmem.extractors.window import Window
from voxmem.memory.identity import NAME_THRESHOLD, PersonState, decide, evidence_entry

EX = OfflineExtractor()


def window(turns: list[tuple[str, str]], names: dict[str, str] | None = None, roster=()) -> Window:
    """Every turn in one window (the memory tests' builder, without its last-turns cut)."""
    return memory_window(turns, names, n=len(turns), roster=list(roster))


def names_of(w: Window) -> dict[str, tuple[str, float]]:
    """name → (participant id of the window person it is given to, confidence)."""
    record = EX.extract(w).record
    return {n.name: (w.people[n.speaker].participant_id, n.confidence) for n in record.names}


CALL = "Tom, the plumber is coming on Thursday at 10. Can you be home?"


def test_answer_to_a_call_names_the_voice_even_with_a_placeholder_in_the_roster() -> None:
    turns = [("a", CALL), ("b", "I can, but only until noon.")]
    # as on the audio path: "Tom" is a session participant known only by that name
    got = names_of(window(turns, names={"ptom": "Tom"}, roster=["a", "b", "ptom"]))
    assert got["Tom"][0] == "b" and got["Tom"][1] >= 0.7


def test_a_loose_reply_after_a_call_is_only_a_weak_vote_through_a_placeholder() -> None:
    """Not an answer, so it cannot name the voice alone (two such votes once named Ben's voice
    'Sophie' in the household audio run); it is a vote that needs company, and weak votes never
    outweigh a firm cue for another name (voxmem.memory.identity.FIRM)."""
    turns = [("a", "Sophie, let me think about it."), ("b", "The neighbours are having a party again.")]
    got = names_of(window(turns, names={"psophie": "Sophie"}, roster=["a", "b", "psophie"]))
    assert got["Sophie"] == ("b", LOOSE_REPLY)
    assert 2 * LOOSE_REPLY < NAME_THRESHOLD


def test_answer_to_a_call_does_not_rename_a_named_voice() -> None:
    """Sam's voice answers "Tom, …?": the rule gives a firm vote, which the identity rules keep as
    a vote (enough of them from two sessions correct a wrong name), never a rename on its own."""
    turns = [("a", CALL), ("b", "I can, but only until noon.")]
    got = names_of(window(turns, names={"ptom": "Tom", "b": "Sam"}, roster=["a", "b", "ptom"]))
    assert got["Tom"][0] == "b"
    sam = PersonState(
        "b", "Sam", [], [evidence_entry("Sam", 0.7, "addressed", "m0", "s0")], True, "extraction"
    )
    tom = PersonState("ptom", "Tom", has_voice=False)
    assert decide("Tom", "addressed", False, got["Tom"][1], sam, [tom], "s1").action == "vote"


@pytest.mark.parametrize(
    "reply",
    [
        "Only if it is vegetarian, Leo. Your mother stopped eating meat.",
        "Only if it is vegetarian, Leo, your mother stopped eating meat.",  # ASR joins with a comma
        "Sure thing, Leo.",
    ],
)
def test_an_answer_that_calls_the_asker_by_name_names_the_asker(reply: str) -> None:
    got = names_of(window([("leo", "Can we have pizza for dinner on Friday?"), ("tom", reply)]))
    assert got["Leo"][0] == "leo" and got["Leo"][1] >= 0.7


@pytest.mark.parametrize(
    "turns",
    [
        [("a", "Can we have pizza on Friday?"), ("b", "Leo, what do you think?")],  # asks a third person
        [("a", "We have pizza on Friday."), ("b", "Only if it is vegetarian, Leo.")],  # no question asked
        [("a", "Can we have pizza on Friday?"), ("b", "Leo, the printer is broken.")],  # turns to someone
    ],
)
def test_a_name_in_a_question_or_after_a_statement_does_not_name_the_previous_voice(turns) -> None:
    got = names_of(window(turns))
    assert got.get("Leo", (None, 0.0))[0] != "a"


def test_mid_sentence_vocative_but_not_a_list_of_names() -> None:
    assert [v.term for v in vocatives("On Friday, Tom, we go.", set())] == ["Tom"]
    assert vocatives("I saw Tom, Maya, and Leo.", set()) == []
    assert vocatives("I can, but only until noon, I have a call.", set()) == []


def test_a_reply_calling_the_caller_back_keeps_the_kinship_alias() -> None:
    """'Mum, …?' answered with '…, Ines.' (the caller's name) turns back to the caller, not away:
    the answering voice is still the one called 'Mum'."""
    turns = [("ines", "Mum, may I take the bike to school tomorrow?"), ("mum", "Only with a helmet, Ines.")]
    got = names_of(window(turns))
    assert got["Mum"][0] == "mum"
