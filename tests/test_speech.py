"""The demo's speech helper (voxmem.audio.speech): the product speaks without the benchmark, and
the benchmark's clean clips are the very same files."""

from __future__ import annotations

import pytest
import soundfile as sf

from voxmem.audio.speech import VOICES, speak


def test_a_demo_voice_speaks_16k_mono_and_is_cached() -> None:
    first = speak("Tom, the plumber comes on Thursday.", "us_m1")
    audio, rate = sf.read(first)
    assert rate == 16000 and audio.ndim == 1 and len(audio) > 16000 * 0.5
    rendered = first.stat().st_mtime_ns
    assert speak("Tom, the plumber comes on Thursday.", "us_m1") == first
    assert first.stat().st_mtime_ns == rendered  # served from the cache, not rendered again


def test_an_unknown_voice_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown voice 'nobody'"):
        speak("hello", "nobody")


def test_the_benchmark_clean_clip_is_the_product_clip() -> None:
    from bench.voices import BACKGROUND, synthesize

    assert synthesize("Leo, boots by the door.", "us_klatt5") == speak("Leo, boots by the door.", "us_klatt5")
    assert not set(BACKGROUND) & set(VOICES)  # the pool never doubles a product voice
