"""The bad-audio corpus against the decoder: a clear AudioError or usable audio, and memory
bounded by the upload's size whatever its header claims (finding 1)."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import pytest
import scipy.signal  # noqa: F401  (imported before tracing: its import is not the upload's cost)

from voxmem.asr.transcriber import _transcript, is_speech_text
from voxmem.audio import AudioError, AudioLimits, decode_audio, validate_audio

from .corpus import NON_SPEECH, bad_audio

CORPUS = bad_audio()


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 25


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_bad_audio_is_refused_clearly_within_memory(name: str) -> None:
    raw = CORPUS[name]()
    limits = AudioLimits(max_seconds=120.0)
    tracemalloc.start()
    try:
        try:
            validate_audio(decode_audio(raw, limits.max_seconds), limits)
            accepted = True
        except AudioError:
            accepted = False
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A few MB for a small upload, whatever its header says; larger uploads in proportion.
    assert peak <= 6_000_000 + 40 * len(raw), f"{name}: {peak / 1e6:.1f} MB peak for {len(raw)} bytes"
    assert accepted == (name in NON_SPEECH), name


def test_lying_rate_4kb_is_refused_before_decoding() -> None:
    """The 1 Hz header on 4 KB used to be resampled 16,000-fold (+422 MB) before the 422."""
    raw = CORPUS["lying_rate_1hz_4kb"]()
    assert len(raw) < 4_200
    tracemalloc.start()
    try:
        with pytest.raises(AudioError):
            decode_audio(raw, 120.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


def test_a_wav_header_declaring_too_few_samples_is_refused_not_cut() -> None:
    """A header written before the recording ended (data size 0, or a first buffer's size) read as
    0 s ('too_short') or as the first half of the speech with the rest dropped silently. Bytes
    after the samples that are WAV chunks (LIST) are fine, and so are the sizes streaming writers
    use for 'unknown' (0xFFFFFFFF), exact sizes and odd sizes with a pad byte."""
    from .corpus import _pcm16, _tone, wav

    pcm = _pcm16(_tone(2.0))  # 64,000 bytes
    for declared in (0, 100, len(pcm) // 2):
        with pytest.raises(AudioError, match=f"declares {declared} bytes of samples but 64000 bytes follow"):
            decode_audio(wav(pcm, data_size=declared), 120.0)
    info = b"INFO" + b"ISFT" + (14).to_bytes(4, "little") + b"Lavf58.76.100\x00"
    tagged = wav(pcm) + b"LIST" + len(info).to_bytes(4, "little") + info
    for raw, seconds in (
        (wav(pcm), 2.0),
        (wav(pcm, data_size=0xFFFFFFFF), 2.0),
        (wav(pcm[:-1]) + b"\x00", 1.9999),
        (tagged, 2.0),
    ):
        assert decode_audio(raw, 120.0).duration == pytest.approx(seconds, abs=1e-3)


def test_a_wav_cut_before_its_declared_samples_end_is_refused_not_stored_in_part() -> None:
    """An upload cut halfway (or a copy of a file still being written) declares more samples than
    arrive: libsndfile read what was there and the turn was stored with only the first words.
    The sizes streaming writers put in a header before they know the length (ffmpeg 0xFFFFFFFF,
    sox / espeak-ng 0x7ffff000) and a missing last pad byte or part frame are no cut."""
    from .corpus import _pcm16, _tone, wav

    pcm = _pcm16(_tone(2.0))  # 64,000 bytes
    for raw in (wav(pcm, data_size=3 * len(pcm)), wav(pcm)[: 44 + len(pcm) // 2], wav(pcm)[:46]):
        with pytest.raises(AudioError, match="the file was cut short"):
            decode_audio(raw, 120.0)
    for raw, seconds in (
        (wav(pcm, data_size=0xFFFFFFFF), 2.0),
        (wav(pcm, data_size=0x7FFFF000), 2.0),
        (wav(pcm + b"\x00", data_size=len(pcm) + 1)[:-1], 2.0),  # odd size, pad byte missing
    ):
        assert decode_audio(raw, 120.0).duration == pytest.approx(seconds, abs=1e-3)


def test_other_readings_of_a_wav_name_the_header_field_that_differs() -> None:
    """other_readings re-reads the samples at the common rates and channel counts, most common
    first; each reading a (stand-in) VAD finds speech in comes with a hint naming the header
    field that differs. No speech anywhere, or a codec without raw samples: no reading."""
    from voxmem.audio.decode import Audio, other_readings

    from .corpus import _pcm16, _tone, wav

    pcm = _pcm16(_tone(2.0))  # a 2 s 16 kHz mono tone stands for speech: the stand-in VAD
    # hears "speech" only in readings 1.9-2.1 s long (16 kHz mono, and 8 kHz two channels)

    def heard(reading: Audio) -> float:
        return reading.duration if abs(reading.duration - 2.0) < 0.1 else 0.0

    for header, wrong in (({"rate": 8_000}, "sample rate is"), ({"channels": 2}, "channel count is")):
        found = next(other_readings(wav(pcm, **header), heard), None)
        assert found is not None and (found.rate, found.channels) == (16_000, 1), header
        assert f"the header's {wrong} likely wrong" in found.hint()
    both = [(r.rate, r.channels) for r in other_readings(wav(pcm, rate=32_000, channels=2), heard)]
    assert both == [(16_000, 1), (8_000, 2)]
    assert list(other_readings(wav(pcm, rate=48_000), lambda reading: 0.0)) == []
    assert list(other_readings(b"OggS" + bytes(100), heard)) == []


def test_odd_real_rates_still_decode() -> None:
    """8 kHz telephone audio and an odd 8001 Hz rate are real and decode to 16 kHz."""
    from .corpus import _pcm16, _tone, wav

    for rate in (8_000, 8_001, 44_100, 96_000):
        audio = decode_audio(wav(_pcm16(_tone(1.0, rate)), rate=rate), 120.0)
        assert abs(audio.duration - 1.0) < 0.01, rate


@pytest.mark.parametrize(
    "text",
    [
        "",
        ".",
        " ... ",
        "[Music]",
        "(upbeat music)",
        "♪ ♪",
        "*sigh*",
        "you",
        "You.",
        "Thank you.",
        "Thanks for watching!",
        "[BLANK_AUDIO]",
    ],
)
def test_whisper_output_for_noise_is_not_speech(text: str) -> None:
    """What Whisper writes for white noise, a square wave or music is no turn (finding 6)."""
    assert not is_speech_text(text)


@pytest.mark.parametrize(
    "text",
    ["Hi", "Thank you, Ann.", "I said thank you for watching the kids.", "Иван", "王", "42", "[laughs] yes"],
)
def test_words_in_any_script_are_speech(text: str) -> None:
    assert is_speech_text(text)


def _segment(
    text: str, logprob: float, ratio: float, no_speech: float = 0.1, temperature: float = 0.0
) -> SimpleNamespace:
    return SimpleNamespace(
        text=text,
        words=[],
        avg_logprob=logprob,
        compression_ratio=ratio,
        no_speech_prob=no_speech,
        temperature=temperature,
    )


def test_a_transcript_is_confident_only_when_a_segment_decoded_as_heard_speech() -> None:
    """Half-speed speech under a lying 8 kHz header decoded to "That's it." at log probability
    -1.56 (no-speech 0.58, so it was kept): words, but a guess, which the spoken-turn path now
    checks against other readings of the header. Another run sampled "That's it, that's it, …"
    at temperature 0.4 with a passable -0.84: a decode Whisper had to sample is a guess too, as
    is a looping one (compression ratio past 2.4); one clear segment makes the whole transcript
    confident."""
    guess = _transcript([_segment(" That's it.", -1.56, 0.56, 0.58, temperature=1.0)])
    assert guess.text == "That's it." and not guess.confident
    sampled = _transcript([_segment(" That's it, that's it, that's it.", -0.84, 2.35, 0.58, temperature=0.4)])
    assert not sampled.confident
    loop = _transcript([_segment(" That's it, that's it, that's it, that's it.", -0.4, 2.9)])
    assert not loop.confident
    clear = _transcript([_segment(" That's it.", -1.56, 0.56), _segment(" Lunch on Sunday.", -0.57, 0.9)])
    assert clear.confident and clear.text == "That's it. Lunch on Sunday."
