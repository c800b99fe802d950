"""Hostile inputs generated at test time: bad audio files and injection strings.

Why generated, not stored: each case says in code what is wrong with it (a lying sample
rate, a truncated chunk, a NaN sample), so a reader can see what the server must survive,
and the repository carries no binary blobs.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable

import numpy as np
import soundfile as sf


def wav(
    payload: bytes,
    *,
    rate: int = 16_000,
    channels: int = 1,
    bits: int = 16,
    fmt_tag: int = 1,
    data_size: int | None = None,
    block_align: int | None = None,
    magic: bytes = b"RIFF",
) -> bytes:
    """A WAV file written by hand so every header field can lie."""
    align = block_align if block_align is not None else max(1, channels * bits // 8) & 0xFFFF
    fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, (rate * align) & 0xFFFFFFFF, align, bits)
    size = len(payload) if data_size is None else data_size
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", size) + payload
    return magic + struct.pack("<I", (len(body)) & 0xFFFFFFFF) + body


def _pcm16(x: np.ndarray) -> bytes:
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


def _tone(seconds: float, rate: int = 16_000, freq: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return 0.3 * np.sin(2 * np.pi * freq * t)


def _encode(data: np.ndarray, rate: int, fmt: str, subtype: str | None = None) -> bytes:
    buf = io.BytesIO()
    sf.write(buf, data, rate, format=fmt, subtype=subtype)
    return buf.getvalue()


def white_noise(seconds: float, rate: int = 16_000) -> np.ndarray:
    return np.random.default_rng(7).uniform(-0.5, 0.5, int(seconds * rate))


def square_wave(seconds: float, rate: int = 16_000) -> np.ndarray:
    return 0.4 * np.sign(np.sin(2 * np.pi * 200 * np.arange(int(seconds * rate)) / rate))


_FOUR_KB = _pcm16(_tone(0.128))  # 4,096 bytes of 16-bit samples


def bad_audio() -> dict[str, Callable[[], bytes]]:
    """Name → builder of a hostile upload. None of them is usable speech."""
    f32_nan = np.full(16_000, np.nan, dtype="<f4")
    f32_inf = np.tile(np.array([np.inf, -np.inf], dtype="<f4"), 8_000)
    f32_huge = np.full(16_000, 1e30, dtype="<f4")
    return {
        "lying_rate_1hz_4kb": lambda: wav(_FOUR_KB, rate=1),
        "lying_rate_10hz_4kb": lambda: wav(_FOUR_KB, rate=10),
        "lying_rate_7999hz_4kb": lambda: wav(_FOUR_KB, rate=7_999),
        "lying_rate_1hz_172kb": lambda: wav(_FOUR_KB * 42, rate=1),
        "rate_zero": lambda: wav(_FOUR_KB, rate=0),
        "rate_4ghz": lambda: wav(_FOUR_KB, rate=4_000_000_000),
        "channels_65535": lambda: wav(_FOUR_KB, channels=65_535),
        "channels_zero": lambda: wav(_FOUR_KB, channels=0),
        "channels_1024_4kb": lambda: wav(_FOUR_KB, channels=1024),
        "data_size_4gb_truncated": lambda: wav(_FOUR_KB, data_size=0xFFFFFFFF),
        "header_only": lambda: wav(b""),
        "truncated_mid_header": lambda: wav(_FOUR_KB)[:30],
        "zero_length": lambda: b"",
        "one_byte": lambda: b"\x00",
        "wrong_magic_rifx": lambda: wav(_FOUR_KB, magic=b"RIFX"),
        "wrong_magic_junk": lambda: wav(_FOUR_KB, magic=b"JUNK"),
        "float_nan": lambda: wav(f32_nan.tobytes(), fmt_tag=3, bits=32),
        "float_inf": lambda: wav(f32_inf.tobytes(), fmt_tag=3, bits=32),
        "float_1e30": lambda: wav(f32_huge.tobytes(), fmt_tag=3, bits=32),
        "bits_7": lambda: wav(_FOUR_KB, bits=7),
        "block_align_zero": lambda: wav(_FOUR_KB, block_align=0),
        "format_tag_unknown": lambda: wav(_FOUR_KB, fmt_tag=0x1234),
        "random_bytes": lambda: np.random.default_rng(1).bytes(4096),
        "text_file": lambda: b"this is not audio\n" * 200,
        "png_magic": lambda: b"\x89PNG\r\n\x1a\n" + b"\x00" * 4000,
        "id3_then_junk": lambda: b"ID3\x03\x00\x00\x00\x00\x00\x10" + b"\xff" * 4000,
        "flac_truncated": lambda: _encode(_tone(2.0), 16_000, "FLAC")[:200],
        "ogg_truncated": lambda: _encode(_tone(2.0), 16_000, "OGG")[:300],
        "flac_silence_bomb": lambda: _encode(np.zeros(16_000 * 110), 16_000, "FLAC"),
        "silent_wav": lambda: wav(_pcm16(np.zeros(16_000))),
        "too_short_wav": lambda: wav(_pcm16(_tone(0.1))),
        "white_noise_wav": lambda: wav(_pcm16(white_noise(2.0))),
        "square_wave_wav": lambda: wav(_pcm16(square_wave(2.0))),
    }


# Decodable and loud, but not speech: must never become a turn or a speaker (finding 6).
NON_SPEECH = ("white_noise_wav", "square_wave_wav", "float_1e30")


INJECTIONS: tuple[str, ...] = (
    "' OR 1=1 //",
    '" RETURN n //',
    "x'}) MATCH (n) DETACH DELETE n //",
    "`) MATCH (n) RETURN n //",
    "\\' UNION MATCH (n) RETURN n.text //",
    "CALL db.labels()",
    "*:*",
    "text:* OR space:*",
    "AND OR NOT ((( ]]] {{{",
    'a~~~~~~ ^^^ "unbalanced',
    "/.*/",
    "?" * 200,
    "\x00\x01\x02",
    "$space",
    "{space: 'other'}",
)
