"""Deterministic synthetic voices (espeak-ng + sox) for benchmarks and spoken tests.

The voices themselves and clean rendering live in the product (``voxmem.audio.speech``: the
demo speaks through it); this module adds what only measurement needs. Recipes follow
/work/shared/notes/synthetic_voices.md: the "Chosen 6" (greedy max-min over ASR-acceptable
espeak-ng variants, largest inter-centroid cosine 0.784 with resemblyzer), a background pool
for fitting channel compensation, and the acoustic shifts used to test drift:
``reverb`` (reverb 50 + white noise at 20 dB SNR), ``telephone`` (300-3400 Hz band at
8 kHz) and ``tempo`` (10 % faster). Files are cached under
``$VOXMEM_CACHE_DIR/audio/<sha1 of voice, text, condition>.wav``, so a re-run costs
nothing and reuses the same clip (the noise has a fixed seed; a fresh render differs by sox's
dither, measured 2026-11-30: up to 6e-5 clean, more after reverb's normalisation).

API: ``synthesize(text, voice_id, condition="clean") -> Path``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

from voxmem.audio.speech import (
    VOICES,
    Voice,
    cache_dir,
    clip_key,
    require_tools,
    run_tool,
    speak_as,
    store_clip,
)

CONDITIONS = ("clean", "reverb", "telephone", "tempo")
CHOSEN_6 = ("us_klatt5", "us_f3_s150", "us_m5_deep", "us_croak_hi", "us_m1", "us_klatt3_eq")

# espeak-ng variants behind CHOSEN_6: the background pool never uses them, so nothing fitted on
# it has heard a benchmark voice (or a pitch/speed twin of one)
_CHOSEN_VARIANTS = frozenset({"klatt5", "f3", "m5", "croak", "m1", "klatt3"})
_BACKGROUND_VARIANTS = (
    "m2", "m3", "m4", "m6", "m7", "m8", "f1", "f2", "f4", "f5", "klatt", "klatt2", "klatt4",
    "klatt6", "Annie", "Andrea", "Alex", "Andy", "adam", "benjamin", "caleb", "david", "ed",
    "Gene", "Hugo", "john", "Lee", "linda", "max", "Michael", "Mike", "paul", "rob", "steph",
    "zac", "norbert", "shelby", "travis", "victor", "grandma", "aunty", "belinda", "edward",
    "iven", "quincy", "robert",
)  # fmt: skip
_BACKGROUND_TIMBRES: tuple[tuple[str, ...], ...] = (
    (),
    ("pitch", "-200"),
    ("pitch", "+150"),
    ("treble", "+4"),
    ("bass", "+6"),
    ("equalizer", "1500", "1q", "+6"),
)


def _background_voices() -> dict[str, Voice]:
    """A pool of further synthetic voices for fitting channel compensation: every espeak-ng
    variant *not* behind ``CHOSEN_6``, each with its own pitch, rate and sox timbre (a fixed
    pattern, so the pool is the same on every machine). Not checked for ASR quality or
    distinctness: it only has to show how channels move many different voices."""
    assert not _CHOSEN_VARIANTS & set(_BACKGROUND_VARIANTS)
    pool = {}
    for i, variant in enumerate(_BACKGROUND_VARIANTS):
        pitch, rate = 35 + 10 * (i % 4), 145 + 10 * (i % 3)
        timbre = _BACKGROUND_TIMBRES[i % len(_BACKGROUND_TIMBRES)]
        pool[f"bg_{variant.lower()}"] = Voice(
            f"bg_{variant.lower()}", ("-v", f"en-us+{variant}", "-p", str(pitch), "-s", str(rate)), timbre
        )
    return pool


BACKGROUND: dict[str, Voice] = _background_voices()


def _add_noise(path_in: Path, path_out: Path, snr_db: float = 20.0, seed: int = 0) -> None:
    """White Gaussian noise at ``snr_db`` against the power of the active samples; peak 0.7."""
    x, rate = sf.read(path_in, dtype="float64")
    active = x[np.abs(x) > 0.02 * np.abs(x).max()] if np.abs(x).max() > 0 else x
    power = float(np.mean(active**2)) if len(active) else 1e-8
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(power / 10 ** (snr_db / 10)), len(x))
    y = x + noise
    y = 0.7 * y / max(np.abs(y).max(), 1e-9)
    sf.write(path_out, y.astype(np.float32), rate, subtype="PCM_16")


def _shift(condition: str, clean: Path, out: Path, tmp: Path) -> None:
    if condition == "reverb":
        rev = tmp / "rev.wav"
        run_tool(["sox", str(clean), str(rev), "gain", "-6", "reverb", "50"])
        _add_noise(rev, out)
    elif condition == "telephone":
        t8 = tmp / "t8.wav"
        run_tool(["sox", str(clean), "-r", "8000", str(t8), "sinc", "300-3400"])
        run_tool(["sox", str(t8), "-r", "16000", "-b", "16", str(out)])
    elif condition == "tempo":
        run_tool(["sox", str(clean), str(out), "tempo", "1.1"])
    else:
        raise ValueError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")


def synthesize(text: str, voice_id: str, condition: str = "clean") -> Path:
    """Path of a 16 kHz mono 16-bit WAV of ``text`` in ``voice_id`` under ``condition`` (cached)."""
    voice = VOICES.get(voice_id) or BACKGROUND.get(voice_id)
    if voice is None:
        raise ValueError(f"unknown voice {voice_id!r}; choose from {', '.join(VOICES)} or the bg_* pool")
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")
    if condition == "clean":
        return speak_as(text, voice)
    out = cache_dir() / f"{clip_key(voice_id, text, condition)}.wav"
    if out.exists():
        return out
    require_tools()
    clean = speak_as(text, voice)
    with tempfile.TemporaryDirectory(prefix="voxmem-tts-") as tmpdir:
        result = Path(tmpdir) / "shifted.wav"
        _shift(condition, clean, result, Path(tmpdir))
        return store_clip(result, out)


def concatenate(paths: list[Path], gap_s: float = 0.6) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Join clips with silence between them: (16 kHz samples, [(start, end)] of each clip)."""
    pieces: list[np.ndarray] = []
    spans: list[tuple[float, float]] = []
    t = 0.0
    gap = np.zeros(int(16000 * gap_s), dtype=np.float32)
    for path in paths:
        x, rate = sf.read(path, dtype="float32")
        assert rate == 16000, path
        pieces += [x, gap]
        spans.append((t, t + len(x) / 16000))
        t += (len(x) + len(gap)) / 16000
    return (np.concatenate(pieces) if pieces else np.zeros(0, np.float32)), spans
