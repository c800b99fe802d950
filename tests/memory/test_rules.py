"""The memory evolution rules on hand-made cases, no database (``voxmem.memory.rules``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from voxmem.memory.rules import (
    AttributeCandidate,
    AttributeDecision,
    CurrentAttribute,
    CurrentFact,
    Evolved,
    FactCandidate,
    FactDecision,
    FactStatement,
    decide_attribute,
    decide_attributes,
    decide_fact,
    decide_facts,
    replay_facts,
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


# --- many statements at once (a turn's facts, a batch chunk's): decided in order ----------------
T0 = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)


def cand(i: str, statement: FactStatement, minute: int) -> FactCandidate:
    return FactCandidate(i, statement, T0 + timedelta(minutes=minute))


def test_a_chunk_sees_its_own_earlier_facts_like_turns_written_one_by_one():
    stored = CurrentFact("f0", "Maya's checkout is at 10 am.", "checkout_time", "10 am", (MAYA,), T0)
    chunk = [
        cand("n1", said("Maya's checkout is at 11 am.", "checkout_time", "11 am", MAYA, MAYA), 1),
        cand("n2", said("Maya loves green tea.", None, None, MAYA, MAYA), 2),
        cand("n3", said("Maya checks out at 11 am.", "checkout_time", "11 am", MAYA, TOM), 3),  # repeat
        cand("n4", said("Maya's checkout is at noon.", "checkout_time", "noon", MAYA, MAYA), 4),
        cand("n5", said("Maya loves green tea.", None, None, MAYA, BEN), 5),  # repeat of n2
    ]
    decisions = decide_facts(chunk, {MAYA: [stored]})
    one_by_one = []
    current = [stored]
    for c in chunk:  # the per-turn path: read the candidates, decide, write, next
        same = [f for f in current if f.content == c.statement.content or f.slot == c.statement.slot]
        d = decide_fact(c.statement, sorted(same, key=lambda f: f.valid_from, reverse=True))
        one_by_one.append(d)
        if d.create:
            current = [f for f in current if f.id not in d.supersede]
            current.append(
                CurrentFact(
                    c.id,
                    c.statement.content,
                    c.statement.slot,
                    c.statement.value,
                    (c.statement.speaker,),
                    c.valid_from,
                )
            )
    assert decisions == one_by_one
    assert [d.supersede for d in decisions] == [("f0",), (), (), ("n1",), ()]
    assert [d.support for d in decisions] == [None, None, "n1", None, "n2"]


def test_a_chunk_conflict_is_settled_by_the_subject_later_in_the_chunk():
    chunk = [
        cand("n1", said("Maya's room is 412.", "room", "412", MAYA, TOM), 1),
        cand("n2", said("Maya's room is 415.", "room", "415", MAYA, BEN), 2),
        cand("n3", said("Maya's room is 420.", "room", "420", MAYA, MAYA), 3),
    ]
    d1, d2, d3 = decide_facts(chunk, {})
    assert d1 == FactDecision() and [c.id for c in d2.conflicts] == ["n1"]
    assert set(d3.supersede) == {"n1", "n2"} and d3.conflicts == ()


def test_no_subject_means_no_candidates_and_other_subjects_stay_apart():
    stored = CurrentFact("f0", "Tom's room is 1.", "room", "1", (TOM,), T0)
    chunk = [
        cand("n1", FactStatement("Someone's room is 2.", "room", "2", None, TOM), 1),
        cand("n2", said("Maya's room is 3.", "room", "3", MAYA, MAYA), 2),
    ]
    assert decide_facts(chunk, {TOM: [stored]}) == [FactDecision(), FactDecision()]


def test_an_imported_older_turn_supports_the_newest_stored_repeat_first():
    newer = CurrentFact("f2", "Maya's room is 415.", "room", "415", (BEN,), T0 + timedelta(days=2))
    older = CurrentFact("f1", "Maya's room is 415.", "room", "415", (TOM,), T0 + timedelta(days=1))
    [d] = decide_facts(
        [cand("n1", said("Maya's room is 415.", "room", "415", MAYA, MAYA), 0)], {MAYA: [older, newer]}
    )
    assert d.support == "f2"


def test_attributes_of_a_chunk_supersede_and_support_in_order():
    stored = CurrentAttribute("a0", "Maya drinks tea.", "drink", T0)
    chunk = [
        AttributeCandidate(
            "n1", MAYA, "preference", "Maya drinks coffee.", "drink", T0 + timedelta(minutes=1)
        ),
        AttributeCandidate(
            "n2", MAYA, "preference", "Maya drinks coffee.", "drink", T0 + timedelta(minutes=2)
        ),
        AttributeCandidate(
            "n3", MAYA, "background", "Maya drinks coffee.", "drink", T0 + timedelta(minutes=3)
        ),
        AttributeCandidate(
            "n4", MAYA, "preference", "Maya drinks water.", "drink", T0 + timedelta(minutes=4)
        ),
    ]
    d = decide_attributes(chunk, {(MAYA, "preference"): [stored]})
    assert [x.supersede for x in d] == [("a0",), (), (), ("n1",)]
    assert [x.support for x in d] == [None, "n1", None, None]


def stored(i: str, text: str, value: str, minute: int, speaker: str, **state: object) -> Evolved:
    """A stored fact of Maya's drink as a fold leaves it: current and unsettled unless given."""
    fields: dict = {"current": True, "conflict": False, "valid_to": None, "supersedes": frozenset()}
    fields.update(state)
    return Evolved(
        id=i,
        owner=MAYA,
        text=text,
        slot="drink",
        value=value,
        valid_from=datetime(2026, 11, 2, 18, minute, tzinfo=UTC),
        stated_by=(speaker,),
        conflicts=frozenset(),
        first_message=f"m{i}",
        **fields,
    )


def test_a_replay_after_a_fold_decides_the_slot_as_if_said_of_one_person_and_then_changes_nothing():
    """Maya's coffee (said by her unnamed voice as '{p_maya}'), a repeat of it by Maya, then green
    tea: the repeat becomes support, green tea supersedes coffee; the settled state replays to
    nothing."""
    history = [
        stored("f1", "{p_maya} prefers coffee.", "coffee", 0, MAYA),
        stored("f2", "Maya prefers coffee.", "coffee", 1, MAYA),
        stored("f3", "Maya prefers green tea.", "green tea", 2, MAYA),
    ]
    replay = replay_facts(history, MAYA, "Maya")
    assert replay.merges == [("f2", "f1")]
    assert {s.id: (s.current, s.superseded_by, s.supersedes) for s in replay.changed} == {
        "f1": (False, "f3", ()),
        "f3": (True, None, ("f1",)),
    }
    settled = [
        stored(
            "f1", "{p_maya} prefers coffee.", "coffee", 0, MAYA, current=False, valid_to=history[2].valid_from
        ),
        stored("f3", "Maya prefers green tea.", "green tea", 2, MAYA, supersedes=frozenset({"f1"})),
    ]
    again = replay_facts(settled, MAYA, "Maya")
    assert not again and not again.new_conflicts and not again.settled_conflicts
