"""Channel compensation (NAP) on synthetic vectors: what it removes and what it keeps."""

from __future__ import annotations

import numpy as np

from voxmem.voice.compensation import ChannelProjection, load_projection
from voxmem.voice.routing import normalise
from voxmem.voice.thresholds import load_thresholds


def test_projection_removes_a_shared_channel_direction_and_keeps_speakers_apart() -> None:
    rng = np.random.default_rng(3)
    dim = 32
    channel = normalise(rng.normal(size=dim))  # the direction every voice moves in on the phone
    voices = [normalise(rng.normal(size=dim)) for _ in range(4)]
    shifted = [normalise(v + 0.8 * channel + 0.05 * rng.normal(size=dim)) for v in voices]
    diffs = np.stack([s - v for s, v in zip(shifted, voices, strict=True)])
    nap = ChannelProjection.fit(diffs, 1)
    assert nap.k == 1 and abs(float(nap.basis[0] @ channel)) > 0.95
    before = [float(v @ s) for v, s in zip(voices, shifted, strict=True)]
    after = [float(nap.apply(v) @ nap.apply(s)) for v, s in zip(voices, shifted, strict=True)]
    assert min(after) > max(before)  # a voice and its phone version come back together
    cross = max(float(nap.apply(a) @ nap.apply(b)) for i, a in enumerate(voices) for b in voices[i + 1 :])
    assert cross < min(after)  # and different voices stay apart
    assert abs(float(np.linalg.norm(nap.apply(voices[0]))) - 1.0) < 1e-5


def test_identity_and_prefix_projections() -> None:
    e = normalise(np.arange(1.0, 9.0))
    assert np.allclose(ChannelProjection.identity(8).apply(e), e)
    nap = ChannelProjection.fit(np.random.default_rng(1).normal(size=(20, 8)), 4)
    assert nap.first(0).k == 0 and np.allclose(nap.first(0).apply(e), e) and nap.first(2).k == 2


def test_shipped_projection_matches_its_calibrated_thresholds() -> None:
    """Basis and thresholds are calibrated together: the k recorded with the thresholds is the
    k of the shipped basis, and an encoder without a basis gets the identity."""
    import json

    from voxmem.voice.thresholds import THRESHOLDS_FILE

    table = json.loads(THRESHOLDS_FILE.read_text())
    projection = load_projection("resemblyzer")
    assert projection.k == table["resemblyzer"].get("channel_projection_k", 0)
    if projection.k:
        gram = projection.basis @ projection.basis.T
        assert np.allclose(gram, np.eye(projection.k), atol=1e-4)  # orthonormal rows
    assert load_projection("no-such-encoder").k == 0
    assert load_thresholds("resemblyzer").link > 0.5


def test_voiceprints_are_tagged_with_their_projection() -> None:
    from voxmem.voice.compensation import voiceprint_tag

    nap = ChannelProjection.fit(np.random.default_rng(2).normal(size=(10, 8)), 2)
    other = ChannelProjection.fit(np.random.default_rng(3).normal(size=(10, 8)), 2)
    assert voiceprint_tag("resemblyzer", nap).startswith("resemblyzer+nap2.")
    tag = voiceprint_tag("resemblyzer", nap)
    assert tag == voiceprint_tag("resemblyzer", ChannelProjection(nap.basis.copy()))
    assert tag != voiceprint_tag("resemblyzer", other)  # a refit with the same k is a new space
    assert voiceprint_tag("resemblyzer", ChannelProjection.identity(8)) == "resemblyzer"


def test_no_nuisance_candidate_is_a_benchmark_voice_or_its_variant() -> None:
    """The projection is fitted on the pool and scored on CHOSEN_6: no voice, and no espeak-ng
    variant behind a benchmark voice, may be in both (else the benchmark measures fitting)."""
    from bench.calibrate import NUISANCE_CANDIDATES
    from bench.voices import BACKGROUND, CHOSEN_6, VOICES

    assert len(NUISANCE_CANDIDATES) == len(set(NUISANCE_CANDIDATES)) >= 40
    assert not set(NUISANCE_CANDIDATES) & set(CHOSEN_6)
    variant = lambda voice: voice.espeak[voice.espeak.index("-v") + 1].split("+")[1]  # noqa: E731
    chosen = {variant(VOICES[v]) for v in CHOSEN_6}
    pool = {variant(BACKGROUND.get(v) or VOICES[v]) for v in NUISANCE_CANDIDATES}
    assert not chosen & pool


def test_the_nuisance_pool_drops_look_alikes_of_benchmark_voices(monkeypatch) -> None:
    """A candidate that sounds like a benchmark voice (closer to it than the benchmark voices are
    to each other) is left out; a distinct one is kept."""
    from bench import calibrate
    from bench.voices import CHOSEN_6

    rng = np.random.default_rng(5)
    centre = {v: rng.normal(size=16) for v in CHOSEN_6}
    twin, distinct = calibrate.NUISANCE_CANDIDATES[:2]
    centre[twin] = centre[CHOSEN_6[0]] + 0.01 * rng.normal(size=16)
    centre[distinct] = rng.normal(size=16)

    class Cache:
        projection = None

        def get(self, voice: str, text: str, condition: str = "clean") -> np.ndarray:
            return centre[voice] / np.linalg.norm(centre[voice])

    monkeypatch.setattr(calibrate, "NUISANCE_CANDIDATES", (twin, distinct))
    assert calibrate.nuisance_pool(Cache()) == (distinct,)
