"""Audio decoding and validation: formats, rates, channels, and each kind of bad input."""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf

from voxmem.audio import AudioError, AudioLimits, decode_audio, validate_audio


def tone(seconds: float = 1.5, rate: int = 44_100, channels: int = 2) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    x = 0.3 * np.sin(2 * np.pi * 220 * t)
    return np.stack([x] * channels, axis=1) if channels > 1 else x


def encode(data: np.ndarray, rate: int, fmt: str) -> bytes:
    buf = io.BytesIO()
    sf.write(buf, data, rate, format=fmt)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["WAV", "FLAC", "OGG"])
def test_decodes_stereo_44k_to_16k_mono(fmt: str) -> None:
    audio = decode_audio(encode(tone(), 44_100, fmt))
    assert audio.sample_rate == 16_000
    assert audio.samples.ndim == 1 and audio.samples.dtype == np.float32
    assert abs(audio.duration - 1.5) < 0.05
    assert 0.15 < float(np.abs(audio.samples).max()) <= 1.0


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg not installed")
def test_decodes_mp3_via_ffmpeg_fallback(tmp_path) -> None:
    wav = tmp_path / "in.wav"
    sf.write(wav, tone(2.0, 22_050, 1), 22_050)
    mp3 = tmp_path / "in.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(wav), str(mp3)], check=True)
    audio = decode_audio(mp3.read_bytes())
    assert audio.sample_rate == 16_000 and abs(audio.duration - 2.0) < 0.1


def test_empty_and_corrupt_are_clear_errors() -> None:
    with pytest.raises(AudioError) as empty:
        decode_audio(b"")
    assert empty.value.kind == "empty" and empty.value.status_code == 422
    with pytest.raises(AudioError) as corrupt:
        decode_audio(b"RIFF\x00\x00\x00\x00WAVEfmt garbage that is not audio" * 3)
    assert corrupt.value.kind == "corrupt"


@pytest.mark.parametrize(
    ("samples", "kind"),
    [
        (np.zeros(0, np.float32), "empty"),
        (0.3 * np.ones(1600, np.float32), "too_short"),
        (np.zeros(16_000 * 2, np.float32), "silent"),
        (0.3 * np.ones(16_000 * 11, np.float32), "too_long"),
    ],
)
def test_validation_kinds(samples: np.ndarray, kind: str) -> None:
    from voxmem.audio.decode import Audio

    with pytest.raises(AudioError) as err:
        validate_audio(Audio(samples), AudioLimits(min_seconds=0.5, max_seconds=10.0))
    assert err.value.kind == kind


def test_valid_audio_passes_and_zero_length_wav_is_empty() -> None:
    from voxmem.audio.decode import Audio

    ok = Audio(tone(1.0, 16_000, 1).astype(np.float32))
    assert validate_audio(ok, AudioLimits()) is ok
    with pytest.raises(AudioError) as err:
        validate_audio(decode_audio(encode(np.zeros((0, 1)), 16_000, "WAV")), AudioLimits())
    assert err.value.kind == "empty"
