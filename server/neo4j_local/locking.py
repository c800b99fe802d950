"""An advisory file lock, so two `voxmem neo4j up` calls never fetch or start twice."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class LockTimeoutError(RuntimeError):
    """Another process held the lock for longer than we were willing to wait."""


@contextmanager
def file_lock(path: Path, timeout_s: float = 900.0) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if needed) for the ``with`` block.

    flock is released by the kernel when the holder dies, so a crashed run never leaves a stale
    lock behind. The long default covers a first jar download on a slow network.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    with open(path, "a+") as fh:
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeoutError(f"{path} is held by another process") from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
