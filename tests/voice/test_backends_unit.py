"""Optional backends fail with a clear, actionable error instead of downloading anything."""

from __future__ import annotations

import importlib.util

import pytest

from voxmem.asr.transcriber import AsrUnavailable, build_transcriber, resolve_model
from voxmem.config import Settings
from voxmem.voice.encoders import EncoderUnavailable, build_encoder
from voxmem.voice.thresholds import load_thresholds


@pytest.mark.parametrize("name", ["ecapa", "pyannote"])
def test_encoders_need_a_local_path(name: str, tmp_path) -> None:
    with pytest.raises(EncoderUnavailable) as err:
        build_encoder(name, None)
    assert "VOXMEM_VOICE_ENCODER_PATH" in err.value.message and err.value.status_code == 503
    with pytest.raises(EncoderUnavailable):
        build_encoder(name, tmp_path / "missing")


def test_unknown_encoder_and_uncalibrated_encoder() -> None:
    with pytest.raises(EncoderUnavailable):
        build_encoder("wav2vec-magic")
    with pytest.raises(EncoderUnavailable) as err:
        load_thresholds("ecapa")  # never borrowed from another encoder
    assert "bench.calibrate" in err.value.message


def test_asr_backends_fail_clearly(tmp_path) -> None:
    with pytest.raises(AsrUnavailable):
        resolve_model(str(tmp_path / "no-such-model"))
    with pytest.raises(AsrUnavailable):
        build_transcriber(Settings(asr_backend="kaldi"))
    if importlib.util.find_spec("whisperx") is None:
        with pytest.raises(AsrUnavailable) as err:
            build_transcriber(Settings(asr_backend="whisperx"))
        assert "whisperx" in err.value.message
