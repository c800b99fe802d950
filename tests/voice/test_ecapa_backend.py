"""The SpeechBrain ECAPA backend, exercised for real: a small, randomly initialised ECAPA-TDNN is
saved as a local ``from_hparams`` directory (the layout of speechbrain's published speaker
models) and loaded through ``build_encoder`` with every network connection refused. Random
weights say nothing about speaker separation; they prove loading, shapes and the no-download
rule. Real weights need their own calibration run (``python -m bench.calibrate
--encoder ecapa``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voxmem.voice.encoders import EncoderUnavailable, build_encoder

torch = pytest.importorskip("torch")
pytest.importorskip("speechbrain")

HPARAMS = """pretrained_path: {path}
compute_features: !new:speechbrain.lobes.features.Fbank
    n_mels: 80
mean_var_norm: !new:speechbrain.processing.features.InputNormalization
    norm_type: sentence
    std_norm: False
embedding_model: !new:speechbrain.lobes.models.ECAPA_TDNN.ECAPA_TDNN
    input_size: 80
    channels: [64, 64, 64, 64, 192]
    kernel_sizes: [5, 3, 3, 3, 1]
    dilations: [1, 2, 3, 4, 1]
    attention_channels: 32
    lin_neurons: 192
classifier: !new:speechbrain.lobes.models.ECAPA_TDNN.Classifier
    input_size: 192
    out_neurons: 4
modules:
    compute_features: !ref <compute_features>
    mean_var_norm: !ref <mean_var_norm>
    embedding_model: !ref <embedding_model>
    classifier: !ref <classifier>
label_encoder: !new:speechbrain.dataio.encoder.CategoricalEncoder
pretrainer: !new:speechbrain.utils.parameter_transfer.Pretrainer
    loadables:
        embedding_model: !ref <embedding_model>
        classifier: !ref <classifier>
    paths:
        embedding_model: !ref <pretrained_path>/embedding_model.ckpt
        classifier: !ref <pretrained_path>/classifier.ckpt
"""


@pytest.fixture
def ecapa_dir(tmp_path: Path) -> Path:
    from speechbrain.lobes.models.ECAPA_TDNN import ECAPA_TDNN, Classifier

    torch.manual_seed(0)
    model = ECAPA_TDNN(
        80,
        channels=[64, 64, 64, 64, 192],
        kernel_sizes=[5, 3, 3, 3, 1],
        dilations=[1, 2, 3, 4, 1],
        attention_channels=32,
        lin_neurons=192,
    )
    torch.save(model.state_dict(), tmp_path / "embedding_model.ckpt")
    torch.save(Classifier(192, out_neurons=4).state_dict(), tmp_path / "classifier.ckpt")
    (tmp_path / "hyperparams.yaml").write_text(HPARAMS.format(path=tmp_path))
    return tmp_path


def test_ecapa_loads_from_a_local_directory_without_network(ecapa_dir: Path, no_network: None) -> None:
    encoder = build_encoder("ecapa", ecapa_dir, expected_dim=192)
    rng = np.random.default_rng(0)
    a, b = (rng.normal(0, 0.1, 32_000).astype(np.float32) for _ in range(2))
    ea, eb = encoder.embed(a), encoder.embed(b)
    assert encoder.name == "ecapa" and ea.shape == (192,) and ea.dtype == np.float32
    assert abs(float(np.linalg.norm(ea)) - 1.0) < 1e-5
    assert np.allclose(encoder.embed(a), ea, atol=1e-6)  # deterministic
    assert not np.allclose(ea, eb, atol=1e-3)


def test_ecapa_dimension_must_match_the_vector_indexes(ecapa_dir: Path, no_network: None) -> None:
    with pytest.raises(EncoderUnavailable) as err:
        build_encoder("ecapa", ecapa_dir, expected_dim=256)
    assert "VOXMEM_VOICE_EMBEDDING_DIM" in err.value.message
