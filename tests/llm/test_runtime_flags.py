"""The llama.cpp wheel's cmake flags: never native, never AMX, SIMD only where the CPU has it.

Why: a native build on a VM that lists AMX but does not grant the tile state crashed the server on
its first request (general protection fault in ggml's AMX matmul), so every answer fell back.
"""

from __future__ import annotations

from pathlib import Path

from voxmem.llm import runtime

AMX_VM = frozenset(
    [
        "sse4_2",
        "avx",
        "avx2",
        "bmi2",
        "fma",
        "f16c",
        "avx512f",
        "avx512vbmi",
        "avx512_vnni",
        "amx_tile",
        "amx_int8",
    ]
)
OLD_CPU = frozenset(["sse4_2", "avx"])


def _switches(flags: tuple[str, ...]) -> dict[str, str]:
    return dict(flag.removeprefix("-D").split("=", 1) for flag in flags)


def test_an_amx_machine_builds_without_native_tuning_and_without_amx() -> None:
    switches = _switches(runtime.cmake_flags("x86_64", AMX_VM))
    assert switches["GGML_NATIVE"] == "OFF"
    assert {switches[k] for k in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")} == {"OFF"}
    assert switches["GGML_AVX512"] == switches["GGML_AVX512_VBMI"] == switches["GGML_AVX2"] == "ON"
    assert switches["GGML_AVX512_BF16"] == "OFF"  # not listed by this CPU


def test_extensions_the_cpu_lacks_stay_off() -> None:
    switches = _switches(runtime.cmake_flags("x86_64", OLD_CPU))
    assert switches["GGML_AVX"] == "ON"
    assert switches["GGML_AVX2"] == switches["GGML_FMA"] == switches["GGML_AVX512"] == "OFF"


def test_other_architectures_keep_llama_cpps_defaults() -> None:
    assert runtime.cmake_flags("aarch64", AMX_VM) == ()


def test_the_cache_is_keyed_by_the_flags(monkeypatch) -> None:
    cache = Path("/cache")
    monkeypatch.setattr(runtime, "_cpu_flags", lambda: AMX_VM)
    wheels_amx, venv_amx = runtime.wheel_dir(cache, "0.3.36"), runtime.venv_dir(cache, "0.3.36")
    monkeypatch.setattr(runtime, "_cpu_flags", lambda: OLD_CPU)
    assert runtime.wheel_dir(cache, "0.3.36") != wheels_amx
    assert runtime.venv_dir(cache, "0.3.36") != venv_amx
    assert wheels_amx.name.startswith("wheels-0.3.36-")


def test_the_build_never_takes_a_wheel_from_pips_cache(monkeypatch, tmp_path: Path) -> None:
    """pip's wheel cache handed back the earlier native wheel under the new directory once."""
    calls: list[tuple[list[str], dict[str, str]]] = []

    def fake_run(cmd: list[str], log_path: Path, what: str, env: dict[str, str] | None = None) -> None:
        calls.append((cmd, env or {}))
        out = Path(cmd[cmd.index("-w") + 1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"")

    monkeypatch.setattr(runtime, "_run", fake_run)
    monkeypatch.setattr(runtime, "_cpu_flags", lambda: AMX_VM)
    monkeypatch.setattr(runtime.platform, "machine", lambda: "x86_64")
    runtime.ensure_wheel(tmp_path, "0.3.36")
    (cmd, env) = calls[0]
    assert "--no-cache-dir" in cmd and "llama-cpp-python" in cmd[cmd.index("--no-binary") + 1]
    assert "-DGGML_AMX_INT8=OFF" in env["CMAKE_ARGS"] and "-DGGML_NATIVE=OFF" in env["CMAKE_ARGS"]
