"""Mixed-speech pieces: overlap, or a change of speaker, inside one VAD piece.

Why: a recording piece in which two people speak (AMI meetings overlap a lot) embeds as a blend
of both voices; enrolled as a new voice or averaged into a centroid, it drags that voice towards
the other person. The heuristic (documented in docs/voice.md): the encoder already embeds a
piece as the mean of short windows (d-vector: 0.8 s every 0.4 s); one voice gives windows that
agree, two voices give windows that point two ways. ``dispersion`` = 1 − length of the mean of
the unit window vectors (0: all windows agree; grows as they scatter). A piece whose dispersion
exceeds the encoder's calibrated ``overlap_dispersion`` (thresholds.json, fitted by
``python -m bench.calibrate`` on synthetic two-voice mixes of non-benchmark voices) is
kept out of enrolment and centroid updates: recording ingestion does not route it (it is
reported skipped with reason ``overlap``, its words join an adjacent turn as short pieces' do).
It cannot see overlap that is steady over the whole piece (every window the same blend).
"""

from __future__ import annotations

import numpy as np

MIN_WINDOWS = 3  # fewer windows than this: too short to judge, never flagged


def dispersion(windows: np.ndarray) -> float:
    """1 − ‖mean of the L2-normalised window embeddings‖; 0.0 below ``MIN_WINDOWS`` windows."""
    w = np.asarray(windows, dtype=np.float64)
    if w.ndim != 2 or len(w) < MIN_WINDOWS:
        return 0.0
    w = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-12)
    return float(1.0 - np.linalg.norm(w.mean(axis=0)))


def is_mixed(windows: np.ndarray, threshold: float) -> bool:
    """Whether a piece looks like two voices (``threshold`` < 0: detection off)."""
    return threshold >= 0 and dispersion(windows) > threshold
