"""When an event happens (``when:<event>`` slots): a moved plan supersedes its earlier time.

Sentences written for these tests (not the demo's nor the bench generator's words). Each
positive case fails without ``event_when``: before it, none of these sentences had a slot, so
no later statement of the same event could supersede it (the 3 December review's finding).
"""

from __future__ import annotations

import pytest

from voxmem.extractors.offline.facts import drafts, slot_of
from voxmem.memory.rules import FactStatement, decide_fact
from voxmem.stores.facts import CurrentFact

from .test_memory_integration import T0, facts, say


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("Our team's game is on Thursday evening.", "when:game", "thursday evening"),
        ("The recital starts at 7 pm.", "when:recital", "7 pm"),
        ("I've got a job interview tomorrow morning.", "when:job interview", "tomorrow morning"),
        ("They postponed the wedding to June 12.", "when:wedding", "june 12"),
        ("My piano lesson got moved to Wednesday.", "when:piano lesson", "wednesday"),
        ("We rescheduled the barbecue to next Saturday.", "when:barbecue", "next saturday"),
        ("I pushed my dentist appointment to next week.", "when:dentist appointment", "next week"),
        ("Tomorrow's rehearsal is cancelled.", "when:rehearsal", "tomorrow"),
        ("The concert is at eight o'clock.", "when:concert", "eight o'clock"),
        ("my call is at nine", "when:call", "nine"),
        ("so the football match is saturday at ten", "when:football match", "saturday at ten"),
        ("Mum's surgery has been postponed until next week.", "when:surgery", "next week"),
    ],
)
def test_a_plans_time_or_its_change_has_a_slot_keyed_by_the_event(text, slot, value):
    assert slot_of(text) == (slot, value)


@pytest.mark.parametrize(
    "text",
    [
        "The match got moved.",  # a change with no new day or time
        "I moved my call.",
        "I'll call you tomorrow.",  # 'call' the verb, not an event
        "We watched the game on Saturday.",  # a finished event, not a plan
        "The race was on Saturday and I finished third.",
        "The party last Friday was amazing.",
        "At one point the meeting got really heated.",  # 'one' that is no hour
        "I moved the couch to the living room.",
        "The match is on TV.",
        "If the recital is on Sunday, I can't come.",  # a hypothetical
        "We didn't move the match to Sunday.",  # a move that did not happen
    ],
)
def test_no_day_or_time_of_a_plan_no_event_slot(text):
    assert not (slot_of(text)[0] or "").startswith("when:")


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("My meeting is at 3pm.", "meeting_time", "3pm"),
        ("Please move my wake-up call to 6 am.", "wake_up_time", "6 am"),
        ("Our dinner reservation is at 8 pm.", "dinner_time", "8 pm"),
        ("We moved to Lisbon on Monday.", "residence", "lisbon"),
    ],
)
def test_the_older_slots_keep_their_sentences(text, slot, value):
    assert slot_of(text) == (slot, value)


def _decide(first: tuple[str, str], later: tuple[str, str]):
    """The evolution rule's decision on ``later`` given the fact drawn from ``first`` (each a
    (speaker, sentence) pair; one draft per sentence)."""
    (old,) = drafts(first[1], first[0], None)
    (new,) = drafts(later[1], later[0], None)
    stored = CurrentFact("f1", old.content, old.slot, old.value, (first[0],), T0)
    statement = FactStatement(new.content, new.slot, new.value, later[0], later[0])
    return decide_fact(statement, [stored]), old, new


def test_a_moved_plan_supersedes_its_earlier_time():
    decision, old, new = _decide(
        ("Nadia", "I have a pottery class on Tuesday at six."),
        ("Nadia", "I moved my pottery class to Thursday."),
    )
    assert (old.slot, old.value) == ("when:pottery class", "tuesday at six")
    assert (new.slot, new.value) == ("when:pottery class", "thursday")
    assert decision.create and decision.supersede == ("f1",)


def test_two_different_plans_of_one_person_do_not_supersede_each_other():
    decision, old, new = _decide(
        ("Nadia", "My pottery class is on Tuesday."),
        ("Nadia", "The school concert moved to Friday evening."),
    )
    assert old.slot == "when:pottery class" and new.slot == "when:school concert"
    assert decision.create and decision.supersede == () and decision.conflicts == ()


@pytest.mark.integration
def test_a_rescheduled_plan_is_superseded_through_the_api(app_client, space_headers, space):
    """Text turns through the API on the real Neo4j: the move supersedes the speaker's earlier
    time of the same event, another event of the same speaker stays current."""
    say(app_client, space_headers, space, "s1", "Omar", "Jess, the cup match is on Saturday at three.", 0)
    say(app_client, space_headers, space, "s1", "Omar", "My physio appointment is on Friday.", 1)
    say(app_client, space_headers, space, "s1", "Jess", "Okay, I'll drive you.", 2)
    say(app_client, space_headers, space, "s1", "Omar", "Jess, the cup match got pushed to Sunday.", 3)
    final = facts(app_client, space_headers, space, slot="when:cup match", history="true")
    now = [f for f in final if f["current"]]
    assert [f["value"] for f in now] == ["sunday"]
    old = next(f for f in final if f["value"] == "saturday at three")
    assert not old["current"] and now[0]["supersedes"] == [old["id"]]
    physio = facts(app_client, space_headers, space, slot="when:physio appointment")
    assert [(f["value"], f["current"]) for f in physio] == [("friday", True)]
