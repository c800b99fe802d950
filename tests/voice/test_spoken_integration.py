"""End to end with generated espeak-ng speech, the real models and the real Neo4j, through the
HTTP API: spoken turns, idempotent retry, bad audio, asker identification, a recording job."""

from __future__ import annotations

import io
import shutil

import numpy as np
import pytest
import soundfile as sf

from bench.sentences import BENCHMARK, QUESTIONS
from bench.voices import concatenate, synthesize

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed"),
]


def wav(voice: str, text: str) -> bytes:
    return synthesize(text, voice).read_bytes()


# three voices over five turns: us_m1 and us_f3_s150 come back
FIVE_TURNS = [("us_m1", 5), ("us_f3_s150", 6), ("us_m1", 7), ("us_croak_hi", 8), ("us_f3_s150", 9)]


def five_turn_recording() -> np.ndarray:
    return concatenate([synthesize(BENCHMARK[i], v) for v, i in FIVE_TURNS], gap_s=1.0)[0]


def post_recording(client, space, headers, flac: bytes, session: str = "rec"):
    return client.post(
        f"/spaces/{space}/sessions/{session}/recordings",
        headers=headers,
        files={"audio": ("r.flac", flac, "audio/flac")},
        data={"recording_id": "r1"},
    )


def post_turn(client, space, headers, voice, text, turn_id):
    return client.post(
        f"/spaces/{space}/sessions/s1/audio-turns",
        headers=headers,
        files={"audio": (f"{turn_id}.wav", wav(voice, text), "audio/wav")},
        data={"turn_id": turn_id},
    )


def assert_indexed(services, space: str, session: str, n: int) -> None:
    """Spoken turns are indexed at write time like text turns: a speaker-aware passage and its
    SPLADE terms (the turn pipeline's index step), so sparse and passage retrieval see them."""
    rows = services.db.query(
        "MATCH (m:Message {space: $space, session: $session}) "
        "RETURN m.passage AS passage, m.sparse_terms AS terms, m.text AS text",
        space=space,
        session=session,
    )
    assert len(rows) == n
    for row in rows:
        assert row["passage"] and row["passage"].endswith(row["text"]) and row["terms"], row


def test_spoken_turns_asker_and_bad_audio(app_client, services, space, space_headers) -> None:
    plan = [("us_m1", 0), ("us_f3_s150", 1), ("us_m1", 2), ("us_f3_s150", 3), ("us_m1", 4)]
    speakers = []
    for n, (voice, i) in enumerate(plan):
        r = post_turn(app_client, space, space_headers, voice, BENCHMARK[i], f"t{n}")
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["text"] and body["speaker"]["id"].startswith("p_")
        speakers.append(body["routing"]["speaker_id"])
    assert not {speakers[0], speakers[2], speakers[4]} & {speakers[1], speakers[3]}  # no wrong link
    again = post_turn(app_client, space, space_headers, "us_m1", BENCHMARK[0], "t0")
    assert again.status_code == 201 and again.json()["idempotent_replay"] is True

    # Early single-utterance voiceprints may leave a fragment; the post-session reconciliation merges it.
    rec = app_client.post(
        f"/spaces/{space}/speakers/reconcile", headers=space_headers, json={"session": "s1"}
    )
    assert rec.status_code == 200, rec.text
    msgs = app_client.get(f"/spaces/{space}/messages?session=s1", headers=space_headers).json()
    who = [m["speaker"]["id"] for m in msgs]
    assert who[0] == who[2] == who[4] and who[1] == who[3] != who[0]
    listing = app_client.get(f"/spaces/{space}/speakers", headers=space_headers).json()
    assert sorted(s["n_obs"] for s in listing if s["merged_into"] is None) == [2, 3]
    assert_indexed(services, space, "s1", 5)

    asked = app_client.post(
        f"/spaces/{space}/asker",
        headers=space_headers,
        files={"audio": ("q.wav", wav("us_f3_s150", QUESTIONS[0]), "audio/wav")},
    ).json()
    assert asked["known"] and asked["participant_id"] == who[1]
    stranger = app_client.post(
        f"/spaces/{space}/asker",
        headers=space_headers,
        files={"audio": ("q.wav", wav("us_m5_deep", QUESTIONS[1]), "audio/wav")},
    ).json()
    assert stranger["known"] is False and stranger["participant_id"] is None
    assert app_client.get(f"/spaces/{space}/speakers", headers=space_headers).json() == listing  # read-only

    buf = io.BytesIO()
    sf.write(buf, np.zeros(16_000 * 2, np.float32), 16_000, format="WAV")
    silent = app_client.post(
        f"/spaces/{space}/sessions/s1/audio-turns",
        headers=space_headers,
        files={"audio": ("s.wav", buf.getvalue(), "audio/wav")},
    )
    corrupt = app_client.post(
        f"/spaces/{space}/sessions/s1/audio-turns",
        headers=space_headers,
        files={"audio": ("c.mp3", b"definitely not audio" * 50, "audio/mpeg")},
    )
    assert silent.status_code == 422 and "silent" in silent.json()["detail"]
    assert corrupt.status_code == 422 and "corrupt" in corrupt.json()["detail"]
    msgs = app_client.get(f"/spaces/{space}/messages", headers=space_headers).json()
    assert len(msgs) == 5  # nothing half-written by the rejected uploads


def test_recording_cut_short_resumes_when_posted_again(
    app_client, services, space, space_headers, run_recording, monkeypatch
) -> None:
    """Neo4j gone for longer than the retries while turn 3 of 5 is written: the job fails with
    two whole turns stored; posting the same recording again resumes it (no turn twice, same
    speakers), and only then is a third post refused."""
    from voxmem.errors import DatabaseUnavailable

    ingestor = services.pipeline.recordings
    write_turn, calls = ingestor._write_turn, []

    def outage_at_third_turn(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise DatabaseUnavailable("Neo4j is unavailable: injected outage")
        return write_turn(*args, **kwargs)

    monkeypatch.setattr(ingestor, "_write_turn", outage_at_third_turn)
    samples = five_turn_recording()
    job, flac = run_recording(samples, expect="failed")
    assert "injected outage" in job["error"]
    msgs = app_client.get(f"/spaces/{space}/messages?session=rec", headers=space_headers).json()
    assert len(msgs) == 2

    elsewhere = post_recording(app_client, space, space_headers, flac, session="other")
    assert elsewhere.status_code == 409 and "resume" in elsewhere.json()["detail"]

    monkeypatch.setattr(ingestor, "_write_turn", write_turn)  # Neo4j is back
    job, _ = run_recording(samples)
    result = job["result"]
    assert result["resumed_turns"] == 2 and result["turns"] == 5 and len(result["speakers"]) == 3
    msgs = app_client.get(f"/spaces/{space}/messages?session=rec", headers=space_headers).json()
    assert len(msgs) == 5 and len({m["id"] for m in msgs}) == 5 and all(m["text"] for m in msgs)
    assert [m["idx"] for m in msgs] == list(range(5))
    assert [m["ts"] for m in msgs] == sorted(m["ts"] for m in msgs)  # resumed turns follow in time
    speaker = [m["speaker"]["id"] for m in msgs]
    assert speaker[0] == speaker[2] and speaker[1] == speaker[4] and len(set(speaker)) == 3
    assert post_recording(app_client, space, space_headers, flac).status_code == 409


def test_recording_job_diarizes_by_identification(
    app_client, services, space, space_headers, run_recording
) -> None:
    job, flac = run_recording(five_turn_recording(), max_polls=600)
    result = job["result"]
    assert result["turns"] == 5 and len(result["speakers"]) == 3
    msgs = app_client.get(f"/spaces/{space}/messages?session=rec", headers=space_headers).json()
    assert len(msgs) == 5 and all(m["text"] for m in msgs)
    assert msgs[0]["speaker"]["id"] == msgs[2]["speaker"]["id"] != msgs[1]["speaker"]["id"]
    assert_indexed(services, space, "rec", 5)
    assert post_recording(app_client, space, space_headers, flac).status_code == 409
