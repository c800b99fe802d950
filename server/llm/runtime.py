"""The llama.cpp runtime: a llama-cpp-python wheel built once and a small virtualenv of its own.

Why a separate virtualenv: llama-cpp-python is a source package (C++ compiled with cmake on
the machine, 7–40 minutes on 2 cores) and its ``[server]`` extra pins its own FastAPI,
Starlette and sse-starlette. Keeping it out of ``requirements.lock`` means the project's
virtualenv never compiles anything and never has to agree with the llama server on web
framework versions; the API talks to the server over HTTP only (``langchain-openai``).

Why no ``-march=native``: llama.cpp's default build compiles for the build machine's CPU flags,
and a virtual machine can advertise AMX (``amx_tile``/``amx_int8`` in ``/proc/cpuinfo``) without
letting a process use the tile state: every matrix product through ggml's AMX path then dies with
a general protection fault, and the server with it, on the first request (seen on this project's
2-core VM, 2 December). On x86-64 the wheel is built with ``GGML_NATIVE=OFF``, AMX off and each
SIMD extension switched on only when the CPU lists it, so it runs wherever it was built and keeps
AVX-512 where there is one.

Layout under ``<cache>/llm/`` (outside any clone, keyed like the main venv):
``wheels-<version>-<isa>/`` the built wheel (reused while present; ``isa`` = digest of the cmake
flags), ``venv-<version>-<key>/`` the server's virtualenv (key = digest of
``server-requirements.txt``, the Python version and the cmake flags).
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import subprocess
import sys
from pathlib import Path

from voxmem.llm.models import ModelProvisionError

log = logging.getLogger(__name__)

REQUIREMENTS = Path(__file__).with_name("server-requirements.txt")


class RuntimeProvisionError(ModelProvisionError):
    """The llama.cpp wheel could not be built or its virtualenv not created."""


# ggml's cmake switch for each x86 extension, by its /proc/cpuinfo flag name.
_X86_OPTIONS = {
    "GGML_SSE42": "sse4_2",
    "GGML_AVX": "avx",
    "GGML_AVX2": "avx2",
    "GGML_BMI2": "bmi2",
    "GGML_FMA": "fma",
    "GGML_F16C": "f16c",
    "GGML_AVX_VNNI": "avx_vnni",
    "GGML_AVX512": "avx512f",
    "GGML_AVX512_VBMI": "avx512vbmi",
    "GGML_AVX512_VNNI": "avx512_vnni",
    "GGML_AVX512_BF16": "avx512_bf16",
}


def cmake_flags(machine: str, cpu_flags: frozenset[str]) -> tuple[str, ...]:
    """The cmake arguments the wheel is built with (pure: machine and CPU flags in, flags out).

    On x86-64: no native tuning, AMX always off, every other extension on exactly when listed.
    Elsewhere llama.cpp's own defaults (native), where no such fault is known.
    """
    if machine not in ("x86_64", "AMD64"):
        return ()
    switches = [f"-D{option}={'ON' if flag in cpu_flags else 'OFF'}" for option, flag in _X86_OPTIONS.items()]
    amx_off = ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
    return ("-DGGML_NATIVE=OFF", *switches, *amx_off)


def _cpu_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def build_flags() -> tuple[str, ...]:
    """This machine's cmake arguments for the llama.cpp wheel."""
    return cmake_flags(platform.machine(), _cpu_flags())


def _flags_key(flags: tuple[str, ...]) -> str:
    return hashlib.sha256(" ".join(flags).encode()).hexdigest()[:8]


def wheel_dir(cache_dir: Path, version: str) -> Path:
    return cache_dir / "llm" / f"wheels-{version}-{_flags_key(build_flags())}"


def venv_dir(cache_dir: Path, version: str) -> Path:
    digest = REQUIREMENTS.read_bytes() + sys.version.encode() + " ".join(build_flags()).encode()
    key = hashlib.sha256(digest).hexdigest()[:10]
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
    flags = build_flags()
    if flags:
        env["CMAKE_ARGS"] = " ".join([env.get("CMAKE_ARGS", ""), *flags]).strip()
        log.warning("cmake flags: %s", " ".join(flags))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        # pip's own wheel cache would hand back a wheel built earlier with other flags
        "--no-cache-dir",
        "--no-binary",
        "llama-cpp-python",
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
