"""Unit tests of the naming rules: strong evidence names, weak evidence accumulates, conflicts audit."""

from __future__ import annotations

from voxmem.memory.identity import PersonState, decide, evidence_entry


def person(pid="p_a", name=None, evidence=None, has_voice=True, source=None, aliases=None) -> PersonState:
    return PersonState(pid, name, aliases or [], evidence or [], has_voice, source)


def test_self_introduction_names_an_unnamed_voice():
    assert decide("Maya", "self_intro", False, 0.9, person(), []).action == "name"


def test_weak_evidence_waits_then_accumulates():
    target = person()
    assert decide("Tom", "addressed", False, 0.65, target, []).action == "vote"
    target.evidence.append(evidence_entry("Tom", 0.65, "addressed", "m1", "s1"))
    assert decide("Tom", "addressed", False, 0.65, target, []).action == "name"


def test_weak_evidence_split_between_names_does_not_name():
    target = person(evidence=[evidence_entry("Ben", 0.65, "addressed", "m1", "s1")])
    assert decide("Tom", "addressed", False, 0.65, target, []).action == "vote"


def test_weak_hint_never_touches_a_named_person():
    assert decide("Tom", "addressed", False, 0.65, person(name="Maya"), []).action == "none"


def test_one_voice_two_names_is_an_audit_item():
    d = decide("Sam", "self_intro", False, 0.9, person(name="Maya"), [])
    assert d.action == "conflict_two_names"


def test_correction_renames():
    assert decide(
        "Katherine", "correction", False, 0.95, person(name="Kathy", source="extraction"), []
    ).action == ("rename")


def test_self_intro_overrules_a_weakly_inferred_name():
    """Named by weak reply votes heard in two sessions (the heard-again rule): guesses."""
    weak = person(
        name="Tom",
        source="extraction",
        evidence=[
            evidence_entry("Tom", 0.3, "addressed", "m1", "s1"),
            evidence_entry("Tom", 0.3, "addressed", "m7", "s2"),
        ],
    )
    assert decide("Ben", "self_intro", False, 0.9, weak, []).action == "rename"


def test_self_intro_does_not_overrule_what_others_firmly_call_the_voice():
    """Answered twice to "Tom, …?": the others call this voice Tom. "Hi, I'm Ben" (a part played,
    a persona) outweighs that by less than NAME_MARGIN, so it is an audit item, not a rename;
    one answered call (0.7) against a self-introduction (0.85) is no margin either. Before, any
    name below STRONG was renamed (docs/memory.md, "Naming precision: public lexicons and
    corrections, 2 December")."""
    firm = person(
        name="Tom", source="extraction", evidence=[evidence_entry("Tom", 0.65, "addressed", "m1", "s1")] * 2
    )
    assert decide("Ben", "self_intro", False, 0.9, firm, []).action == "conflict_two_names"
    once = person(
        name="Tom", source="extraction", evidence=[evidence_entry("Tom", 0.7, "addressed", "m1", "s1")]
    )
    assert decide("Ben", "self_intro", False, 0.85, once, []).action == "conflict_two_names"
    assert decide("Ben", "correction", False, 0.95, once, []).action == "rename"


def test_one_name_two_voices_is_an_audit_item_never_a_merge():
    other = person("p_b", name="Maya")
    d = decide("Maya", "self_intro", False, 0.9, person(), [other])
    assert (d.action, d.other) == ("conflict_two_voices", "p_b")


def test_voiceless_placeholder_is_folded_in():
    placeholder = person("p_b", name="Tom", has_voice=False)
    d = decide("Tom", "self_intro", False, 0.9, person(), [placeholder])
    assert (d.action, d.other) == ("merge_placeholder", "p_b")


def test_kinship_terms_are_aliases_only():
    assert decide("Dad", "kinship", True, 0.65, person(), []).action == "alias"
    assert decide("mel", "addressed", True, 0.7, person(name="Melanie"), []).action == "alias"


def test_known_name_is_a_no_op():
    assert decide("maya", "self_intro", False, 0.9, person(name="Maya"), []).action == "none"


def test_weak_votes_for_another_name_do_not_veto_an_answered_call():
    """Two loose replies after calls of 'Mirela' (0.3 each) and then this voice answers a call
    of 'Jonas' (0.7): the answer names it; guesses do not outvote a firm cue."""
    target = person(evidence=[evidence_entry("Mirela", 0.3, "addressed", m, "s1") for m in ("m1", "m2")])
    assert decide("Jonas", "addressed", False, 0.7, target, []).action == "name"


def test_weak_votes_still_weigh_against_each_other():
    """Without a firm cue the margin is over every vote: 0.9 for Jonas against 0.6 for Mirela waits."""
    entries = [evidence_entry("Mirela", 0.3, "addressed", m, "s1") for m in ("m1", "m2")]
    entries += [evidence_entry("Jonas", 0.3, "addressed", m, "s1") for m in ("m3", "m4")]
    assert decide("Jonas", "addressed", False, 0.3, person(evidence=entries), []).action == "vote"
