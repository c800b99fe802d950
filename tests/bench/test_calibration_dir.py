"""Calibration output goes to the directory the configuration names (voice_calibration_dir), never
into the package, and the server reads an encoder's entry there before the shipped tables."""

from __future__ import annotations

import json

import numpy as np

from bench.calibrate import _write_entry, save_projection
from voxmem.voice.compensation import PROJECTION_FILE, ChannelProjection, load_projection
from voxmem.voice.thresholds import THRESHOLDS_FILE, load_thresholds


def test_a_calibration_dir_overrides_only_the_encoders_it_holds(tmp_path) -> None:
    shipped = {p: p.read_bytes() for p in (THRESHOLDS_FILE, PROJECTION_FILE)}
    entry = {**json.loads(THRESHOLDS_FILE.read_text())["resemblyzer"], "link": 0.91, "update": 0.95}
    _write_entry(tmp_path, THRESHOLDS_FILE, "resemblyzer", entry, indent=2)
    basis = np.linalg.qr(np.random.default_rng(0).normal(size=(256, 2)))[0].T.astype(np.float32)
    save_projection(tmp_path, "resemblyzer", ChannelProjection(basis), "test basis")

    assert load_thresholds("resemblyzer", calibration_dir=tmp_path).link == 0.91
    assert load_thresholds("resemblyzer").link != 0.91  # the shipped table still answers without it
    assert load_thresholds("dvector", calibration_dir=tmp_path) == load_thresholds("dvector")
    projection = load_projection("resemblyzer", tmp_path)
    assert projection.k == 2 and np.allclose(projection.basis, basis, atol=1e-6)
    assert load_projection("dvector", tmp_path).k == load_projection("dvector").k
    assert {p: p.read_bytes() for p in shipped} == shipped  # the package's files were not touched


def test_a_second_encoder_keeps_the_first_one_calibrated_there(tmp_path) -> None:
    first = {**json.loads(THRESHOLDS_FILE.read_text())["resemblyzer"], "link": 0.9}
    _write_entry(tmp_path, THRESHOLDS_FILE, "resemblyzer", first, indent=2)
    _write_entry(tmp_path, THRESHOLDS_FILE, "dvector", {**first, "link": 0.5}, indent=2)
    assert load_thresholds("resemblyzer", calibration_dir=tmp_path).link == 0.9
    assert load_thresholds("dvector", calibration_dir=tmp_path).link == 0.5
