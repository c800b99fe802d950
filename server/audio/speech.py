"""Synthetic speech for the demo (and the spoken tests and benchmarks): espeak-ng + sox.

``bash scripts/voxmem.sh demo`` plays its household conversation in these voices, so the
product needs a way to speak that does not lean on the benchmark; the benchmark builds its
acoustic shifts and background pool on top of this module (``bench/voices.py``).

Each voice is a fixed espeak-ng variant plus a sox timbre, rendered at 16 kHz mono 16-bit and
cached under ``$VOXMEM_CACHE_DIR/audio/<sha1 of recipe version, voice, condition, text>.wav``,
so a re-run costs nothing and reuses the very same clip (a fresh render differs by sox's
dither, a few least-significant bits).

API: ``speak(text, voice_id) -> Path``.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

RECIPE_VERSION = "v1"


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


def cache_dir() -> Path:
    """Where rendered clips are kept (``$VOXMEM_CACHE_DIR/audio``)."""
    from voxmem.config import get_settings

    path = get_settings().cache_dir / "audio"
    path.mkdir(parents=True, exist_ok=True)
    return path


def clip_key(voice_id: str, text: str, condition: str) -> str:
    """The cache file stem of one clip (``condition`` is ``clean`` here; the benchmark adds shifts)."""
    return hashlib.sha1(f"{RECIPE_VERSION}\x00{voice_id}\x00{condition}\x00{text}".encode()).hexdigest()


def run_tool(cmd: list[str]) -> None:
    """Run espeak-ng or sox; a failure raises with the tool's own message."""
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr.strip()[:500]}")


def require_tools() -> None:
    """A clear error naming the Debian packages when espeak-ng or sox is missing."""
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(f"missing {', '.join(missing)}: apt-get install -y espeak-ng sox libsox-fmt-all")


def store_clip(result: Path, out: Path) -> Path:
    """Move a rendered clip into the cache atomically: concurrent callers never see half a file."""
    partial = out.with_suffix(".part.wav")
    shutil.copyfile(result, partial)
    partial.replace(out)
    return out


def _render(voice: Voice, text: str, out: Path, tmp: Path) -> None:
    raw = tmp / "raw.wav"
    run_tool(["espeak-ng", *voice.espeak, "-w", str(raw), text])
    run_tool(
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


def speak_as(text: str, voice: Voice) -> Path:
    """Path of a 16 kHz mono 16-bit WAV of ``text`` in ``voice`` (cached)."""
    out = cache_dir() / f"{clip_key(voice.id, text, 'clean')}.wav"
    if out.exists():
        return out
    require_tools()
    with tempfile.TemporaryDirectory(prefix="voxmem-tts-") as tmpdir:
        clean = Path(tmpdir) / "clean.wav"
        _render(voice, text, clean, Path(tmpdir))
        return store_clip(clean, out)


def speak(text: str, voice_id: str) -> Path:
    """Path of a WAV of ``text`` spoken by the named voice (one of :data:`VOICES`)."""
    voice = VOICES.get(voice_id)
    if voice is None:
        raise ValueError(f"unknown voice {voice_id!r}; choose from {', '.join(VOICES)}")
    return speak_as(text, voice)
