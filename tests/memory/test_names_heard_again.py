"""The same weak name link heard again in another session names a voice (issue 11, item 4).

A reply right after a statement that calls someone by name is a weak vote (0.3) for the replier:
in a group the next voice is often someone else. Two such votes for one name from two sessions,
with no vote for any other name on that voice, are enough (docs/memory.md, "Naming, 2 December
third pass (N)": FriendsQA tune episodes, speakers hidden, 173 / 106 -> 214 / 138 right / wrong
turns). Hand-written names and sentences, none from the demo or the generator.
"""

from __future__ import annotations

import pytest

from tests.memory.test_memory_integration import voice
from voxmem.core import Voxmem
from voxmem.memory.identity import NOT_ME, PersonState, decide, evidence_entry, weak_sessions


def voice_with(*entries: str) -> PersonState:
    return PersonState("p_v", None, [], list(entries), True, None)


def test_a_weak_vote_heard_again_in_another_session_names():
    target = voice_with(evidence_entry("Noor", 0.3, "addressed", "m1", "mon"))
    assert decide("Noor", "addressed", False, 0.3, target, [], "tue").action == "name"


def test_two_weak_votes_in_one_session_still_wait():
    target = voice_with(evidence_entry("Noor", 0.3, "addressed", "m1", "mon"))
    assert decide("Noor", "addressed", False, 0.3, target, [], "mon").action == "vote"


def test_a_contested_voice_waits():
    """Another name was voted for this voice too: the generated hotel case's Jack was named "Leo"
    that way (40 wrong turns) before the rule asked for no rival."""
    target = voice_with(
        evidence_entry("Noor", 0.3, "addressed", "m1", "mon"),
        evidence_entry("Ilse", 0.3, "addressed", "m2", "mon"),
    )
    assert decide("Noor", "addressed", False, 0.3, target, [], "tue").action == "vote"


def test_a_voice_that_called_the_name_itself_is_not_named_by_it():
    target = voice_with(
        evidence_entry("Noor", 0.3, "addressed", "m1", "mon"),
        evidence_entry("Noor", NOT_ME, "not_me", "m2", "mon"),
    )
    assert decide("Noor", "addressed", False, 0.3, target, [], "tue").action == "vote"


def test_entries_written_before_sessions_were_kept_count_no_session():
    legacy = "noor|Noor|0.30|addressed|m1"
    assert weak_sessions([legacy], "noor") == set()
    assert decide("Noor", "addressed", False, 0.3, voice_with(legacy), [], "tue").action == "vote"


@pytest.mark.integration
def test_the_writer_names_a_voice_called_in_two_sessions(services: Voxmem, space: str) -> None:
    """Two-party talk on two days: Carla's statements to "Noor" are followed by the same voice
    each time. One day alone leaves the voice unnamed; the second day names it, folding the
    placeholder the call made."""
    day_one = [
        ("spk_c", "Hi, I'm Carla."),
        ("spk_n", "Hello."),
        ("spk_c", "Noor, the boiler man called this morning."),
        ("spk_n", "He always calls too early."),
    ]
    day_two = [("spk_c", "Noor, your bike is in the hall."), ("spk_n", "It can stay there until Friday.")]
    minute = 0
    for session, turns in (("mon", day_one), ("tue", day_two)):
        for speaker, text in turns:
            voice(services, space, session, speaker, text, minute, f"{space}:m{minute}")
            minute += 1
        if session == "mon":
            assert _name_of(services, space, "spk_n") is None
    assert _name_of(services, space, "spk_n") == "Noor"
    voiceless = services.db.query(
        "MATCH (p:Participant {space: $space, name: 'Noor'}) WHERE NOT (p)-[:SPEAKS]->() RETURN p.id AS id",
        space=space,
    )
    assert voiceless == []  # the placeholder was folded into the voice


def _name_of(services: Voxmem, space: str, speaker: str) -> str | None:
    rows = services.db.query(
        """MATCH (:Speaker {space: $space, id: $speaker})<-[:SPOKEN_AS]-(m:Message)<-[:SPEAKS]-(p:Participant)
           RETURN DISTINCT p.name AS name""",
        space=space,
        speaker=speaker,
    )
    assert len(rows) == 1
    return rows[0]["name"]


def speak_days(services: Voxmem, space: str, days: dict[str, list[tuple[str, str]]], minute: int = 0) -> int:
    """Each session's (voice, text) turns spoken in order, a minute apart; the next free minute."""
    for session, turns in days.items():
        for speaker, text in turns:
            voice(services, space, session, speaker, text, minute, f"{space}:m{minute}")
            minute += 1
    return minute
