"""Decode wav/flac/ogg/mp3 (any rate, any channel count) to 16 kHz mono float32.

Why two decoders: libsndfile (soundfile) reads wav/flac/ogg fast and in-process, but its
mp3 support depends on the system library version; ffmpeg reads everything else. A file
neither can read is *corrupt* and gets a clear error instead of a crash.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from voxmem.errors import InvalidInput

SAMPLE_RATE = 16_000


class AudioError(InvalidInput):
    """Audio the server cannot use; ``kind`` is one of corrupt, empty, silent, too_short, too_long."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass(frozen=True)
class Audio:
    """Decoded audio: 16 kHz mono float32 samples in [-1, 1]."""

    samples: np.ndarray
    sample_rate: int = SAMPLE_RATE

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate

    def slice(self, start_s: float, end_s: float) -> Audio:
        a = max(0, round(start_s * self.sample_rate))
        b = min(len(self.samples), round(end_s * self.sample_rate))
        return Audio(self.samples[a:b], self.sample_rate)


def resample(samples: np.ndarray, source_rate: int, target_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Polyphase resampling (scipy), exact for integer rate ratios such as 8k/44.1k/48k → 16k."""
    if source_rate == target_rate:
        return samples.astype(np.float32, copy=False)
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(source_rate, target_rate)
    return resample_poly(samples, target_rate // g, source_rate // g).astype(np.float32)


def _to_mono(data: np.ndarray) -> np.ndarray:
    return data.mean(axis=1) if data.ndim == 2 else data


def _read_soundfile(raw: bytes) -> Audio | None:
    try:
        data, rate = sf.read(io.BytesIO(raw), dtype="float32", always_2d=False)
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
        return None
    return Audio(resample(_to_mono(np.asarray(data, dtype=np.float32)), int(rate)))


def _read_ffmpeg(raw: bytes) -> Audio | None:
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        return None
    cmd = [
        ffmpeg,
        "-nostdin",
        "-v",
        "error",
        "-i",
        "pipe:0",
        "-f",
        "f32le",
        "-ac",
        "1",
        "-ar",
        str(SAMPLE_RATE),
    ]
    proc = subprocess.run([*cmd, "pipe:1"], input=raw, capture_output=True, timeout=120, check=False)
    if proc.returncode != 0 or not proc.stdout:
        return None
    return Audio(np.frombuffer(proc.stdout, dtype="<f4").astype(np.float32))


def decode_audio(source: bytes | str | Path) -> Audio:
    """Bytes or a path → :class:`Audio`. Raises :class:`AudioError` ('empty' / 'corrupt')."""
    raw = Path(source).read_bytes() if isinstance(source, str | Path) else bytes(source)
    if not raw:
        raise AudioError("empty", "the audio payload has no bytes")
    audio = _read_soundfile(raw) or _read_ffmpeg(raw)
    if audio is None:
        raise AudioError("corrupt", "cannot decode the audio (supported: wav, flac, ogg, mp3)")
    samples = np.nan_to_num(audio.samples, nan=0.0, posinf=0.0, neginf=0.0)
    return Audio(np.clip(samples, -1.0, 1.0).astype(np.float32))
