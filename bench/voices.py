"""Deterministic synthetic voices (espeak-ng + sox) for benchmarks and spoken tests.

Recipes follow /work/shared/notes/synthetic_voices.md: the "Chosen 6" (greedy max-min
over ASR-acceptable espeak-ng variants, largest inter-centroid cosine 0.784 with
resemblyzer) plus extra variants, and the acoustic shifts used to test drift:
``reverb`` (reverb 50 + white noise at 20 dB SNR), ``telephone`` (300-3400 Hz band at
8 kHz) and ``tempo`` (10 % faster). Files are cached under
``$VOXMEM_CACHE_DIR/audio/<sha1 of voice, text, condition>.wav``, so a re-run costs
nothing and the same inputs always give the same bytes (the noise has a fixed seed).

API: ``synthesize(text, voice_id, condition="clean") -> Path``.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

CONDITIONS = ("clean", "reverb", "telephone", "tempo")
_RECIPE_VERSION = "v1"


@dataclass(frozen=True)
class Voice:
    id: str
    espeak: tuple[str, ...]  # espeak-ng arguments
    timbre: tuple[str, ...] = ()  # sox effects between 'gain -8' and 'norm -3'


VOICES: dict[str, Voice] = {
    v.id: v
    for v in (
        # the "Chosen 6" (clean-channel set)
        Voice("us_klatt5", ("-v", "en-us+klatt5", "-p", "50", "-s", "155")),
        Voice("us_f3_s150", ("-v", "en-us+f3", "-p", "70", "-s", "150"), ("equalizer", "2500", "1q", "+6")),
        Voice("us_m5_deep", ("-v", "en-us+m5", "-p", "40", "-s", "150"), ("pitch", "-350", "bass", "+8")),
        Voice("us_croak_hi", ("-v", "en-us+croak", "-p", "50", "-s", "150"), ("pitch", "+200", "bass", "-6")),
        Voice("us_m1", ("-v", "en-us+m1", "-p", "50", "-s", "165")),
        Voice(
            "us_klatt3_eq",
            ("-v", "en-us+klatt3", "-p", "45", "-s", "160"),
            ("equalizer", "1000", "1q", "+8", "bass", "-6"),
        ),
        # extra variants (telephone-robust alternative and further distinct timbres)
        Voice("us_klatt4", ("-v", "en-us+klatt4", "-p", "70", "-s", "155")),
        Voice(
            "us_klatt_deep", ("-v", "en-us+klatt", "-p", "30", "-s", "145"), ("pitch", "-300", "treble", "+3")
        ),
        Voice("us_m2_low", ("-v", "en-us+m2", "-p", "40", "-s", "150"), ("pitch", "-200", "treble", "+4")),
        Voice(
            "us_annie_low",
            ("-v", "en-us+Annie", "-p", "45", "-s", "150"),
            (
                "pitch",
                "-200",
            ),
        ),
    )
}
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


def cache_dir() -> Path:
    from voxmem.config import get_settings

    path = get_settings().cache_dir / "audio"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _key(voice_id: str, text: str, condition: str) -> str:
    return hashlib.sha1(f"{_RECIPE_VERSION}\x00{voice_id}\x00{condition}\x00{text}".encode()).hexdigest()


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr.strip()[:500]}")


def _require_tools() -> None:
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(f"missing {', '.join(missing)}: apt-get install -y espeak-ng sox libsox-fmt-all")


def _add_noise(path_in: Path, path_out: Path, snr_db: float = 20.0, seed: int = 0) -> None:
    """White Gaussian noise at ``snr_db`` against the power of the active samples; peak 0.7."""
    x, rate = sf.read(path_in, dtype="float64")
    active = x[np.abs(x) > 0.02 * np.abs(x).max()] if np.abs(x).max() > 0 else x
    power = float(np.mean(active**2)) if len(active) else 1e-8
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(power / 10 ** (snr_db / 10)), len(x))
    y = x + noise
    y = 0.7 * y / max(np.abs(y).max(), 1e-9)
    sf.write(path_out, y.astype(np.float32), rate, subtype="PCM_16")


def _clean(voice: Voice, text: str, out: Path, tmp: Path) -> None:
    raw = tmp / "raw.wav"
    _run(["espeak-ng", *voice.espeak, "-w", str(raw), text])
    _run(
        [
            "sox",
            str(raw),
            "-r",
            "16000",
            "-c",
            "1",
            "-b",
            "16",
            str(out),
            "gain",
            "-8",
            *voice.timbre,
            "norm",
            "-3",
        ]
    )


def _shift(condition: str, clean: Path, out: Path, tmp: Path) -> None:
    if condition == "reverb":
        rev = tmp / "rev.wav"
        _run(["sox", str(clean), str(rev), "gain", "-6", "reverb", "50"])
        _add_noise(rev, out)
    elif condition == "telephone":
        t8 = tmp / "t8.wav"
        _run(["sox", str(clean), "-r", "8000", str(t8), "sinc", "300-3400"])
        _run(["sox", str(t8), "-r", "16000", "-b", "16", str(out)])
    elif condition == "tempo":
        _run(["sox", str(clean), str(out), "tempo", "1.1"])
    else:
        raise ValueError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")


def synthesize(text: str, voice_id: str, condition: str = "clean") -> Path:
    """Path of a 16 kHz mono 16-bit WAV of ``text`` in ``voice_id`` under ``condition`` (cached)."""
    voice = VOICES.get(voice_id) or BACKGROUND.get(voice_id)
    if voice is None:
        raise ValueError(f"unknown voice {voice_id!r}; choose from {', '.join(VOICES)} or the bg_* pool")
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")
    out = cache_dir() / f"{_key(voice_id, text, condition)}.wav"
    if out.exists():
        return out
    _require_tools()
    with tempfile.TemporaryDirectory(prefix="voxmem-tts-") as tmpdir:
        tmp = Path(tmpdir)
        clean = synthesize(text, voice_id, "clean") if condition != "clean" else tmp / "clean.wav"
        if condition == "clean":
            _clean(voice, text, clean, tmp)
            result = clean
        else:
            result = tmp / "shifted.wav"
            _shift(condition, clean, result, tmp)
        partial = out.with_suffix(".part.wav")
        shutil.copyfile(result, partial)
        partial.replace(out)  # atomic: concurrent callers never see half a file
    return out


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
