"""The answers benchmark's rows: who a turn "to everyone" addresses."""

from __future__ import annotations

from pathlib import Path

from bench.answers_bench import case_rows
from bench.cases import load_case

CASES = Path(__file__).resolve().parents[2] / "bench" / "cases"


def test_everyone_means_the_people_present_in_that_session_not_the_roster() -> None:
    # Sam missed the hotel case's session s2, whose opening greeting is "to everyone": were Sam
    # an addressee there, the participant scope would let Sam read s2.
    case = load_case(CASES / "hotel_front_desk.json")
    assert "Sam" not in case.meta["sessions_present"]["s2"]
    rows = {r.turn_id: r for r in case_rows(case)}
    greeting = next(t for t in case.sessions[1].turns if "everyone" in t.addressees)
    assert set(rows[greeting.turn_id].addressees) == set(case.meta["sessions_present"]["s2"]) - {
        greeting.speaker
    }
    announcement = rows["s5-t2"]  # Sam to everyone in s5, where all four were present
    assert set(announcement.addressees) == {"Jack", "Maya", "Ben"}
