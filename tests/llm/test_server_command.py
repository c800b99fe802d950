"""The local llama.cpp server's command line: the prompt-state cache is on by default, sized in
MiB, and off at 0; prompts are read by more threads than generate (``server.command``,
``server.prompt_threads``; why and what it costs: their docstrings)."""

from __future__ import annotations

from pathlib import Path

from voxmem.config import Settings
from voxmem.llm import server


def _flags(cmd: list[str]) -> dict[str, str]:
    """``--name value`` pairs of a command line."""
    return {cmd[i]: cmd[i + 1] for i in range(len(cmd) - 1) if cmd[i].startswith("--")}


def test_the_server_keeps_prompt_states_in_a_small_ram_cache_unless_turned_off(tmp_path: Path) -> None:
    python, gguf = Path("/venv/bin/python"), Path("/models/m.gguf")
    flags = _flags(server.command(Settings(cache_dir=tmp_path), python, gguf, "m", 1, 1))
    assert (flags["--cache"], flags["--cache_type"], flags["--cache_size"]) == ("True", "ram", str(32 << 20))
    assert flags["--logits_all"] == "False" and flags["--n_threads"] == "1"
    off = server.command(Settings(cache_dir=tmp_path, llm_local_cache_mb=0), python, gguf, "m", 1, 2)
    assert "--cache" not in off and (_flags(off)["--n_threads"], _flags(off)["--n_threads_batch"]) == (
        "1",
        "2",
    )


def test_two_threads_read_the_prompt_where_there_are_two_cores(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    assert server.prompt_threads(settings, 1, 2) == 2  # one generates, two read the prompt
    assert server.prompt_threads(settings, 1, 8) == 2  # the setting, not every core
    assert server.prompt_threads(settings, 1, 1) == 1  # never more than the cores
    assert server.prompt_threads(settings, 1, None) == 1  # unknown cores: one
    assert server.prompt_threads(settings, 3, 2) == 3  # never fewer than generate
    assert server.prompt_threads(Settings(cache_dir=tmp_path, llm_local_threads_batch=1), 1, 2) == 1


def test_the_server_threads_wait_passively(monkeypatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    monkeypatch.setenv("VOXMEM_SOMETHING", "kept")
    env = server.environment()
    assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["VOXMEM_SOMETHING"] == "kept"
