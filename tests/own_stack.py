"""A Neo4j and a ``voxmem serve`` of a test's own, for tests that kill or reconfigure servers.

Why separate processes: the browser test needs the Neo4j configuration voxmem provisions (the
shared test server runs an older one), and the fault tests kill -9 a server, which must never be
the shared one. Each caller picks its own home and ports so parallel runs cannot collide.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from voxmem.config import Settings


def wait_for(what: str, probe: Callable[[], Any], timeout_s: float, every_s: float = 0.5) -> Any:
    """Poll ``probe`` until it returns something truthy; fail naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:.0f}s waiting for {what}")
        time.sleep(every_s)


def own_neo4j(home: str, bolt: int, http: int, **overrides: Any) -> Settings:
    """Settings for a small Neo4j under ``<cache>/neo4j/<home>`` on the given loopback ports."""
    return Settings(
        neo4j_home=Settings().cache_dir / "neo4j" / home,
        neo4j_bolt_port=bolt,
        neo4j_http_port=http,
        neo4j_uri=f"bolt://127.0.0.1:{bolt}",
        neo4j_heap="512m",
        neo4j_pagecache="64m",
        **overrides,
    )


def start_api(
    port: int, log: Path | None, neo4j: Settings | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``voxmem serve`` on ``port`` (against ``neo4j``, else the environment's), once /health is ok."""
    child_env = {**os.environ, **(env or {})}
    if neo4j is not None:
        child_env |= {
            "VOXMEM_NEO4J_URI": neo4j.neo4j_uri,
            "VOXMEM_NEO4J_BOLT_PORT": str(neo4j.neo4j_bolt_port),
            "VOXMEM_NEO4J_HTTP_PORT": str(neo4j.neo4j_http_port),
            "VOXMEM_NEO4J_HOME": str(neo4j.neo4j_home),
        }
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 - the child owns it
    api = subprocess.Popen(
        [sys.executable, "-m", "voxmem.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        stdout=out,
        stderr=subprocess.STDOUT,
        env=child_env,
    )

    def healthy() -> bool:
        if api.poll() is not None:
            pytest.fail(f"voxmem serve exited with {api.returncode}; see {log}")
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json().get("status") == "ok"
        except httpx.HTTPError:
            return False

    try:
        wait_for("voxmem serve /health", healthy, 240)
    except BaseException:
        stop(api)
        raise
    return api


def stop(api: subprocess.Popen[bytes]) -> None:
    """Terminate the server, and kill it if it does not go within 30 s."""
    api.terminate()
    try:
        api.wait(timeout=30)
    except subprocess.TimeoutExpired:
        api.kill()
        api.wait(timeout=30)
