"""A name the rules gave can be corrected, and only by stronger evidence (issue 11, item 4).

Two rules (docs/memory.md, "Naming precision: public lexicons and corrections, 2 December"):
- a self-introduction does not overrule what the others firmly call a voice unless it outweighs
  those cues by NAME_MARGIN: on FriendsQA (speakers hidden) Chandler's voice, named by an answered
  call, was renamed "Dorf" by a persona he plays ("Hi! I'm Dorf!");
- answered calls by another name, from at least two sessions and outweighing the firm evidence
  for the name the voice bears by NAME_MARGIN, rename it (the old name stays an alias).
Hand-written names and sentences, none from FriendsQA, the demo or the generator.
"""

from __future__ import annotations

import pytest

from tests.memory.test_names_heard_again import _name_of, speak_days
from voxmem.core import Voxmem
from voxmem.memory.identity import PersonState, decide, evidence_entry


def named(name: str, *entries: str, source: str | None = "extraction") -> PersonState:
    return PersonState("p_v", name, [], list(entries), True, source)


MARCO = evidence_entry("Marco", 0.7, "addressed", "m1", "mon")  # one answered "Marco, …?"


def test_a_persona_does_not_rename_a_voice_the_others_call_by_name():
    assert decide("Zorro", "self_intro", False, 0.85, named("Marco", MARCO), [], "tue").action == (
        "conflict_two_names"
    )


def test_answered_calls_by_another_name_in_two_sessions_correct_the_name():
    voice_state = named("Marco", MARCO)
    assert decide("Luca", "addressed", False, 0.7, voice_state, [], "tue").action == "vote"
    voice_state.evidence.append(evidence_entry("Luca", 0.7, "addressed", "m5", "tue"))
    assert decide("Luca", "addressed", False, 0.7, voice_state, [], "tue").action == "vote"  # same day
    assert decide("Luca", "addressed", False, 0.7, voice_state, [], "wed").action == "rename"
    placeholder = PersonState("p_luca", "Luca", has_voice=False)
    d = decide("Luca", "addressed", False, 0.7, voice_state, [placeholder], "wed")
    assert (d.action, d.other, d.keep_name) == ("merge_placeholder", "p_luca", False)


def test_no_correction_of_a_name_given_by_hand_nor_to_a_name_another_voice_bears():
    luca = evidence_entry("Luca", 0.7, "addressed", "m5", "tue")
    assert (
        decide("Luca", "addressed", False, 0.7, named("Marco", luca, source=None), [], "wed").action == "none"
    )
    other_voice = PersonState("p_w", "Luca", has_voice=True)
    assert decide(
        "Luca", "addressed", False, 0.7, named("Marco", MARCO, luca), [other_voice], "wed"
    ).action == ("none")
    assert decide("Luca", "addressed", False, 0.3, named("Marco", MARCO, luca), [], "wed").action == "none"


@pytest.mark.integration
def test_the_writer_corrects_a_name_after_answers_on_two_days(services: Voxmem, space: str) -> None:
    """Day one names the voice "Marco" (an answered call); on days two and three it answers calls
    to "Luca": it is renamed "Luca", "Marco" stays an alias, and the rename is audited."""
    days = {
        "mon": [
            ("spk_a", "Hi, I'm Ada."),
            ("spk_b", "Marco, can you take the bins out?"),
            ("spk_m", "Sure, I will do it now."),
        ],
        "tue": [("spk_a", "Luca, could you lock the back door?"), ("spk_m", "Yes, right away.")],
    }
    minute = speak_days(services, space, days)
    assert _name_of(services, space, "spk_m") == "Marco"
    wed = {"wed": [("spk_b", "Luca, can you feed the cat tonight?"), ("spk_m", "Of course, no problem.")]}
    speak_days(services, space, wed, minute)
    assert _name_of(services, space, "spk_m") == "Luca"
    rows = services.db.query(
        "MATCH (p:Participant {space: $space, name: 'Luca'}) RETURN p.aliases AS aliases, "
        "COUNT { (p)-[:SPEAKS]->() } AS spoke",
        space=space,
    )
    assert rows == [{"aliases": ["Marco"], "spoke": 3}]
