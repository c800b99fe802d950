"""Runner logic that needs no server: pseudonyms, voices, conditions, dates, access scopes, ASR hints."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from bench.cases import Session
from bench.runner import (
    Run,
    assign_voices,
    auto_policy,
    majority_owner,
    pseudonym,
    session_condition,
    session_start,
    visible_turns,
)
from bench.scenarios import generate_case
from bench.target import AUDIO_ROUTE_HINTS, Target


def test_pseudonyms_are_stable_distinct_and_hide_the_name() -> None:
    a, b = pseudonym("Maya", "salt"), pseudonym("Tom", "salt")
    assert a == pseudonym("Maya", "salt") and a != b
    assert "maya" not in a.lower()


def test_every_participant_gets_a_distinct_voice() -> None:
    case = generate_case("meeting", 0, 6, 6, 20)
    voices = assign_voices(case)
    assert sorted(voices) == sorted(p.name for p in case.participants)
    assert len(set(voices.values())) == 6


def test_shifted_condition_rotates_per_session() -> None:
    assert [session_condition("shifted", i) for i in range(5)] == [
        "clean",
        "reverb",
        "tempo",
        "telephone",
        "clean",
    ]
    assert session_condition("clean", 3) == "clean"


def test_session_start_parses_iso_and_locomo_dates() -> None:
    iso = Session(session_id="s1", date="2026-03-02T09:15:00", turns=[])
    locomo = Session(session_id="s2", date_text="1:56 pm on 8 May, 2023", turns=[])
    assert session_start(iso, 0).isoformat() == "2026-03-02T09:15:00+00:00"
    assert session_start(locomo, 1).isoformat() == "2023-05-08T13:56:00+00:00"
    assert session_start(Session(session_id="s3", turns=[]), 2).day == 3


def test_visible_turns_follow_the_policies() -> None:
    case = generate_case("household", 0, 4, 6, 20)
    asker = case.participants[0].name
    assert visible_turns(case, asker, "open") is None
    participant = visible_turns(case, asker, "participant")
    private = visible_turns(case, asker, "private")
    assert private <= participant
    for session in case.sessions:
        spoke = any(t.speaker == asker for t in session.turns)
        assert all((t.turn_id in participant) == spoke for t in session.turns)
    for _, turn in case.turns():
        if turn.speaker == asker or asker in turn.addressees:
            assert turn.turn_id in private
    assert auto_policy(case) == "participant"


def test_majority_owner_maps_entities_to_gold_speakers() -> None:
    owners = majority_owner(["A", "A", "B", "A"], ["x", "x", "x", None])
    assert owners == {"x": "A"}


def _recording_target(posted: list[dict[str, str]]) -> Target:
    """A Target on a stub server that has the audio route and records each audio turn's form."""

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/openapi.json":
            return httpx.Response(200, json={"paths": {AUDIO_ROUTE_HINTS[0]: {"post": {}}}})
        body = request.content.decode("latin-1")
        fields = re.findall(r'name="(\w+)"\r\n\r\n([^\r]*)\r\n', body)
        posted.append(dict(fields))
        return httpx.Response(201, json={"id": "m1", "text": "heard"})

    http = httpx.Client(transport=httpx.MockTransport(handle), base_url="http://stub")
    target = Target(http, "admin", "stub")
    target.keys["s"] = {}
    return target


def test_audio_turns_carry_the_case_names_only_when_asked(tmp_path: Path) -> None:
    """--asr-vocabulary sends the case's names as every audio turn's ASR hints, as the demo's client
    does; by default nothing is sent, so canonical runs stay comparable."""
    case = generate_case("household", 1, 3, 6, 12)
    names = [p.name for p in case.participants]
    wav = tmp_path / "t.wav"
    wav.write_bytes(b"RIFF")
    ts = datetime(2026, 12, 2, tzinfo=UTC)
    for asked, expected in ((False, None), (True, ",".join(names))):
        posted: list[dict[str, str]] = []
        target = _recording_target(posted)
        run = Run(target, case, "audio", "clean", "participant", progress=False, asr_vocabulary=asked)
        target.audio_turn("s", "x", wav, ts, "t0", run.vocabulary)
        assert posted[0].get("vocabulary") == expected
        assert posted[0]["turn_id"] == "t0"
    with pytest.raises(ValueError):
        Run(target, case, "text", "clean", "participant", progress=False, asr_vocabulary=True)
