"""Channel compensation of speaker embeddings: nuisance attribute projection (NAP).

Why: with resemblyzer, a voice that comes back through another channel (reverberant room,
telephone band, a faster speaking rate) moves about as far as a different person would, so
the router creates a new speaker and reconciliation cannot safely join the fragments. Much of
that move lies in a few directions shared by all voices. NAP (Solomonoff et al., 2005) removes
them: ``e' = normalise(e - Vᵀ V e)`` with ``V`` the top-k right singular vectors of
"same utterance, other channel minus clean" differences.

The basis is fitted by ``python -m bench.calibrate`` on voices that are *not* in the
benchmark's voice set, and ``k`` is chosen there by simulation with the thresholds, which are
calibrated on compensated embeddings: basis and thresholds belong together, per encoder, in
``channel_projection.json`` and ``thresholds.json``. An encoder without a fitted basis is used
as it is (k = 0). Changing the basis changes the embedding space, so stored voiceprints carry
:func:`voiceprint_tag` and only voiceprints of the same tag are compared.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

PROJECTION_FILE = Path(str(resources.files("voxmem.voice").joinpath("channel_projection.json")))


@dataclass(frozen=True)
class ChannelProjection:
    """Removes ``basis`` (k orthonormal rows) from embeddings; k = 0 leaves them unchanged."""

    basis: np.ndarray  # (k, dim)

    @property
    def k(self) -> int:
        return int(self.basis.shape[0])

    def apply(self, embedding: np.ndarray) -> np.ndarray:
        e: np.ndarray = np.asarray(embedding, dtype=np.float32)
        if self.k:
            e = e - self.basis.T @ (self.basis @ e)
        return (e / max(float(np.linalg.norm(e)), 1e-12)).astype(np.float32)

    def first(self, k: int) -> ChannelProjection:
        """The projection on the first ``k`` directions only (for choosing k)."""
        return ChannelProjection(self.basis[:k])

    @classmethod
    def fit(cls, differences: np.ndarray, k: int) -> ChannelProjection:
        """Top-``k`` directions of the channel differences (rows: shifted minus clean)."""
        _, _, vt = np.linalg.svd(np.asarray(differences, dtype=np.float64), full_matrices=False)
        return cls(vt[:k].astype(np.float32))

    @classmethod
    def identity(cls, dim: int = 0) -> ChannelProjection:
        return cls(np.zeros((0, dim), dtype=np.float32))


def voiceprint_tag(encoder: str, projection: ChannelProjection) -> str:
    """The ``encoder`` value stored on Speaker and Voiceprint nodes: the encoder plus the
    projection it was compensated with ("resemblyzer+nap4.1a2b3c": k and a digest of the basis,
    since a refit keeps k but moves the directions). Candidates are looked up by this tag, so
    voiceprints made under another basis are never compared with new ones (they stay in the
    graph, listed, until re-enrolled or forgotten)."""
    if not projection.k:
        return encoder
    digest = hashlib.sha1(np.round(projection.basis, 5).astype(np.float32).tobytes()).hexdigest()[:6]
    return f"{encoder}+nap{projection.k}.{digest}"


def load_projection(encoder: str, calibration_dir: Path | None = None) -> ChannelProjection:
    """The fitted projection of ``encoder`` (``calibration_dir`` first, as for thresholds), or
    the identity when none was fitted."""
    from voxmem.voice.thresholds import calibration_table

    entry = calibration_table(PROJECTION_FILE, calibration_dir).get(encoder)
    if not entry or not entry.get("basis"):
        return ChannelProjection.identity()
    return ChannelProjection(np.asarray(entry["basis"], dtype=np.float32))
