"""The memory evolution rules on hand-made cases, no database (``voxmem.memory.rules``)."""

from __future__ import annotations

from voxmem.memory.rules import (
    AttributeDecision,
    CurrentAttribute,
    CurrentFact,
    FactDecision,
    FactStatement,
    decide_attribute,
    decide_fact,
)

MAYA, TOM, BEN = "p_maya", "p_tom", "p_ben"


def said(content: str, slot: str | None, value: str | None, subject: str, speaker: str) -> FactStatement:
    return FactStatement(content=content, slot=slot, value=value, subject=subject, speaker=speaker)


def test_first_fact_of_a_slot_is_created_with_nothing_to_supersede():
    d = decide_fact(said("Maya's checkout is at 11 am.", "checkout_time", "11 am", MAYA, MAYA), [])
    assert d == FactDecision() and d.create


def test_subject_updating_their_own_slot_supersedes_the_old_value():
    old = CurrentFact("f1", "Maya's checkout is at 11 am.", "checkout_time", "11 am", (MAYA,))
    d = decide_fact(said("Maya's checkout is at noon.", "checkout_time", "noon", MAYA, MAYA), [old])
    assert d.create and d.supersede == ("f1",) and d.conflicts == ()


def test_whoever_stated_the_old_value_may_correct_it_about_someone_else():
    old = CurrentFact("f1", "Maya's room is 412.", "room", "412", (TOM,))
    d = decide_fact(said("Maya's room is 414.", "room", "414", MAYA, TOM), [old])
    assert d.supersede == ("f1",) and d.conflicts == ()


def test_someone_else_contradicting_a_third_persons_slot_is_a_conflict_not_an_update():
    old = CurrentFact("f1", "Maya's room is 412.", "room", "412", (TOM,))
    d = decide_fact(said("Maya's room is 415.", "room", "415", MAYA, BEN), [old])
    assert d.create and d.supersede == () and d.conflicts == (old,)


def test_the_subject_settles_a_conflict_by_superseding_both_sides():
    a = CurrentFact("f1", "Maya's room is 412.", "room", "412", (TOM,))
    b = CurrentFact("f2", "Maya's room is 415.", "room", "415", (BEN,))
    d = decide_fact(said("Maya's room is 420.", "room", "420", MAYA, MAYA), [b, a])
    assert d.supersede == ("f2", "f1") and d.conflicts == ()


def test_mixed_authority_supersedes_own_statement_and_conflicts_with_the_other():
    own = CurrentFact("f1", "Maya's room is 412.", "room", "412", (TOM,))
    other = CurrentFact("f2", "Maya's room is 415.", "room", "415", (BEN,))
    d = decide_fact(said("Maya's room is 418.", "room", "418", MAYA, TOM), [other, own])
    assert d.supersede == ("f1",) and d.conflicts == (other,)


def test_same_content_repeated_only_supports_the_existing_fact():
    old = CurrentFact("f1", "Maya loves green tea.", None, None, (MAYA,))
    d = decide_fact(said("Maya loves green tea.", None, None, MAYA, TOM), [old])
    assert d == FactDecision(support="f1") and not d.create


def test_same_slot_value_in_other_words_supports_whoever_says_it():
    old = CurrentFact("f1", "Maya's checkout is at noon.", "checkout_time", "noon", (MAYA,))
    d = decide_fact(said("Maya checks out at noon.", "checkout_time", "noon", MAYA, BEN), [old])
    assert d.support == "f1"


def test_an_empty_value_is_never_a_repeat_and_updates_the_slot():
    old = CurrentFact("f1", "Maya's diet is vegetarian.", "diet", None, (MAYA,))
    d = decide_fact(said("Maya stopped her diet.", "diet", None, MAYA, MAYA), [old])
    assert d.create and d.supersede == ("f1",)


def test_a_fact_without_a_slot_never_supersedes_or_conflicts():
    old = CurrentFact("f1", "Maya needs new boots.", "shopping", "boots", (TOM,))
    d = decide_fact(said("Maya needs a new coat.", None, None, MAYA, BEN), [old])
    assert d == FactDecision()


def test_other_slots_among_the_candidates_are_left_alone():
    same_text_other_slot = CurrentFact("f1", "Maya's seat is 12A.", "seat", "12A", (MAYA,))
    d = decide_fact(said("Maya's room is 420.", "room", "420", MAYA, MAYA), [same_text_other_slot])
    assert d == FactDecision()


def test_the_newest_repeat_is_the_one_supported():
    newer = CurrentFact("f2", "Maya's room is 415.", "room", "415", (BEN,))
    older = CurrentFact("f1", "Maya's room is 415.", "room", "415", (TOM,))
    assert decide_fact(said("Maya's room is 415.", "room", "415", MAYA, MAYA), [newer, older]).support == "f2"


def test_unknown_speaker_about_an_unknown_subject_counts_as_the_subject():
    old = CurrentFact("f1", "{p_x} drinks tea.", "drink", "tea", ())
    d = decide_fact(FactStatement("{p_x} drinks coffee.", "drink", "coffee", None, None), [old])
    assert d.supersede == ("f1",)


def test_attribute_same_text_supports_and_new_text_of_a_slot_supersedes():
    old = CurrentAttribute("a1", "Maya drinks tea.", "drink")
    assert decide_attribute("Maya drinks tea.", "drink", [old]) == AttributeDecision(support="a1")
    d = decide_attribute("Maya drinks coffee.", "drink", [old])
    assert d.create and d.supersede == ("a1",)


def test_attribute_without_a_slot_accumulates():
    old = CurrentAttribute("a1", "Maya likes jazz.", None)
    assert decide_attribute("Maya likes hiking.", None, [old]) == AttributeDecision()
    other_slot = CurrentAttribute("a2", "Maya is vegetarian.", "diet")
    assert decide_attribute("Maya drinks coffee.", "drink", [other_slot]) == AttributeDecision()
