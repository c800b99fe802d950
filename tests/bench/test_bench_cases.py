"""Case format validation and the LoCoMo loaders."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bench.cases import (
    DEFAULT_LOCOMO,
    NOT_MENTIONED,
    CaseError,
    first_person,
    load_case,
    load_paraphrases,
    locomo_case,
    locomo_evidence,
    locomo_id_case,
    parse_case,
    trim_case,
    with_paraphrases,
)

CASES = Path(__file__).resolve().parents[2] / "bench" / "cases"


def _minimal() -> dict:
    return {
        "schema_version": "voxpoly-web-case.v1",
        "case_id": "tiny",
        "participants": [{"name": "Ann"}, {"name": "Bo"}],
        "sessions": [
            {
                "session_id": "s1",
                "turns": [
                    {
                        "turn_idx": 0,
                        "turn_id": "s1-t0",
                        "speaker": "Ann",
                        "text": "Bo, tea?",
                        "addressees": ["Bo"],
                    },
                    {"turn_idx": 1, "turn_id": "s1-t1", "speaker": "Bo", "text": "Green tea, please."},
                ],
            }
        ],
        "qa": [
            {
                "question": "What does Bo drink?",
                "answer": "green tea",
                "type": "single_hop",
                "evidence_ids": ["s1-t1"],
            },
            {"question": "What do I drink?", "answer": "green tea", "type": "personalization", "asker": "Bo"},
        ],
    }


def test_minimal_case_parses_and_indexes_turns() -> None:
    case = parse_case(_minimal())
    assert case.n_turns() == 2
    assert case.speakers() == ["Ann", "Bo"]
    assert case.turn_index()["s1-t1"][1].speaker == "Bo"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema_version="v0"), "schema_version"),
        (lambda d: d["qa"][0].update(type="trivia"), "type"),
        (lambda d: d["qa"][0].update(evidence_ids=["s9-t9"]), "point to no turn"),
        (lambda d: d["qa"][1].update(asker="Zed"), "asker 'Zed'"),
        (lambda d: d["sessions"][0]["turns"][1].update(turn_id="s1-t0"), "duplicate turn_id"),
        (lambda d: d["sessions"][0]["turns"][1].update(turn_idx=5), "expected 1"),
        (lambda d: d["sessions"][0]["turns"][1].update(speaker="Zed"), "not a participant"),
        (lambda d: d["sessions"][0]["turns"][1].update(turn_id="bad id"), "turn_id"),
    ],
)
def test_invalid_cases_fail_with_a_clear_message(mutate, message: str) -> None:
    data = copy.deepcopy(_minimal())
    mutate(data)
    with pytest.raises(CaseError, match=message):
        parse_case(data, "tiny.json")


def test_unreadable_file_is_a_case_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CaseError, match="cannot read"):
        load_case(bad)


def test_committed_cases_are_valid() -> None:
    paths = sorted(CASES.glob("*.json"))
    assert len(paths) >= 2
    for path in paths:
        case = load_case(path)
        assert case.source == "generated"
        assert {q.type for q in case.qa} >= {"speaker_attribution", "personalization"}


def test_locomo_evidence_tolerates_malformed_strings() -> None:
    assert locomo_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert locomo_evidence(["D"]) == []
    assert locomo_evidence(None) == []
    assert locomo_evidence("D1:3") == ["D1:3"]


def test_locomo_loader_repairs_and_maps_categories() -> None:
    sample = {
        "sample_id": "x",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group."},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "", "blip_caption": "a sunset painting"},
            ],
            "session_2_date_time": "later",
        },
        "qa": [
            {
                "question": "When did Caroline go?",
                "answer": "7 May 2023",
                "evidence": ["D1:1; D1:2"],
                "category": 2,
            },
            {"question": "What did Melanie paint?", "answer": 2022, "evidence": ["D"], "category": 4},
            {
                "question": "What did Caroline paint?",
                "evidence": ["D1:9"],
                "category": 5,
                "adversarial_answer": "x",
            },
        ],
    }
    case, stats = locomo_case(sample)
    assert [q.type for q in case.qa] == ["temporal", "single_hop", "adversarial"]
    assert case.qa[0].evidence_ids == ["D1:1", "D1:2"]
    assert case.qa[1].answer == "2022" and case.qa[1].evidence_ids == []
    assert case.qa[2].answer == NOT_MENTIONED and case.qa[2].meta["trap_answer"] == "x"
    assert stats["evidence_dropped"] == 1 and stats["qa_without_evidence"] == 2
    assert case.sessions[0].turns[1].images[0].caption == "a sunset painting"
    assert len(case.sessions) == 1  # session_2 has a date but no turns


def test_first_person_rewrites() -> None:
    assert first_person("When did Caroline go to the LGBTQ support group?", "Caroline") == (
        "When did I go to the LGBTQ support group?"
    )
    assert first_person("What is Caroline's identity?", "Caroline") == "What is my identity?"
    assert first_person("What does Melanie do with her kids?", "Melanie") == "What do I do with my kids?"
    assert first_person("Where did Melanie go?", "Caroline") is None
    assert first_person("What motivated Caroline to pursue counseling?", "Caroline") == (
        "What motivated me to pursue counseling?"
    )
    assert first_person("What does Caroline's drawing symbolize for her?", "Caroline") == (
        "What does my drawing symbolize for me?"
    )
    assert (
        first_person("How long has Caroline had her friends?", "Caroline")
        == "How long have I had my friends?"
    )
    assert first_person("Is Caroline going?", "Caroline") == "Am I going?"


@pytest.mark.skipif(not DEFAULT_LOCOMO.exists(), reason="shared LoCoMo data not on this machine")
def test_real_locomo_loads_and_id_view_has_askers() -> None:
    data = json.loads(DEFAULT_LOCOMO.read_text(encoding="utf-8"))
    case, stats = locomo_case(data[0])
    assert stats["qa"] == len(data[0]["qa"])
    id_case = locomo_id_case(case)
    assert id_case.qa and all(q.asker in {p.name for p in case.participants} for q in id_case.qa)
    assert all(q.asker not in q.question for q in id_case.qa)


def test_trim_case_keeps_only_answerable_questions() -> None:
    case = parse_case(_minimal())
    trimmed = trim_case(case, 1)
    assert [q.question for q in trimmed.qa] == ["What does Bo drink?"]  # the one without evidence goes
    assert trim_case(case, 0).qa == []


def test_fresh_paraphrases_are_their_own_split_with_askers_and_forms() -> None:
    raw = _minimal()
    for i, q in enumerate(raw["qa"]):
        q["qa_id"] = f"q{i}"
    case = parse_case(raw)
    ids = [q.qa_id for q in case.qa]
    data = {
        "case_id": "tiny",
        "paraphrases": {
            ids[0]: {"tune": ["Bo drinks what?"], "heldout": ["Bo's drink?"]},
            ids[1]: {
                "fresh": [{"text": "What does Bo drink?", "asker": "Ann", "forms": ["summary"]}, "my drink?"]
            },
        },
    }
    fresh = with_paraphrases(case, data, "fresh")
    assert [(q.question, q.asker) for q in fresh.qa] == [("What does Bo drink?", "Ann"), ("my drink?", "Bo")]
    assert fresh.qa[0].meta["split"] == "fresh" and fresh.qa[0].meta["forms"] == ["summary"]
    assert fresh.qa[0].answer == "green tea" and fresh.qa[0].qa_id.endswith("-f0")
    data["paraphrases"][ids[1]]["tune2"] = ["Bo likes which drink?"]
    assert [q.qa_id[-3:] for q in with_paraphrases(case, data, "tune2").qa] == ["-u0"]
    # never tuned on: 'all' is tune + heldout only
    assert [q.question for q in with_paraphrases(case, data, "all").qa] == ["Bo drinks what?", "Bo's drink?"]
    assert with_paraphrases(case, data, "heldout").qa[0].asker is None


@pytest.mark.parametrize(("split", "cases", "at_least"), [("fresh", 4, 140), ("tune2", 3, 180)])
def test_committed_paraphrase_sets_cover_every_type_and_askers_can_read_their_evidence(
    split: str, cases: int, at_least: int
) -> None:
    total, files = 0, 0
    for path in sorted((CASES.parent / "paraphrases" / split).glob("*.json")):
        files += 1
        case = load_case(CASES / path.name)
        fresh = with_paraphrases(case, load_paraphrases(path), split)
        originals = {q.question.lower() for q in case.qa}
        present = case.meta["sessions_present"]
        types: dict[str, int] = {}
        for q in fresh.qa:
            assert q.question.lower() not in originals, q.question  # a paraphrase, not a copy
            types[q.type] = types.get(q.type, 0) + 1
            for turn_id in q.evidence_ids if q.asker else []:
                assert q.asker in present[turn_id.split("-")[0]], (path.name, q.qa_id, q.asker)
        assert set(types) == {q.type for q in case.qa}, path.name
        total += len(fresh.qa)
    assert (files, total >= at_least) == (cases, True), (files, total)
