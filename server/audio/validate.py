"""Checks that decoded audio is usable before any model or database sees it.

Each failure is an :class:`AudioError` with a ``kind`` the client can act on: ``empty``
(no samples), ``too_short`` (too little to identify a voice), ``too_long`` (over the
configured maximum), ``silent`` (no signal above the noise floor).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxmem.audio.decode import Audio, AudioError
from voxmem.config import Settings


@dataclass(frozen=True)
class AudioLimits:
    min_seconds: float = 0.5
    max_seconds: float = 600.0
    silence_dbfs: float = -55.0  # RMS of the loudest 100 ms below this = silent

    @classmethod
    def from_settings(cls, settings: Settings, max_seconds: float | None = None) -> AudioLimits:
        return cls(
            min_seconds=settings.audio_min_seconds,
            max_seconds=max_seconds if max_seconds is not None else settings.audio_max_turn_seconds,
            silence_dbfs=settings.audio_silence_dbfs,
        )


def loudest_window_dbfs(samples: np.ndarray, rate: int, window_s: float = 0.1) -> float:
    """RMS level (dBFS) of the loudest window: robust to a long quiet lead-in or a single click."""
    n = max(1, int(rate * window_s))
    if len(samples) < n:
        rms = float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0
    else:
        usable = samples[: len(samples) // n * n].astype(np.float64).reshape(-1, n)
        rms = float(np.sqrt((usable**2).mean(axis=1)).max())
    return 20.0 * np.log10(max(rms, 1e-10))


def validate_audio(audio: Audio, limits: AudioLimits) -> Audio:
    """Return ``audio`` unchanged, or raise :class:`AudioError` saying what is wrong."""
    if len(audio.samples) == 0:
        raise AudioError("empty", "the audio decodes to zero samples")
    if audio.duration > limits.max_seconds:
        raise AudioError(
            "too_long", f"{audio.duration:.1f} s is longer than the limit of {limits.max_seconds:.0f} s"
        )
    if audio.duration < limits.min_seconds:
        raise AudioError(
            "too_short", f"{audio.duration:.2f} s is shorter than the minimum of {limits.min_seconds:.2f} s"
        )
    level = loudest_window_dbfs(audio.samples, audio.sample_rate)
    if level < limits.silence_dbfs:
        raise AudioError("silent", f"no signal: loudest 100 ms is {level:.0f} dBFS")
    return audio
