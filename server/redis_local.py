"""Start, stop and inspect a local Redis server (Debian ``redis-server``) for the job queue.

Like the local Neo4j (``voxmem.neo4j_local``), the server is ours: its data directory is
``<cache_dir>/redis/<port>`` with a generated ``redis.conf``, it binds the loopback address
only, and it runs detached (own session), so it outlives the ``voxmem redis up`` call. The
port comes from ``VOXMEM_REDIS_URL``, so tests use a port of their own. Append-only file with
``fsync`` every second: a job enqueued before a Redis restart is still there after it.

Only the binary is needed; ``bash scripts/voxmem.sh setup`` installs the Debian package.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from voxmem.config import Settings

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class RedisLocalError(RuntimeError):
    """The local Redis server cannot be provisioned or did not start."""


@dataclass
class RedisStatus:
    running: bool
    url: str
    pid: int | None
    data_dir: str

    def summary(self) -> str:
        state = f"running (pid {self.pid})" if self.running else "not running"
        return f"redis {state} at {self.url}, data {self.data_dir}"


def _port(settings: Settings) -> int:
    parsed = urlparse(settings.redis_url)
    if parsed.hostname not in LOOPBACK:
        raise RedisLocalError(
            f"VOXMEM_REDIS_URL {settings.redis_url!r} is not on this machine: "
            "`voxmem redis up` only runs a loopback server (run Redis on the queue host yourself)"
        )
    return parsed.port or 6379


def data_dir(settings: Settings) -> Path:
    return settings.cache_dir / "redis" / str(_port(settings))


def _binary() -> str:
    found = shutil.which("redis-server")
    if found is None:
        raise RedisLocalError(
            "redis-server is not installed: run `bash scripts/voxmem.sh setup` "
            "(or `apt-get install redis-server`, Debian's package)"
        )
    return found


def _ping(port: int, timeout_s: float = 1.0) -> bool:
    import redis

    try:
        return bool(redis.Redis(host="127.0.0.1", port=port, socket_timeout=timeout_s).ping())
    except redis.RedisError:
        return False


def _pid(home: Path) -> int | None:
    """The pid in our pidfile, if that process still is a redis-server."""
    try:
        pid = int((home / "redis.pid").read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return pid if b"redis-server" in cmdline else None


def status(settings: Settings) -> RedisStatus:
    port, home = _port(settings), data_dir(settings)
    pid = _pid(home)
    return RedisStatus(pid is not None and _ping(port), settings.redis_url, pid, str(home))


def up(settings: Settings, timeout_s: float = 20.0) -> RedisStatus:
    """Start the server unless it already answers; idempotent."""
    port, home = _port(settings), data_dir(settings)
    if _ping(port):
        return status(settings)
    binary = _binary()
    home.mkdir(parents=True, exist_ok=True)
    conf = home / "redis.conf"
    conf.write_text(
        "\n".join(
            [
                "bind 127.0.0.1",
                "protected-mode yes",
                f"port {port}",
                f"dir {home}",
                f"pidfile {home / 'redis.pid'}",
                f"logfile {home / 'redis.log'}",
                "daemonize no",
                "appendonly yes",
                "appendfsync everysec",
                "save ''",
                "",
            ]
        )
    )
    proc = subprocess.Popen(
        [binary, str(conf)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = home / "redis.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RedisLocalError(f"redis-server exited with {proc.returncode}:\n{tail}")
        if _ping(port):
            return status(settings)
        time.sleep(0.1)
    raise RedisLocalError(f"redis-server did not answer on port {port} within {timeout_s:.0f} s")


def down(settings: Settings, timeout_s: float = 20.0) -> bool:
    """Stop the server we started (SIGTERM: it writes its append-only file and exits)."""
    pid = _pid(data_dir(settings))
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        with contextlib.suppress(ChildProcessError):  # reap it if we are its parent (in-process up())
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    return True
