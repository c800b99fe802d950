"""The pyannote.audio embedding backend, exercised for real where pyannote.audio is installed
(it is not in the default environment; docs/voice.md has the recipe): a randomly initialised
WeSpeaker ResNet34 is saved as a local checkpoint and loaded through ``build_encoder`` with
every network connection refused. Random weights prove loading and shapes, not separation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voxmem.voice.encoders import EncoderUnavailable, build_encoder

torch = pytest.importorskip("torch")
pytest.importorskip("pyannote.audio")


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    import lightning
    from pyannote.audio.core.task import Problem, Resolution, Specifications
    from pyannote.audio.models.embedding import WeSpeakerResNet34

    torch.manual_seed(0)
    model = WeSpeakerResNet34()
    model.specifications = Specifications(
        problem=Problem.REPRESENTATION, resolution=Resolution.CHUNK, duration=3.0
    )
    state = {
        "state_dict": model.state_dict(),
        "hyper_parameters": dict(model.hparams),
        "pytorch-lightning_version": lightning.__version__,
    }
    model.on_save_checkpoint(state)  # adds pyannote's architecture and version block
    path = tmp_path / "pytorch_model.bin"
    torch.save(state, path)
    return path


def test_pyannote_loads_a_local_checkpoint_without_network(checkpoint: Path, no_network: None) -> None:
    encoder = build_encoder("pyannote", checkpoint, expected_dim=256)
    rng = np.random.default_rng(0)
    a, b = (rng.normal(0, 0.1, 32_000).astype(np.float32) for _ in range(2))
    ea = encoder.embed(a)
    assert encoder.name == "pyannote" and encoder.dim == 256 and ea.shape == (256,)
    assert abs(float(np.linalg.norm(ea)) - 1.0) < 1e-5
    assert np.allclose(encoder.embed(a), ea, atol=1e-5)
    assert not np.allclose(ea, encoder.embed(b), atol=1e-3)


def test_pyannote_dimension_must_match_the_vector_indexes(checkpoint: Path, no_network: None) -> None:
    with pytest.raises(EncoderUnavailable) as err:
        build_encoder("pyannote", checkpoint, expected_dim=192)
    assert "VOXMEM_VOICE_EMBEDDING_DIM" in err.value.message
