"""The bad-audio corpus through HTTP: every file gets a clear 4xx (or, for loud non-speech at
/asker, an "unknown" answer), never a 5xx; non-speech never becomes a turn or a speaker
(finding 6); a small upload with a lying header costs the server little memory (finding 1)."""

from __future__ import annotations

import tracemalloc

import pytest

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
