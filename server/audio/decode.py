"""Decode wav/flac/ogg/mp3 (any rate, any channel count) to 16 kHz mono float32.

Why two decoders: libsndfile (soundfile) reads wav/flac/ogg fast and in-process, but its
mp3 support depends on the system library version; ffmpeg reads everything else. A file
neither can read is *corrupt* and gets a clear error instead of a crash.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable, Iterator
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


# Data sizes streaming writers put in a header before they know the length (ffmpeg: 0xFFFFFFFF;
# sox and espeak-ng: 0x7ffff000): any size from here up means "unknown", never a truncation.
_UNKNOWN_DATA_SIZE = 0x7F000000


@dataclass(frozen=True)
class WavLayout:
    """Where a RIFF/WAVE file's samples are and what its ``fmt `` chunk says about them."""

    tag: int  # 1 integer PCM, 3 IEEE float (an extensible header's subformat)
    channels: int
    rate: int
    bits: int
    block_align: int
    data_at: int  # offset of the first sample byte
    declared: int  # the data chunk's declared size in bytes
    follow: int  # bytes in the file from the first sample byte on


def wav_layout(raw: bytes) -> WavLayout | None:
    """The layout of a RIFF/WAVE file, or None for anything else (or a file without ``data``).

    One chunk walk shared by the length checks and the header-misread hint, so both read the
    header the same way libsndfile does (chunks in order, odd sizes padded).
    """
    if len(raw) < 20 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        return None
    fmt: tuple[int, int, int, int, int] | None = None
    pos = 12
    while pos + 8 <= len(raw):
        chunk, size = raw[pos : pos + 4], int.from_bytes(raw[pos + 4 : pos + 8], "little")
        if chunk == b"fmt " and size >= 16 and pos + 24 <= len(raw):
            body = raw[pos + 8 : pos + 24]
            tag, channels = int.from_bytes(body[0:2], "little"), int.from_bytes(body[2:4], "little")
            rate, align = int.from_bytes(body[4:8], "little"), int.from_bytes(body[12:14], "little")
            if tag == 0xFFFE and size >= 40 and pos + 34 <= len(raw):  # extensible: the subformat
                tag = int.from_bytes(raw[pos + 32 : pos + 34], "little")
            fmt = (tag, channels, rate, int.from_bytes(body[14:16], "little"), align)
        if chunk == b"data":
            tag, channels, rate, bits, align = fmt or (0, 0, 0, 0, 0)
            return WavLayout(tag, channels, rate, bits, align, pos + 8, size, len(raw) - pos - 8)
        pos += 8 + size + (size & 1)
    return None


def wav_length_lie(raw: bytes) -> str | None:
    """Why a WAV's declared sample data size cannot be the truth, or None.

    libsndfile reads exactly the ``data`` size the header declares, so a header written before
    the recording ended (size 0, or the size of a first buffer) decoded as 0 s ("too short") or,
    worse, as the first part of the speech with the rest dropped without a sign. Bytes after
    the declared samples are fine when they are WAV chunks (``LIST``, ``id3 `` …: a printable
    id and a size that ends within the file); anything else there means the size is wrong.

    The other way round, a file that ends before the samples its header declares was cut on the
    way (an upload interrupted, a copy of a file still being written): libsndfile reads the
    words that arrived, and the turn would be stored as if they were all that was said ("a turn
    is stored with its memory or not at all"). So at least one whole missing sample frame is
    refused too. Sizes streaming writers use for "unknown" (0xFFFFFFFF, 0x7ffff000) stay
    accepted, and so does a missing pad byte.
    """
    layout = wav_layout(raw)
    if layout is None:
        return None
    size, follow = layout.declared, layout.follow
    if size > follow:
        if size >= _UNKNOWN_DATA_SIZE or size - follow < max(1, layout.block_align):
            return None  # a streaming writer's "unknown length", or only a pad / part frame short
        per_second = layout.rate * layout.block_align
        declared_s = f" ({size / per_second:.2f} s)" if per_second > 0 else ""
        arrived_s = f" ({follow / per_second:.2f} s)" if per_second > 0 else ""
        return (
            f"the WAV header declares {size} bytes of samples{declared_s} but the file ends after "
            f"{follow} bytes{arrived_s}: the file was cut short (an interrupted upload or copy?); "
            "send the whole file"
        )
    after = layout.data_at + size + (size & 1)
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


# Readings tried when a WAV holds no speech as its header describes it: the rates speech is
# recorded at, in order of how common they are, mono or two channels; at most this many values
# of the file are read per reading (about 30 s of 16 kHz mono), so the hint stays cheap.
_COMMON_RATES = (16_000, 8_000, 44_100, 48_000, 22_050, 32_000, 24_000, 11_025)
_MISREAD_VALUES = 480_000


def _pcm_values(raw: bytes, layout: WavLayout) -> np.ndarray | None:
    """The sample values of an integer-PCM or float32 WAV as float32, channels still interleaved."""
    data = raw[layout.data_at : layout.data_at + min(layout.declared, layout.follow)]
    width = layout.bits // 8
    data = data[: min(len(data), _MISREAD_VALUES * max(width, 1)) // max(width, 1) * width]
    if layout.tag == 3 and layout.bits == 32:
        return np.frombuffer(data, dtype="<f4").astype(np.float32)
    if layout.tag != 1 or width not in (1, 2, 3, 4):
        return None
    if width == 3:
        b = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        ints = (b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8 >> 8
        return (ints / float(1 << 23)).astype(np.float32)
    if width == 1:
        return ((np.frombuffer(data, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0).astype(np.float32)
    dtype = "<i2" if width == 2 else "<i4"
    return (np.frombuffer(data, dtype=dtype) / float(1 << (8 * width - 1))).astype(np.float32)


@dataclass(frozen=True)
class OtherReading:
    """The same WAV samples read at another rate or channel count than the header gives."""

    header: tuple[int, int]  # (rate, channels) the header declares
    rate: int
    channels: int
    speech: float  # seconds of speech the caller's measure found in this reading
    audio: Audio

    def hint(self) -> str:
        """The words that point the caller at the header field that is likely wrong."""
        rate, channels = self.header
        fields = [("sample rate", self.rate != rate), ("channel count", self.channels != channels)]
        wrong = " and ".join(name for name, differs in fields if differs)
        return (
            f"as the WAV header describes it ({rate} Hz, {channels} channel(s)); read as "
            f"{self.rate} Hz, {self.channels} channel(s) the same samples hold {self.speech:.1f} s of "
            f"speech: the header's {wrong} {'are' if ' and ' in wrong else 'is'} likely wrong; fix the "
            "header or re-encode the file"
        )


def other_readings(raw: bytes, speech_seconds: Callable[[Audio], float]) -> Iterator[OtherReading]:
    """The readings of a WAV's samples at other common rates and channel counts that hold speech
    (at least 0.5 s and 30 % of the reading, by ``speech_seconds``), most common rate first,
    mono before two channels; nothing for a file that is not an integer-PCM or float32 WAV.

    A header giving the wrong sample rate or channel count (a recorder's 8 kHz header on 16 kHz
    samples, stereo declared for mono) turns real speech into something the VAD or the ASR does
    not take for speech, and the caller met only ``no_speech``, which points at the microphone
    instead of the file. The VAD alone cannot tell which reading is right (on clean speech it
    fires on most of them), so the caller confirms a reading with its ASR; readings are made
    lazily, and only on that failure path. Other codecs carry no raw samples to reinterpret.
    """
    layout = wav_layout(raw)
    if layout is None or layout.channels < 1 or layout.rate < 1:
        return
    values = _pcm_values(raw, layout)
    if values is None or len(values) == 0:
        return
    for rate in _COMMON_RATES:
        for channels in (1, 2):
            if (rate, channels) == (layout.rate, layout.channels):
                continue
            frames = values[: len(values) // channels * channels].reshape(-1, channels).mean(axis=1)
            reading = Audio(resample(frames.astype(np.float32), rate))
            speech = round(speech_seconds(reading), 1)
            if speech >= 0.5 and speech >= 0.3 * reading.duration:
                yield OtherReading((layout.rate, layout.channels), rate, channels, speech, reading)


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
