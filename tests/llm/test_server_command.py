"""The local llama.cpp server's command line: the prompt-state cache is on by default, sized in
MiB, and off at 0 (``server.command``; why and what it costs: its docstring)."""

from __future__ import annotations

from pathlib import Path

from voxmem.config import Settings
from voxmem.llm import server


def _flags(cmd: list[str]) -> dict[str, str]:
    """``--name value`` pairs of a command line."""
    return {cmd[i]: cmd[i + 1] for i in range(len(cmd) - 1) if cmd[i].startswith("--")}


def test_the_server_keeps_prompt_states_in_a_small_ram_cache_unless_turned_off(tmp_path: Path) -> None:
    python, gguf = Path("/venv/bin/python"), Path("/models/m.gguf")
    flags = _flags(server.command(Settings(cache_dir=tmp_path), python, gguf, "m", 1))
    assert (flags["--cache"], flags["--cache_type"], flags["--cache_size"]) == ("True", "ram", str(32 << 20))
    assert flags["--logits_all"] == "False" and flags["--n_threads"] == "1"
    off = server.command(Settings(cache_dir=tmp_path, llm_local_cache_mb=0), python, gguf, "m", 2)
    assert "--cache" not in off and _flags(off)["--n_threads_batch"] == "2"
