"""The llama.cpp runtime: a llama-cpp-python wheel built once and a small virtualenv of its own.

Why a separate virtualenv: llama-cpp-python is a source package (C++ compiled with cmake on
the machine, 7–40 minutes on 2 cores) and its ``[server]`` extra pins its own FastAPI,
Starlette and sse-starlette. Keeping it out of ``requirements.lock`` means the project's
virtualenv never compiles anything and never has to agree with the llama server on web
framework versions; the API talks to the server over HTTP only (``langchain-openai``).

Layout under ``<cache>/llm/`` (outside any clone, keyed by version like the main venv):
``wheels-<version>/`` the built wheel (reused while present), ``venv-<version>-<key>/`` the
server's virtualenv (key = digest of ``server-requirements.txt`` and the Python version).
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from pathlib import Path

from voxmem.llm.models import ModelProvisionError

log = logging.getLogger(__name__)

REQUIREMENTS = Path(__file__).with_name("server-requirements.txt")


class RuntimeProvisionError(ModelProvisionError):
    """The llama.cpp wheel could not be built or its virtualenv not created."""


def wheel_dir(cache_dir: Path, version: str) -> Path:
    return cache_dir / "llm" / f"wheels-{version}"


def venv_dir(cache_dir: Path, version: str) -> Path:
    key = hashlib.sha256(REQUIREMENTS.read_bytes() + sys.version.encode()).hexdigest()[:10]
    return cache_dir / "llm" / f"venv-{version}-{key}"


def venv_python(cache_dir: Path, version: str) -> Path:
    return venv_dir(cache_dir, version) / "bin" / "python"


def _run(cmd: list[str], log_path: Path, what: str, env: dict[str, str] | None = None) -> None:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        out.write(f"\n=== {' '.join(cmd)}\n".encode())
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = log_path.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeProvisionError(
            f"{what} failed (exit {done.returncode}); log {log_path}:\n" + "\n".join(tail)
        )


def ensure_wheel(cache_dir: Path, version: str) -> Path:
    """The llama-cpp-python wheel for ``version``, compiled from the PyPI source package once."""
    directory = wheel_dir(cache_dir, version)
    found = sorted(directory.glob(f"llama_cpp_python-{version}-*.whl"))
    if found:
        return found[0]
    log.warning("building llama-cpp-python %s from source (cmake + g++; 7-40 min on 2 cores)", version)
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        f"llama-cpp-python=={version}",
        "-w",
        str(directory),
    ]
    _run(cmd, directory / "build.log", "building llama-cpp-python", env)
    found = sorted(directory.glob(f"llama_cpp_python-{version}-*.whl"))
    if not found:
        raise RuntimeProvisionError(f"the build left no wheel in {directory}")
    return found[0]


def ensure_runtime(cache_dir: Path, version: str) -> Path:
    """The Python of the server virtualenv, with llama-cpp-python[server] installed."""
    venv = venv_dir(cache_dir, version)
    python = venv / "bin" / "python"
    if (venv / ".complete").exists() and python.exists():
        return python
    wheel = ensure_wheel(cache_dir, version)
    log_path = venv.parent / f"{venv.name}.log"
    if venv.exists():
        subprocess.run(["rm", "-rf", str(venv)], check=True)
    _run([sys.executable, "-m", "venv", str(venv)], log_path, "creating the llama server virtualenv")
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, "-r", str(REQUIREMENTS)], log_path, "installing the llama server dependencies")
    _run([*pip, "--no-deps", str(wheel)], log_path, "installing the llama-cpp-python wheel")
    (venv / ".complete").write_text(wheel.name + "\n")
    return python
