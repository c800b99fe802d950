"""Background jobs with progress, pollable by id (long recordings).

A small in-process registry with one worker thread: two CPU cores are busy enough with one
recording at a time, and queued jobs report ``queued``. Each job's state is also saved in
Neo4j as a ``(:Job)`` node (on submit, on every stage change and at the end), so a poller can
still read a job after the server restarted: a finished job keeps its result, and a job that
was queued or running in a process that is gone (no heartbeat for ``stale_after_s``) reads as
``interrupted``. A recording is resumed by posting it again (voxmem.pipeline.recording). Saving
is best effort: when Neo4j is down the job goes on and the in-memory record still answers.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from voxmem.errors import NotFound, VoxmemError
from voxmem.ids import new_id
from voxmem.stores.jobs import Job, JobStore, SavedJob

if TYPE_CHECKING:
    from voxmem.pipeline.queue import JobQueue

log = logging.getLogger(__name__)

INTERRUPTED = (
    "the server stopped while this job was {status}; its finished turns are stored: "
    "post the recording again to resume it"
)
NOT_QUEUED = (
    "the job queue no longer holds this job (Redis lost it) while it was {status}; its finished "
    "turns are stored: post the recording again to resume it"
)


class Progress:
    """Handed to a job's work function to report its stage and fraction done. A new stage, or
    ``heartbeat_s`` since the last save, saves the job (its heartbeat); other reports only
    update memory."""

    def __init__(
        self, job: Job, save: Callable[[Job], None] | None = None, heartbeat_s: float = 30.0
    ) -> None:
        self._job = job
        self._save = save or (lambda job: None)
        self._heartbeat_s = heartbeat_s
        self._saved_at = time.monotonic()

    def __call__(self, stage: str, fraction: float) -> None:
        due = stage != self._job.stage or time.monotonic() - self._saved_at >= self._heartbeat_s
        self._job.stage = stage
        self._job.progress = round(min(max(fraction, 0.0), 1.0), 4)
        if due:
            self._save(self._job)
            self._saved_at = time.monotonic()


class JobRegistry:
    """Runs jobs on a small worker pool; their records are saved through the job store.

    With a ``queue`` (``VOXMEM_JOBS_MODE=queue``) this process runs no jobs: :meth:`enqueue`
    saves the record and hands the job to the Redis Stream, ``voxmem worker`` processes run it
    (voxmem.pipeline.worker), and :meth:`get` reads the record from Neo4j and the job's place in
    the queue, so any API process answers for any job (the API keeps no job state)."""

    def __init__(
        self,
        store: JobStore | None = None,
        workers: int = 1,
        stale_after_s: float = 120.0,
        queue: JobQueue | None = None,
    ) -> None:
        self._store = store
        self.queue = queue
        self._owner = new_id("proc")
        self._stale_after_s = stale_after_s
        self._jobs: dict[str, Job] = {}
        self._running: dict[str, Future[None]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="voxmem-job")

    def submit(self, space: str, kind: str, work: Callable[[Progress], dict[str, Any]]) -> Job:
        job = Job(id=new_id("job"), space=space, kind=kind)
        with self._lock:
            self._jobs[job.id] = job
        self._save(job)
        future = self._pool.submit(self._run, job, work)
        with self._lock:
            self._running[job.id] = future
        return job

    def enqueue(self, space: str, kind: str, payload: dict[str, Any], blob: bytes | None = None) -> Job:
        """Queue mode: save the job as queued (this must succeed: it is how pollers see it), then
        put it on the queue; if Redis refuses it, the record says so (failed) and the caller gets
        a 503."""
        assert self.queue is not None and self._store is not None
        job = Job(id=new_id("job"), space=space, kind=kind, stage="waiting for a worker")
        self._store.save(job, "queue")
        try:
            self.queue.enqueue(job.id, space, kind, payload, blob)
        except VoxmemError as exc:
            job.status, job.error = "failed", exc.message
            job.finished_at = datetime.now(UTC).isoformat()
            self._save(job)
            raise
        return job

    def enqueue_derive(self, space: str, session: str, message_id: str) -> None:
        """Queue mode: a stored text turn's extraction → memory → index goes to a worker. Its
        status is the message's ``memory_pending`` mark (no Job node). If Redis refuses, the
        turn is stored and still marked, and the caller gets a 503 saying so; a later turn of
        the session (or ``voxmem worker`` at start-up) derives it."""
        assert self.queue is not None
        try:
            self.queue.enqueue(new_id("drv"), space, "derive", {"session": session, "message_id": message_id})
        except VoxmemError as exc:
            exc.message = f"the turn is stored as {message_id!r}, its memory not yet queued: {exc.message}"
            raise

    def _run(self, job: Job, work: Callable[[Progress], dict[str, Any]]) -> None:
        job.status = "running"
        self._save(job)
        try:
            job.result = work(Progress(job, self._save))
            job.status, job.progress, job.stage = "done", 1.0, "done"
        except VoxmemError as exc:
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc.message}"
        except Exception as exc:  # a job must never die silently: keep the reason for the poller
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        finally:
            job.finished_at = datetime.now(UTC).isoformat()
            self._save(job)

    def _save(self, job: Job) -> None:
        if self._store is None:
            return
        try:
            self._store.save(job, self._owner)
        except Exception:  # the job itself must not fail because its record could not be saved
            log.warning("could not save job %s (%s); this process still answers for it", job.id, job.status)

    def get(self, space: str, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is not None and job.space == space:
            return job
        saved = self._load(space, job_id)
        if saved is None:
            raise NotFound(f"unknown job {job_id!r}")
        return saved

    def _load(self, space: str, job_id: str) -> Job | None:
        """A job saved by another (possibly gone) server process."""
        saved = None if self._store is None else self._store.get(space, job_id)
        return None if saved is None else self._seen(saved)

    def list(self, space: str, status: str | None = None, limit: int = 100) -> list[Job]:
        """The space's jobs, newest first: this process's own (live progress) over saved ones."""
        saved = [] if self._store is None else [self._seen(s) for s in self._store.list(space, status, limit)]
        with self._lock:
            live = {j.id: j for j in self._jobs.values() if j.space == space}
        merged = {j.id: j for j in saved} | live
        jobs = [j for j in merged.values() if status is None or j.status == status]
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)[:limit]

    def counts(self) -> dict[str, int]:
        """Jobs this process knows, by status (for /metrics); in queue mode the queue's entries
        (recordings and derivations) waiting and held by a worker."""
        if self.queue is not None:
            try:
                backlog = self.queue.backlog()
            except Exception:  # a scrape must not fail because Redis is away
                return {}
            return {"queued": backlog["unacknowledged"] - backlog["held"], "running": backlog["held"]}
        with self._lock:
            states = [j.status for j in self._jobs.values()]
        return {s: states.count(s) for s in set(states)}

    def _seen(self, saved: SavedJob) -> Job:
        """A saved job as this process reports it: queued or running in a process that stopped
        saving its heartbeat reads as interrupted."""
        job = saved.job
        if self.queue is not None and job.status in ("queued", "running"):
            return self._in_queue(job)
        alive = saved.owner == self._owner or saved.idle_s < self._stale_after_s
        if job.status in ("queued", "running") and not alive:
            job.error = INTERRUPTED.format(status=job.status)
            job.status = "interrupted"
        return job

    def _in_queue(self, job: Job) -> Job:
        """A queued or running job as the queue sees it: not delivered yet (queued), held by a
        live worker (the saved record), held by a worker that stopped answering (queued again:
        the next free worker takes it over and resumes it), or gone from the queue (interrupted)."""
        assert self.queue is not None
        try:
            state = self.queue.state(job.id)
        except Exception:  # Redis down: the saved record is all we know
            log.warning("job queue unreachable; job %s as saved", job.id)
            return job
        if state is None:
            # A worker saves the final record and then acknowledges: read the record again, as
            # it may have finished between our two reads.
            again = self._store.get(job.space, job.id) if self._store is not None else None
            if again is not None and again.job.status not in ("queued", "running"):
                return again.job
            job.error = NOT_QUEUED.format(status=job.status)
            job.status = "interrupted"
        elif state.consumer is None:
            job.status, job.stage = "queued", "waiting for a worker"
        elif self.queue.lost(state):
            job.status = "queued"
            job.stage = f"waiting for another worker: {state.consumer} stopped {state.idle_s:.0f} s ago"
        return job

    def wait(self, space: str, job_id: str, timeout: float = 600.0) -> Job:
        """Block until the job ends and its final record is saved (tests and benchmarks); a job
        of this process is awaited on its future, since its status turns final just before the
        last save."""
        job = self.get(space, job_id)
        with self._lock:
            future = self._running.get(job_id)
        if future is not None:
            with contextlib.suppress(FutureTimeout):
                future.result(timeout=timeout)
            return job
        deadline = time.monotonic() + timeout
        while job.status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
            job = self.get(space, job_id)
        return job

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
