"""The bad-audio corpus through HTTP: every file gets a clear 4xx (or, for loud non-speech at
/asker, an "unknown" answer), never a 5xx; non-speech never becomes a turn or a speaker
(finding 6); a small upload with a lying header costs the server little memory (finding 1)."""

from __future__ import annotations

import shutil
import struct
import time
import tracemalloc

import pytest

from bench.sentences import BENCHMARK
from bench.voices import synthesize

from .corpus import NON_SPEECH, bad_audio

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CORPUS = bad_audio()


def _post(app_client, url, headers, raw, **data):
    return app_client.post(url, headers=headers, files={"audio": ("x.wav", raw, "audio/wav")}, data=data)


def test_bad_audio_over_http(app_client, services, space, space_headers) -> None:
    base = f"/spaces/{space}"
    statuses = {}
    for name, build in sorted(CORPUS.items()):
        raw = build()
        turn = _post(
            app_client, f"{base}/sessions/bad/audio-turns", space_headers, raw, turn_id=f"bad-{name}"
        )
        asker = _post(app_client, f"{base}/asker", space_headers, raw)
        statuses[name] = (turn.status_code, asker.status_code)
        assert 400 <= turn.status_code < 500, (name, turn.status_code, turn.text)
        assert "error" in turn.json()
        if name in NON_SPEECH:
            assert asker.status_code == 200 and not asker.json()["known"], (name, asker.text)
        else:
            assert 400 <= asker.status_code < 500, (name, asker.status_code, asker.text)
    stored = services.db.query(
        "MATCH (n {space: $space}) WHERE n:Message OR n:Speaker OR n:Voiceprint RETURN count(n) AS n",
        space=space,
    )[0]["n"]
    assert stored == 0, f"bad audio left {stored} messages/speakers/voiceprints"


def test_lying_header_costs_little_memory_over_http(app_client, space, space_headers) -> None:
    raw = CORPUS["lying_rate_1hz_4kb"]()
    _post(app_client, f"/spaces/{space}/asker", space_headers, CORPUS["white_noise_wav"]())  # models loaded
    tracemalloc.start()
    try:
        r = _post(app_client, f"/spaces/{space}/asker", space_headers, raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 422, r.text
    assert peak < 8_000_000, f"{peak / 1e6:.1f} MB for a {len(raw)}-byte upload"


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_a_cut_or_mislabelled_spoken_turn_is_a_422_that_says_why_and_stores_nothing(
    app_client, services, space, space_headers
) -> None:
    """Real speech (espeak-ng, 16 kHz mono) sent three wrong ways. Cut mid-upload (the file ends
    halfway through the samples its header declares), it was stored as a turn with the words that
    arrived; with a header claiming 8 kHz or two channels it was a bare 'no speech detected',
    which sends the caller to the microphone instead of the header."""
    raw = synthesize(BENCHMARK[3], "us_m1").read_bytes()
    rate_lie, channel_lie = bytearray(raw), bytearray(raw)
    struct.pack_into("<II", rate_lie, 24, 8_000, 16_000)  # rate and byte rate
    struct.pack_into("<H", channel_lie, 22, 2)
    struct.pack_into("<IH", channel_lie, 28, 64_000, 4)  # byte rate and block align
    url = f"/spaces/{space}/sessions/cut/audio-turns"
    expected = {
        "cut": (raw[: len(raw) // 2], "the file was cut short"),
        "rate": (bytes(rate_lie), "read as 16000 Hz, 1 channel(s) the same samples hold"),
        "channels": (bytes(channel_lie), "the header's channel count is likely wrong"),
    }
    for name, (body, reason) in expected.items():
        r = _post(app_client, url, space_headers, body, turn_id=f"wrong-{name}")
        assert r.status_code == 422, (name, r.status_code, r.text)
        assert reason in r.json()["detail"], (name, r.json()["detail"])
    stored = services.db.query(
        "MATCH (n {space: $space}) WHERE n:Message OR n:Speaker OR n:Voiceprint RETURN count(n) AS n",
        space=space,
    )[0]["n"]
    assert stored == 0, f"wrong audio left {stored} messages/speakers/voiceprints"
    whole = _post(app_client, url, space_headers, raw, turn_id="whole")
    assert whole.status_code == 201, whole.text  # the same speech, sent whole and labelled right


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_a_recording_under_a_lying_rate_header_finishes_with_a_warning_naming_it(
    app_client, space, space_headers
) -> None:
    """The recording job of real speech whose header claims 48 kHz finished 'done' with 0 turns
    and no word about the header."""
    raw = bytearray(synthesize(BENCHMARK[3], "us_m1").read_bytes())
    struct.pack_into("<II", raw, 24, 48_000, 96_000)
    r = app_client.post(
        f"/spaces/{space}/sessions/rec/recordings",
        headers=space_headers,
        files={"audio": ("r.wav", bytes(raw), "audio/wav")},
        data={"recording_id": "r-lying"},
    )
    assert r.status_code == 202, r.text
    for _ in range(600):
        job = app_client.get(f"/spaces/{space}/jobs/{r.json()['id']}", headers=space_headers).json()
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert job["status"] == "done" and job["result"]["turns"] == 0, job
    assert "the header's sample rate is likely wrong" in job["result"].get("warning", ""), job["result"]
