"""``voxmem llm up`` sends one completion before it reports ready, and says so when that kills the server.

A real child process stands in for llama.cpp: it lists its model on ``/v1/models`` and dies on the
first completion, as the native AMX build did on this project's VM (general protection fault on the
first matrix product). Before, ``up`` reported it running and every caller then saw only
"connection refused".
"""

from __future__ import annotations

import os
import socket
import sys
import textwrap
from pathlib import Path

import pytest

from voxmem.config import Settings
from voxmem.llm import server

FAKE = textwrap.dedent(
    """
    import http.server, json, os, sys
    port = int(sys.argv[sys.argv.index("--port") + 1])
    crash = os.environ.get("FAKE_LLM_CRASH") == "1"

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, payload):
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._send({"data": [{"id": "qwen2.5-coder-0.5b-instruct-q4"}]})

        def do_POST(self):
            if crash:
                os._exit(139)
            self._send({"choices": [{"text": " 2"}]})

    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def fake_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    script = tmp_path / "fake_llama.py"
    script.write_text(FAKE)
    python = tmp_path / "python"  # called as `python -m llama_cpp.server …`: runs the fake instead
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    python.chmod(0o755)
    monkeypatch.setattr(server, "provision", lambda settings, name: (python, tmp_path / "model.gguf"))
    return Settings(cache_dir=tmp_path, llm_local_port=_free_port(), llm_start_timeout_s=20.0)


def test_a_server_that_dies_on_its_first_completion_is_an_error_not_ready(fake_runtime, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_CRASH", "1")
    try:
        with pytest.raises(server.LLMServerError, match="crashed on its first completion"):
            server.up(fake_runtime, model="qwen2.5-coder-0.5b-instruct-q4", threads=1)
        assert not server.status(fake_runtime).running
    finally:
        server.down(fake_runtime)  # without the check the fake would stay up: never leave it running


def test_a_server_that_answers_is_ready(fake_runtime, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_CRASH", "0")
    try:
        got = server.up(fake_runtime, model="qwen2.5-coder-0.5b-instruct-q4", threads=1)
        assert got.running and got.model == "qwen2.5-coder-0.5b-instruct-q4"
        # the process it started reads OMP_WAIT_POLICY (server.environment) and is told its threads
        env = Path(f"/proc/{got.pid}/environ").read_bytes().split(b"\0")
        assert b"OMP_WAIT_POLICY=PASSIVE" in env
        args = Path(f"/proc/{got.pid}/cmdline").read_bytes().split(b"\0")
        batch = args[args.index(b"--n_threads_batch") + 1]
        assert int(batch) == got.threads_batch == server.prompt_threads(fake_runtime, 1, os.cpu_count())
    finally:
        server.down(fake_runtime)
