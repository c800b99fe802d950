"""The scenario generator: deterministic, valid, and covering every question type."""

from __future__ import annotations

import pytest

from bench.cases import EVERYONE, NOT_MENTIONED, QUESTION_TYPES, parse_case
from bench.scenarios import SCENARIOS, generate_case


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_same_seed_same_case_different_seed_different_case(scenario: str) -> None:
    a = generate_case(scenario, seed=3, n_speakers=4, n_sessions=6, turns_per_session=20)
    b = generate_case(scenario, seed=3, n_speakers=4, n_sessions=6, turns_per_session=20)
    c = generate_case(scenario, seed=4, n_speakers=4, n_sessions=6, turns_per_session=20)
    assert a.model_dump_json() == b.model_dump_json()
    assert a.model_dump_json() != c.model_dump_json()


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(("speakers", "sessions", "turns"), [(3, 6, 12), (5, 8, 60), (6, 12, 30)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_question_type_with_evidence(
    scenario: str, speakers: int, sessions: int, turns: int, seed: int
) -> None:
    case = generate_case(scenario, seed, speakers, sessions, turns)
    parse_case(case.model_dump(mode="json"))  # round-trips through the validator
    assert {q.type for q in case.qa} == set(QUESTION_TYPES)
    assert all(q.evidence_ids for q in case.qa)
    assert len(case.sessions) == sessions
    assert len(case.speakers()) == speakers
    for session in case.sessions:
        assert len(session.turns) >= turns - 2
        present = set(case.meta["sessions_present"][session.session_id])
        assert len(present) >= 3
        assert {t.speaker for t in session.turns} <= present


def test_personal_questions_are_asked_by_their_subject_and_askers_saw_the_evidence() -> None:
    case = generate_case("household", 5, 5, 8, 40)
    index = case.turn_index()
    present = case.meta["sessions_present"]
    for q in case.qa:
        if q.type.startswith("personalization"):
            assert q.asker == q.meta["subject"]
            assert all(index[e][1].speaker == q.asker for e in q.evidence_ids)
        if q.asker is not None:
            assert all(q.asker in present[index[e][0].session_id] for e in q.evidence_ids)
        if q.type in ("speaker_attribution", "addressee_attribution") and q.asker is not None:
            assert q.asker != q.answer  # nobody is asked to name themselves


def test_attribution_answers_match_the_gold_turns() -> None:
    case = generate_case("meeting", 2, 5, 8, 30)
    index = case.turn_index()
    for q in case.qa:
        if q.type == "speaker_attribution" and q.question.startswith("Who agreed"):
            assert index[q.evidence_ids[1]][1].speaker == q.answer
        if q.type == "addressee_attribution":
            assert q.answer in index[q.evidence_ids[0]][1].addressees
        if q.type == "adversarial":
            assert q.answer == NOT_MENTIONED


def test_late_named_person_is_not_named_before_the_introduction() -> None:
    case = generate_case("in_car", 1, 4, 8, 40)
    late = case.meta["late_named"]
    intro = next(p.named_from_session for p in case.participants if p.name == late)
    order = [s.session_id for s in case.sessions]
    before = order[: order.index(intro)]
    for session in case.sessions:
        if session.session_id in before:
            assert all(late not in t.text for t in session.turns)
    assert any(f"I'm {late}" in t.text for s in case.sessions if s.session_id == intro for t in s.turns)


def test_addressees_include_vocatives_and_everyone() -> None:
    case = generate_case("hotel_front_desk", 0, 4, 6, 30)
    turns = [t for s in case.sessions for t in s.turns]
    assert any(t.addressees == [EVERYONE] and t.text.startswith("Everyone") for t in turns)
    vocative = [
        t for t in turns if t.addressees and t.addressees != [EVERYONE] and t.text.startswith(t.addressees[0])
    ]
    assert vocative


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ValueError, match="n_speakers"):
        generate_case("household", 0, 7, 6, 30)
    with pytest.raises(ValueError, match="unknown scenario"):
        generate_case("spaceship", 0, 4, 6, 30)
