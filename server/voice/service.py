"""The voice models and router one server shares, built lazily (models load on first use).

Why lazy: the API starts in seconds and text-only deployments never load speech models;
the first audio request pays the load (resemblyzer 0.1 s + numba warm-up ~2 s, tiny.en 1.5 s).
"""

from __future__ import annotations

import numpy as np

from voxmem.asr.transcriber import Transcriber, build_transcriber
from voxmem.audio.decode import Audio
from voxmem.audio.vad import SileroVAD
from voxmem.config import Settings
from voxmem.lazy import Lazy
from voxmem.voice.compensation import ChannelProjection, load_projection, voiceprint_tag
from voxmem.voice.encoders import SpeakerEncoder, build_encoder
from voxmem.voice.overlap import is_mixed
from voxmem.voice.router import SpeakerRouter, indexes_for
from voxmem.voice.thresholds import Thresholds, load_thresholds


class VoiceService:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.thresholds: Thresholds = load_thresholds(
            settings.voice_encoder,
            settings.voice_link_threshold,
            settings.voice_update_threshold,
            settings.voice_calibration_dir,
        )
        self.projection: ChannelProjection = load_projection(
            settings.voice_encoder, settings.voice_calibration_dir
        )
        self.tag = voiceprint_tag(settings.voice_encoder, self.projection)  # stored on voiceprints
        if settings.voice_encoder == "fused":  # each half is compensated inside the encoder
            halves = (
                voiceprint_tag(n, load_projection(n, settings.voice_calibration_dir))
                for n in ("resemblyzer", "dvector")
            )
            self.tag = "fused(" + ",".join(halves) + ")"
        self.indexes = indexes_for(settings.voice_encoder)
        self.vad = SileroVAD()
        self._encoder: Lazy[SpeakerEncoder] = Lazy(
            lambda: build_encoder(
                settings.voice_encoder,
                settings.voice_encoder_path,
                settings.voice_embedding_dim,
                settings.voice_calibration_dir,
            )
        )
        self._asr: Lazy[Transcriber] = Lazy(lambda: build_transcriber(settings))

    @property
    def encoder(self) -> SpeakerEncoder:
        return self._encoder.get()

    @property
    def asr(self) -> Transcriber:
        return self._asr.get()

    def router(self, policy: str | None = None) -> SpeakerRouter:
        return SpeakerRouter(
            self.tag,
            policy or self.settings.voice_policy,
            self.thresholds,
            ema_weight=self.settings.voice_ema_weight,
            indexes=self.indexes,
        )

    def embed_piece(self, audio: Audio) -> tuple[np.ndarray, bool]:
        """A recording piece's voice embedding, and whether it looks like mixed speech (overlap
        or a speaker change; only for encoders with a calibrated ``overlap_dispersion``; the
        resemblyzer path is unchanged: never flagged)."""
        threshold = self.thresholds.overlap_dispersion
        if threshold < 0 or not hasattr(self.encoder, "embed_windows"):
            return self.embed(audio), False
        vector, windows = self.encoder.embed_windows(audio.samples, audio.sample_rate)
        return self.projection.apply(vector), is_mixed(windows, threshold)

    def embed(self, audio: Audio) -> np.ndarray:
        """The voice embedding the router stores and compares: encoder, then channel compensation."""
        return self.projection.apply(self.encoder.embed(audio.samples, audio.sample_rate))
