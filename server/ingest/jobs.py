"""Background jobs with progress, pollable by id (long recordings).

A small in-process registry with one worker thread: two CPU cores are busy enough with one
recording at a time, and queued jobs report ``queued``. Job state lives in memory: a
restart loses the job records (the messages already written stay in Neo4j, and re-posting
the recording resumes it: voxmem.ingest.recording).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from voxmem.errors import NotFound, VoxmemError
from voxmem.ids import new_id


@dataclass
class Job:
    id: str
    space: str
    kind: str
    status: str = "queued"  # queued | running | done | failed
    stage: str = ""
    progress: float = 0.0
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None

    def view(self) -> dict[str, Any]:
        return asdict(self)


class Progress:
    """Handed to a job's work function to report its stage and fraction done."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def __call__(self, stage: str, fraction: float) -> None:
        self._job.stage = stage
        self._job.progress = round(min(max(fraction, 0.0), 1.0), 4)


class JobRegistry:
    def __init__(self, workers: int = 1) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="voxmem-job")

    def submit(self, space: str, kind: str, work: Callable[[Progress], dict[str, Any]]) -> Job:
        job = Job(id=new_id("job"), space=space, kind=kind)
        with self._lock:
            self._jobs[job.id] = job
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[Progress], dict[str, Any]]) -> None:
        job.status = "running"
        try:
            job.result = work(Progress(job))
            job.status, job.progress, job.stage = "done", 1.0, "done"
        except VoxmemError as exc:
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc.message}"
        except Exception as exc:  # a job must never die silently: keep the reason for the poller
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        finally:
            job.finished_at = datetime.now(UTC).isoformat()

    def get(self, space: str, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None or job.space != space:
            raise NotFound(f"unknown job {job_id!r}")
        return job

    def wait(self, space: str, job_id: str, timeout: float = 600.0) -> Job:
        """Block until the job ends (tests and benchmarks)."""
        import time

        deadline = time.monotonic() + timeout
        job = self.get(space, job_id)
        while job.status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
        return job

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
