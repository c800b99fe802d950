"""A queue worker: takes jobs from the Redis Stream and runs them through the one turn pipeline.

``voxmem worker`` runs one of these per process (one job at a time: a recording job already
keeps about one core busy, so throughput scales by processes, on this machine or others). Two
kinds of job:

* ``recording`` — a whole recording (voxmem.pipeline.recording), audio from the queue's blob;
* ``derive`` — extraction → memory → index of the text turns of one session that are stored
  and still ``memory_pending`` (queue mode's text turns), in conversation order, under a
  per-session Redis lock so two workers never derive one session at once.

The rule that makes a ``kill -9`` harmless: the entry is acknowledged only after the job's
result is stored (the ``Job`` node's final record for a recording; the cleared
``memory_pending`` marks for ``derive``). A worker that dies holds its entry unacknowledged; its
heartbeats stop, and after ``worker_claim_idle_s`` the next worker's fetch claims it and runs it
again. Running again is safe because the work is idempotent by id: a recording resumes from its
stored turns (deterministic message ids, ``RecordingIngestor._resume``), and derivation of a turn
is a replay. A job redelivered more than ``worker_max_deliveries`` times is marked failed.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from datetime import UTC, datetime
from typing import Any

from voxmem.errors import DatabaseUnavailable, VoxmemError
from voxmem.pipeline.jobs import Progress
from voxmem.pipeline.queue import Delivery, JobQueue
from voxmem.pipeline.turns import TurnPipeline
from voxmem.stores.jobs import Job, JobStore

log = logging.getLogger(__name__)


def runqueue_wait_s() -> float | None:
    """Seconds this process's threads have spent runnable but waiting for a CPU (Linux
    schedstat), so a job's result says how much of its wall time a busy machine took."""
    total = 0
    try:
        for task in os.scandir("/proc/self/task"):
            with open(f"{task.path}/schedstat") as fh:
                total += int(fh.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return total / 1e9


class JobLost(Exception):
    """Another worker took this job over (this one missed its heartbeats): stop, do not ack."""


def default_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class Heartbeat:
    """Keeps a delivery (and an optional lock) alive while a job runs, from a thread of its own."""

    def __init__(
        self, queue: JobQueue, consumer: str, entry_id: str, every_s: float, lock: Any = None
    ) -> None:
        self.queue, self.consumer, self.entry_id, self.every_s, self.lock = (
            queue,
            consumer,
            entry_id,
            every_s,
            lock,
        )
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="voxmem-heartbeat", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                if not self.queue.heartbeat(self.consumer, self.entry_id):
                    self.lost = True
                    return
                if self.lock is not None:
                    self.lock.reacquire()
            except Exception:  # Redis briefly away: the next beat tries again
                log.warning("heartbeat of %s failed", self.entry_id, exc_info=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class BeatingProgress(Progress):
    """Progress that stops the job (``JobLost``) once its heartbeat found it taken over."""

    def __init__(self, job: Job, save: Any, beat: Heartbeat) -> None:
        super().__init__(job, save)
        self._beat = beat

    def __call__(self, stage: str, fraction: float) -> None:
        if self._beat.lost:
            raise JobLost(self._job.id)
        super().__call__(stage, fraction)


class Worker:
    """One consumer of the job queue."""

    def __init__(
        self,
        pipeline: TurnPipeline,
        store: JobStore,
        queue: JobQueue,
        name: str | None = None,
        max_deliveries: int = 3,
    ) -> None:
        self.pipeline = pipeline
        self.store = store
        self.queue = queue
        self.name = name or default_name()
        self.max_deliveries = max_deliveries
        self.beat_s = max(0.5, queue.claim_idle_ms / 1000 / 4)

    def run(self, stop: threading.Event | None = None, max_jobs: int | None = None) -> int:
        """Fetch and run jobs until ``stop`` is set (or ``max_jobs`` ran); returns jobs handled."""
        stop = stop or threading.Event()
        done = 0
        while not stop.is_set() and (max_jobs is None or done < max_jobs):
            try:
                delivery = self.queue.fetch(self.name, block_s=1.0)
            except Exception:
                log.warning("job queue unreachable; retrying", exc_info=True)
                stop.wait(2.0)
                continue
            if delivery is None:
                continue
            try:
                self.handle(delivery)
            except Exception:  # Neo4j or Redis away mid-way: unacknowledged, so it is run again
                log.exception("%s: job %s not finished; left for a retry", self.name, delivery.job_id)
                stop.wait(2.0)
            done += 1
        return done

    def handle(self, d: Delivery) -> None:
        log.info("%s: %s job %s (delivery %d)", self.name, d.kind, d.job_id, d.deliveries)
        if d.kind == "recording":
            self._recording(d)
        elif d.kind == "derive":
            self._derive(d)
        else:
            log.error("unknown job kind %r: dropped", d.kind)
            self.queue.ack(d)

    # --- recordings ----------------------------------------------------------------------------
    def _save(self, job: Job) -> None:
        try:
            self.store.save(job, self.name)
        except Exception:  # progress saves are best effort; the final one is checked
            log.warning("could not save job %s (%s)", job.id, job.status)

    def _recording(self, d: Delivery) -> None:
        saved = self.store.get(d.space, d.job_id)
        if saved is not None and saved.job.status in ("done", "failed"):
            self.queue.ack(d)  # stored before the last worker died; only its ack was missing
            return
        job = saved.job if saved is not None else Job(id=d.job_id, space=d.space, kind=d.kind)
        blob = self.queue.blob(d.job_id)
        if d.deliveries > self.max_deliveries or blob is None:
            why = (
                "its audio is missing from the queue"
                if blob is None
                else (f"given up after {d.deliveries - 1} deliveries: each worker running it stopped")
            )
            self._finish(d, job, "failed", error=why)
            return
        job.status, job.error = "running", None
        self._save(job)
        p = d.payload
        started_at = datetime.fromisoformat(p["started_at"]) if p.get("started_at") else None
        cpu0, wall0, wait0 = time.process_time(), time.perf_counter(), runqueue_wait_s()
        with Heartbeat(self.queue, self.name, d.entry_id, self.beat_s) as beat:
            report = BeatingProgress(job, self._save, beat)
            try:
                result = self.pipeline.run_recording(
                    d.space,
                    p["session"],
                    p["recording_id"],
                    blob,
                    started_at,
                    p.get("policy"),
                    report,
                    p.get("audio_uri"),
                )
            except JobLost:
                log.warning("%s: job %s was taken over by another worker; stopped", self.name, d.job_id)
                return
            except DatabaseUnavailable as exc:  # not acknowledged: another delivery resumes it
                job.status, job.error = "queued", f"will be retried: {exc.message}"
                self._save(job)
                return
            except VoxmemError as exc:
                self._finish(d, job, "failed", error=f"{type(exc).__name__}: {exc.message}")
                return
            except Exception as exc:
                traceback.print_exc()
                self._finish(d, job, "failed", error=f"{type(exc).__name__}: {exc}")
                return
        result |= {
            "worker": self.name,
            "delivery": d.deliveries,
            "cpu_s": round(time.process_time() - cpu0, 3),
            "wall_s": round(time.perf_counter() - wall0, 3),
        }
        wait1 = runqueue_wait_s()
        if wait0 is not None and wait1 is not None:
            result["cpu_wait_s"] = round(wait1 - wait0, 3)  # runnable, no CPU free
        self._finish(d, job, "done", result=result)

    def _finish(self, d: Delivery, job: Job, status: str, *, error: str | None = None, result=None) -> None:
        """Save the final record, then acknowledge: if the save fails the entry stays pending and
        the job is run again (idempotent), so a result is never acknowledged unstored."""
        job.status, job.error, job.result = status, error, result
        if status == "done":
            job.stage, job.progress = "done", 1.0
        job.finished_at = datetime.now(UTC).isoformat()
        try:
            self.store.save(job, self.name)
        except Exception:
            log.exception("final record of job %s not saved; left unacknowledged for a retry", job.id)
            return
        self.queue.ack(d)

    # --- derivation of text turns --------------------------------------------------------------
    def _derive(self, d: Delivery) -> None:
        session = d.payload["session"]
        if d.deliveries > self.max_deliveries:  # the turn stays memory_pending: repair finds it
            log.error(
                "derivation of %s given up after %d deliveries", d.payload["message_id"], d.deliveries - 1
            )
            self.queue.ack(d)
            return
        lock = self.queue.client.lock(
            f"{self.queue.prefix}:lock:{d.space}:{session}",
            timeout=max(10.0, self.queue.claim_idle_ms / 1000),
            blocking_timeout=self.queue.claim_idle_ms / 1000,
        )
        if not lock.acquire():
            return  # another worker derives this session; the entry is retried after the claim time
        try:
            with Heartbeat(self.queue, self.name, d.entry_id, self.beat_s, lock=lock):
                self.pipeline.repair(d.space, session, min_age_s=0.0, limit=10_000)
                left = self.pipeline.messages.memory_pending(d.space, session, 0.0, 10_000)
        except Exception:
            log.exception("derivation of %s/%s failed; left for a retry", d.space, session)
            return
        finally:
            try:
                lock.release()
            except Exception:
                log.warning("session lock of %s/%s had expired", d.space, session)
        if any(mid == d.payload["message_id"] for _, mid in left):
            log.error(
                "turn %s still has no memory after derivation; left for a retry", d.payload["message_id"]
            )
            return
        self.queue.ack(d)
