"""Speaker encoders behind one interface: audio (16 kHz mono float32) → L2-normalised vector.

resemblyzer (GE2E, 256-d, weights shipped inside the wheel) is the default. SpeechBrain
ECAPA and pyannote embedding models are backends that load *only* from a local path
(``VOXMEM_VOICE_ENCODER_PATH``); with no path, or without the library, they raise
:class:`EncoderUnavailable` saying what to install or configure — never a hub download.
Each encoder has a ``name`` that keys its calibrated thresholds (thresholds.json).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from voxmem.errors import VoxmemError


class EncoderUnavailable(VoxmemError):
    """The configured encoder cannot be loaded (missing weights or library)."""

    status_code = 503


class SpeakerEncoder(Protocol):
    name: str
    dim: int

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        """One L2-normalised float32 vector for one utterance."""
        ...


def l2_normalise(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError("zero or non-finite speaker embedding")
    return v / norm


class ResemblyzerEncoder:
    """GE2E d-vector (256-d) from resemblyzer's bundled ``pretrained.pt``."""

    name = "resemblyzer"
    dim = 256

    def __init__(self) -> None:
        self._encoder = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._encoder is None:
                from resemblyzer import VoiceEncoder

                self._encoder = VoiceEncoder("cpu", verbose=False)
        return self._encoder

    def warm_up(self) -> None:
        self.embed(np.random.default_rng(0).normal(0, 0.1, 16_000).astype(np.float32))

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        from resemblyzer import preprocess_wav

        encoder = self._load()
        wav = preprocess_wav(np.asarray(samples, dtype=np.float32), source_sr=sample_rate)
        if len(wav) < 1600:  # webrtcvad trimmed (almost) everything: use the raw signal instead
            wav = np.asarray(samples, dtype=np.float32)
        with self._lock:
            vector = encoder.embed_utterance(wav)
        return l2_normalise(vector)


def _need_path(name: str, path: Path | None) -> Path:
    if path is None or not Path(path).exists():
        raise EncoderUnavailable(
            f"encoder {name!r} needs local weights: set VOXMEM_VOICE_ENCODER_PATH to a directory/file "
            f"holding them (got {path!s}); voxmem never downloads models"
        )
    return Path(path)


class EcapaEncoder:
    """SpeechBrain ECAPA-TDNN (192-d) from a local ``from_hparams`` directory."""

    name = "ecapa"
    dim = 192

    def __init__(self, path: Path | None) -> None:
        self.path = _need_path(self.name, path)
        try:
            from speechbrain.inference.speaker import EncoderClassifier
        except ImportError as exc:
            raise EncoderUnavailable(
                "encoder 'ecapa' needs the speechbrain package: pip install speechbrain"
            ) from exc
        os.environ["HF_HUB_OFFLINE"] = "1"
        self._model = EncoderClassifier.from_hparams(
            source=str(self.path), savedir=str(self.path), run_opts={"device": "cpu"}
        )
        self._lock = threading.Lock()

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        import torch

        with self._lock, torch.inference_mode():
            vector = self._model.encode_batch(torch.from_numpy(np.asarray(samples, np.float32))[None])
        return l2_normalise(vector.squeeze().cpu().numpy())


class PyannoteEncoder:
    """A pyannote.audio embedding model (e.g. wespeaker ResNet34, 256-d) from a local checkpoint."""

    name = "pyannote"

    def __init__(self, path: Path | None) -> None:
        self.path = _need_path(self.name, path)
        try:
            from pyannote.audio import Inference, Model
        except ImportError as exc:
            raise EncoderUnavailable(
                "encoder 'pyannote' needs pyannote.audio (it pins its own torch: use a separate environment)"
            ) from exc
        os.environ["HF_HUB_OFFLINE"] = "1"
        self._inference = Inference(Model.from_pretrained(str(self.path)), window="whole")
        self._lock = threading.Lock()
        self.dim = int(self.embed(np.zeros(16_000, np.float32) + 1e-3).shape[0])

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        import torch

        waveform = torch.from_numpy(np.asarray(samples, np.float32))[None]
        with self._lock:
            vector = self._inference({"waveform": waveform, "sample_rate": sample_rate})
        return l2_normalise(np.asarray(vector))


def build_encoder(name: str, path: Path | None = None, expected_dim: int | None = None) -> SpeakerEncoder:
    """The configured encoder; checks its dimension against the vector indexes."""
    if name == "resemblyzer":
        encoder: SpeakerEncoder = ResemblyzerEncoder()
    elif name == "ecapa":
        encoder = EcapaEncoder(path)
    elif name == "pyannote":
        encoder = PyannoteEncoder(path)
    else:
        raise EncoderUnavailable(f"unknown voice encoder {name!r}: use resemblyzer, ecapa or pyannote")
    if expected_dim is not None and encoder.dim != expected_dim:
        raise EncoderUnavailable(
            f"encoder {name!r} gives {encoder.dim}-d vectors but VOXMEM_VOICE_EMBEDDING_DIM is {expected_dim}"
        )
    return encoder
