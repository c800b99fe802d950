"""Noise inside a recording never becomes a turn or a speaker (finding 6, recording variant).

A recording of two speakers with white noise and a square wave between them goes through the
recording job over HTTP, with the real VAD, speaker encoder, Whisper and Neo4j. Two ways noise
turned into turns before the piece rule (``is_speech_text``, the one the single spoken turn
uses): the batched decoder stopped at the noise and the speech after it was stored as a turn
with the text "" (a speaker without words), and a piece the VAD let through (injected here as
a VAD false positive over the noise) was routed like speech and created a speaker of its own.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from bench.sentences import BENCHMARK
from bench.voices import synthesize
from voxmem.asr.transcriber import is_speech_text
from voxmem.audio.vad import Region

from .corpus import square_wave, white_noise

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed"),
]

RATE = 16_000
NOISE_AT = (5.0, 8.0)  # seconds into the recording; the square wave follows after 1 s of silence
SQUARE_AT = (9.0, 12.0)


def _recording() -> np.ndarray:
    """Speaker 1 (≤ 4 s), white noise, a square wave, speaker 2, with silence around each."""
    import soundfile as sf

    first, _ = sf.read(synthesize(BENCHMARK[5], "us_m1"), dtype="float32")
    second, _ = sf.read(synthesize(BENCHMARK[6], "us_f3_s150"), dtype="float32")
    out = np.zeros(int(RATE * 17.0) + len(second), dtype=np.float32)
    assert len(first) < RATE * 4.5
    out[: len(first)] = first
    out[int(RATE * NOISE_AT[0]) : int(RATE * NOISE_AT[1])] = white_noise(3.0)
    out[int(RATE * SQUARE_AT[0]) : int(RATE * SQUARE_AT[1])] = square_wave(3.0)
    out[int(RATE * 14.0) : int(RATE * 14.0) + len(second)] = second
    return out


def _stored(services, space: str) -> tuple[list[dict], int]:
    msgs = services.db.query(
        "MATCH (m:Message {space: $space}) RETURN m.text AS text, m.start AS start ORDER BY m.idx",
        space=space,
    )
    speakers = services.db.query("MATCH (s:Speaker {space: $space}) RETURN count(s) AS n", space=space)
    return msgs, speakers[0]["n"]


def test_noise_between_speakers_is_no_turn_and_loses_no_speech(services, space, run_recording) -> None:
    job, _ = run_recording(_recording())
    msgs, speakers = _stored(services, space)
    assert [m["text"] for m in msgs] and all(is_speech_text(m["text"]) for m in msgs), msgs
    assert len(msgs) == 2 and speakers == 2, (msgs, speakers, job["result"])
    assert "freezing" in msgs[0]["text"] and "marathon" in msgs[1]["text"], msgs  # nothing lost


def test_noise_piece_the_vad_lets_through_is_skipped(services, space, run_recording, monkeypatch) -> None:
    vad = services.pipeline.recordings.voice.vad
    regions = vad.regions

    def with_false_positives(audio):
        found = regions(audio)
        noise = [Region(*NOISE_AT), Region(*SQUARE_AT)]
        return sorted([*found, *noise], key=lambda r: r.start)

    monkeypatch.setattr(vad, "regions", with_false_positives)
    job, _ = run_recording(_recording())
    result = job["result"]
    msgs, speakers = _stored(services, space)
    assert len(msgs) == 2 and speakers == 2, (msgs, speakers, result)
    assert all(is_speech_text(m["text"]) for m in msgs), msgs
    reasons = {(s["start"], s["reason"]) for s in result["skipped"]}
    assert any(NOISE_AT[0] <= start < NOISE_AT[1] and r == "no_speech" for start, r in reasons), result
    assert any(SQUARE_AT[0] <= start < SQUARE_AT[1] and r == "no_speech" for start, r in reasons), result
