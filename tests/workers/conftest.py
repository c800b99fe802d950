"""Fixtures of the queue-worker tests: a Redis of their own (`voxmem redis up` on a test port),
``voxmem worker`` processes, and a queue-mode ``Voxmem`` that shares the session's database.

Everything is started through the project's own CLI, as a deployment would; the Redis port and
the queue name are the tests' own, so a developer's queue (default port 6389) is untouched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from voxmem.config import Settings
from voxmem.core import Voxmem

REDIS_TEST_PORT = int(os.environ.get("VOXMEM_TEST_REDIS_PORT", "16391"))
VOXMEM = str(Path(sys.executable).parent / "voxmem")


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VOXMEM, *args], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def queue_env() -> Iterator[dict[str, str]]:
    """The environment of a queue deployment for this module: its Redis up, a fresh queue name."""
    env = {
        **os.environ,
        "VOXMEM_REDIS_URL": f"redis://127.0.0.1:{REDIS_TEST_PORT}/0",
        "VOXMEM_QUEUE_NAME": f"test-{uuid.uuid4().hex[:8]}",
        "VOXMEM_WORKER_CLAIM_IDLE_S": "4",
        "VOXMEM_LLM_PROVIDER": "none",
    }
    started = _run(["redis", "status"], env).returncode != 0
    up = _run(["redis", "up"], env)
    assert up.returncode == 0, (
        f"`voxmem redis up` failed (scripts/voxmem.sh setup installs redis-server):\n{up.stderr}"
    )
    yield env
    if started:
        _run(["redis", "down"], env)


@pytest.fixture(scope="module")
def queue_settings(queue_env: dict[str, str]) -> Settings:
    return Settings(
        jobs_mode="queue",
        redis_url=queue_env["VOXMEM_REDIS_URL"],
        queue_name=queue_env["VOXMEM_QUEUE_NAME"],
        worker_claim_idle_s=float(queue_env["VOXMEM_WORKER_CLAIM_IDLE_S"]),
    )


@pytest.fixture(scope="module")
def queue_services(services: Voxmem, queue_settings: Settings) -> Iterator[Voxmem]:
    """A queue-mode entry object over the session's database and text model (the API side)."""
    svc = Voxmem(queue_settings, services.db, services.embedder, services.sparse)
    yield svc
    svc.jobs.shutdown()


@dataclass
class WorkerProc:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    killed: bool = False

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Workers:
    procs: dict[str, WorkerProc] = field(default_factory=dict)

    def kill9(self, name: str) -> None:
        w = self.procs[name]
        os.kill(w.proc.pid, signal.SIGKILL)
        w.proc.wait(timeout=30)
        w.killed = True


@pytest.fixture
def two_workers(queue_env: dict[str, str], tmp_path: Path) -> Iterator[Workers]:
    """Two `voxmem worker --threads 1` processes, each ready (speech models loaded)."""
    workers = Workers()
    for name in ("wA", "wB"):
        log = tmp_path / f"{name}.log"
        with open(log, "wb") as fh:
            proc = subprocess.Popen(
                [VOXMEM, "worker", "--name", name, "--threads", "1"],
                env=queue_env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        workers.procs[name] = WorkerProc(name, proc, log)
    deadline = time.monotonic() + 300
    try:
        for w in workers.procs.values():
            while "ready on" not in w.output():
                assert w.proc.poll() is None, f"worker {w.name} exited:\n{w.output()[-3000:]}"
                assert time.monotonic() < deadline, (
                    f"worker {w.name} not ready in 300 s:\n{w.output()[-3000:]}"
                )
                time.sleep(0.5)
        yield workers
    finally:
        for w in workers.procs.values():
            if w.proc.poll() is None:
                w.proc.terminate()
        for w in workers.procs.values():
            try:
                w.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait(timeout=10)
