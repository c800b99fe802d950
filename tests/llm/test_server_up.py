"""``voxmem llm up`` while the server it started is busy: it waits, it does not restart it.

No real server here: the process checks and the endpoint probe are replaced, so the test says
only what ``up`` decides from them."""

from __future__ import annotations

import pytest

from voxmem.config import Settings
from voxmem.llm import server


@pytest.fixture
def busy(tmp_path, monkeypatch):
    settings = Settings(cache_dir=tmp_path, llm_start_timeout_s=5.0)
    monkeypatch.setattr(server.os, "cpu_count", lambda: 2)  # two read the prompt, one generates
    state = {
        "pid": 4242,
        "model": "qwen2.5-coder-0.5b-instruct-q4",
        "threads": 1,
        "threads_batch": 2,
        "ctx": 4096,
    }
    monkeypatch.setattr(server, "_read_state", lambda s: state)
    monkeypatch.setattr(server, "_is_ours", lambda pid, port: pid == 4242)
    probes = {"n": 0}

    def answers(url, timeout=2.0):  # the first two probes time out: a request is being answered
        probes["n"] += 1
        return None if probes["n"] <= 2 else ["qwen2.5-coder-0.5b-instruct-q4"]

    monkeypatch.setattr(server, "_models_answer", answers)
    monkeypatch.setattr(server.time, "sleep", lambda s: None)
    stopped: list[int] = []
    monkeypatch.setattr(server, "_stop", lambda s, pid, timeout_s=20.0: stopped.append(pid))
    monkeypatch.setattr(server, "_port_open", lambda port: False)

    def provision(*args):
        raise RuntimeError("provisioning a new server")

    monkeypatch.setattr(server, "provision", provision)
    return settings, stopped, state


def test_up_waits_for_its_busy_server_instead_of_restarting_it(busy):
    settings, stopped, _ = busy
    got = server.up(settings, model="qwen2.5-coder-0.5b-instruct-q4", threads=1)
    assert got.running and got.pid == 4242 and stopped == []


def test_up_with_another_model_still_replaces_the_server(busy):
    settings, stopped, _ = busy
    with pytest.raises(RuntimeError, match="provisioning"):  # after the old server was stopped
        server.up(settings, model="qwen2.5-coder-1.5b-instruct-q4_k_m", threads=1)
    assert stopped == [4242]


def test_up_replaces_a_server_reading_prompts_with_other_threads(busy):
    """A server started before ``threads_batch`` was recorded read prompts with its one thread."""
    settings, stopped, state = busy
    del state["threads_batch"]
    with pytest.raises(RuntimeError, match="provisioning"):
        server.up(settings, model="qwen2.5-coder-0.5b-instruct-q4", threads=1)
    assert stopped == [4242]
