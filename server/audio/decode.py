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
    """Audio the server cannot use; ``kind`` is one of corrupt, empty, silent, too_short, too_long,
    no_speech."""

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


# Sample rates a real recording uses. A header outside this range is a lie or damage; a rate
# below 8 kHz would multiply the data on the way to 16 kHz (a "1 Hz" header: 16,000-fold).
MIN_SOURCE_RATE = 8_000
MAX_SOURCE_RATE = 384_000
# Decoded 16 kHz float32 bytes allowed per uploaded byte. The leanest real codec (6 kbit/s
# Opus) expands about 85-fold; a file that expands more is a decompression bomb, refused
# before it is read to the end, so a small upload costs little memory whatever it claims.
MAX_EXPANSION = 256
_BLOCK_VALUES = 1 << 20  # values read per block (4 MB of float32), whatever the channel count


def resample(samples: np.ndarray, source_rate: int, target_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Polyphase resampling (scipy), exact for integer rate ratios such as 8k/44.1k/48k → 16k.

    An odd rate (e.g. 8001 Hz) would give a ratio with a huge numerator and a filter of
    hundreds of thousands of taps; the ratio is rounded to a denominator under 1000, which
    shifts pitch and duration by well under 0.1 %.
    """
    if source_rate == target_rate:
        return samples.astype(np.float32, copy=False)
    from fractions import Fraction

    from scipy.signal import resample_poly

    ratio = Fraction(target_rate, source_rate).limit_denominator(1000)
    return resample_poly(samples, ratio.numerator, ratio.denominator).astype(np.float32)


def _max_seconds(raw_len: int, max_seconds: float | None) -> float:
    """The longest decoded duration allowed: the caller's limit and the expansion bound."""
    bound = raw_len * MAX_EXPANSION / (SAMPLE_RATE * 4)
    return bound if max_seconds is None else min(bound, max_seconds)


def _too_long(duration: float, raw_len: int, max_seconds: float | None) -> AudioError:
    if max_seconds is not None and duration > max_seconds:
        return AudioError("too_long", f"{duration:.1f} s is longer than the limit of {max_seconds:.0f} s")
    return AudioError(
        "corrupt", f"{raw_len} bytes claim {duration:.1f} s of audio: more than any real codec packs"
    )


def wav_length_lie(raw: bytes) -> str | None:
    """Why a WAV's declared sample data size cannot be the truth, or None.

    libsndfile reads exactly the ``data`` size the header declares, so a header written before
    the recording ended (size 0, or the size of a first buffer) decoded as 0 s ("too short") or,
    worse, as the first part of the speech with the rest dropped without a sign. Bytes after
    the declared samples are fine when they are WAV chunks (``LIST``, ``id3 `` …: a printable
    id and a size that ends within the file); anything else there means the size is wrong.
    Sizes of 0xFFFFFFFF (streaming writers' "unknown") and RF64 files are left to libsndfile.
    """
    if len(raw) < 20 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(raw):
        size = int.from_bytes(raw[pos + 4 : pos + 8], "little")
        if raw[pos : pos + 4] != b"data":
            pos += 8 + size + (size & 1)
            continue
        follow = len(raw) - pos - 8
        if size == 0xFFFFFFFF or size >= follow:
            return None  # unknown length, exact, or truncated: libsndfile reads what is there
        after = pos + 8 + size + (size & 1)
        while after + 8 <= len(raw):
            chunk, length = raw[after : after + 4], int.from_bytes(raw[after + 4 : after + 8], "little")
            if not all(0x20 <= b <= 0x7E for b in chunk) or after + 8 + length > len(raw) + 1:
                return (
                    f"the WAV header declares {size} bytes of samples but {follow} bytes follow, and "
                    "what follows them is not a WAV chunk: the header's data size is wrong (written "
                    "before the recording ended?); fix the header or re-encode the file"
                )
            after += 8 + length + (length & 1)
        return None
    return None


def _read_soundfile(raw: bytes, max_seconds: float | None) -> Audio | None:
    """Read with libsndfile, checking the header before reading any samples.

    The rate and length come from the header, so a lying rate or length is refused before
    a sample is allocated; samples are then read in bounded blocks and folded to mono block
    by block (a 1,000-channel header cannot multiply memory), stopping at the duration cap.
    """
    try:
        handle = sf.SoundFile(io.BytesIO(raw))
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
        return None
    with handle:
        rate, channels, frames = int(handle.samplerate), int(handle.channels), int(handle.frames)
        if not MIN_SOURCE_RATE <= rate <= MAX_SOURCE_RATE:
            raise AudioError(
                "corrupt", f"sample rate {rate} Hz is outside {MIN_SOURCE_RATE}-{MAX_SOURCE_RATE} Hz"
            )
        if channels < 1:
            raise AudioError("corrupt", "the header declares no channels")
        cap = _max_seconds(len(raw), max_seconds)
        if frames > 0 and frames / rate > cap:
            raise _too_long(frames / rate, len(raw), max_seconds)
        cap_frames = int(cap * rate) + 1
        block = max(1, _BLOCK_VALUES // channels)
        parts: list[np.ndarray] = []
        total = 0
        try:
            while True:
                data = handle.read(min(block, cap_frames + 1 - total), dtype="float32", always_2d=True)
                if len(data) == 0:
                    break
                parts.append(data.mean(axis=1, dtype=np.float32) if channels > 1 else data[:, 0].copy())
                total += len(data)
                if total > cap_frames:
                    raise _too_long(total / rate, len(raw), max_seconds)
        except (sf.LibsndfileError, RuntimeError) as exc:
            if not parts:
                raise AudioError("corrupt", f"cannot decode the audio: {exc}") from exc
    mono = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    del parts
    return Audio(resample(mono, rate))


def _read_ffmpeg(raw: bytes, max_seconds: float | None) -> Audio | None:
    """ffmpeg for what libsndfile cannot read; its output is cut at the duration cap."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        return None
    cap = _max_seconds(len(raw), max_seconds)
    cmd = [
        ffmpeg,
        "-nostdin",
        "-v",
        "error",
        "-i",
        "pipe:0",
        "-t",
        f"{cap + 0.5:.3f}",
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
    samples = np.frombuffer(proc.stdout[: len(proc.stdout) // 4 * 4], dtype="<f4")
    if len(samples) / SAMPLE_RATE > cap:
        raise _too_long(len(samples) / SAMPLE_RATE, len(raw), max_seconds)
    return Audio(samples.astype(np.float32))


def decode_audio(source: bytes | str | Path, max_seconds: float | None = None) -> Audio:
    """Bytes or a path → :class:`Audio`. Raises :class:`AudioError` ('empty' / 'corrupt' /
    'too_long').

    ``max_seconds`` is checked against the header before any sample is decoded, and the
    decoded length is also bounded by the upload's size (:data:`MAX_EXPANSION`), so memory
    per request stays proportional to the bytes received.
    """
    raw = Path(source).read_bytes() if isinstance(source, str | Path) else bytes(source)
    if not raw:
        raise AudioError("empty", "the audio payload has no bytes")
    if why := wav_length_lie(raw):
        raise AudioError("corrupt", why)
    audio = _read_soundfile(raw, max_seconds) or _read_ffmpeg(raw, max_seconds)
    if audio is None:
        raise AudioError("corrupt", "cannot decode the audio (supported: wav, flac, ogg, mp3)")
    samples = np.nan_to_num(audio.samples, nan=0.0, posinf=0.0, neginf=0.0)
    return Audio(np.clip(samples, -1.0, 1.0).astype(np.float32))
