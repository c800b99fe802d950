"""On-disk cache of speaker embeddings of synthetic clips, so benchmark re-runs skip the encoder.

Keyed by (encoder name, voice, text, condition) under $VOXMEM_CACHE_DIR/audio/emb-<encoder>.npz.
Timing figures in the benchmark are measured separately on fresh audio, never from this cache.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import soundfile as sf

from bench.voices import synthesize
from voxmem.audio.speech import cache_dir


class EmbeddingCache:
    """Raw encoder outputs on disk; ``get`` applies ``projection`` (channel compensation) when
    given, so one cache serves every projection the calibration tries."""

    def __init__(self, encoder, projection=None) -> None:
        self.encoder = encoder
        self.projection = projection
        self.path: Path = cache_dir() / f"emb-{encoder.name}.npz"
        self._data: dict[str, np.ndarray] = dict(np.load(self.path)) if self.path.exists() else {}
        self._dirty = False

    @staticmethod
    def key(voice: str, text: str, condition: str) -> str:
        return hashlib.sha1(f"{voice}\x00{condition}\x00{text}".encode()).hexdigest()

    def get(self, voice: str, text: str, condition: str = "clean") -> np.ndarray:
        k = self.key(voice, text, condition)
        if k not in self._data:
            x, rate = sf.read(synthesize(text, voice, condition), dtype="float32")
            self._data[k] = self.encoder.embed(x, rate)
            self._dirty = True
        return self._data[k] if self.projection is None else self.projection.apply(self._data[k])

    def save(self) -> None:
        if self._dirty:
            tmp = self.path.with_suffix(".tmp.npz")
            np.savez(tmp, **self._data)
            tmp.replace(self.path)
            self._dirty = False


class FusedCache:
    """Fused embeddings composed from the two encoders' caches, so each clip is embedded once
    per encoder (the fused vector is a pure function of the two: ``FusedEncoder.combine``)."""

    def __init__(self, encoder) -> None:
        self.encoder = encoder
        self.projection = None  # the resemblyzer half is compensated inside ``combine``
        self.parts = [EmbeddingCache(part) for part in encoder.parts]

    def get(self, voice: str, text: str, condition: str = "clean") -> np.ndarray:
        return self.encoder.combine(*(c.get(voice, text, condition) for c in self.parts))

    def save(self) -> None:
        for c in self.parts:
            c.save()


def embedding_cache(encoder, projection=None) -> EmbeddingCache | FusedCache:
    """The benchmark cache for ``encoder`` (composed from its parts for the fused encoder)."""
    if hasattr(encoder, "combine"):
        return FusedCache(encoder)
    return EmbeddingCache(encoder, projection)
