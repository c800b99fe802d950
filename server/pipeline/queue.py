"""The job queue: one Redis Stream with one consumer group, used through redis-py.

Why Redis Streams directly (docs/voice.md, "Workers on a queue"): the property that matters is
that a job is acknowledged only after its result is stored, and that a job whose worker died
(``kill -9``) is finished by another worker. A consumer group gives exactly that: ``XREADGROUP``
hands an entry to one worker and keeps it in that worker's pending list until ``XACK``; a worker
that stops sending heartbeats (``XCLAIM`` of its own entry, which resets the idle time) loses the
entry to the next worker's ``XAUTOCLAIM``. rq and Celery (Redis transport) detect a lost worker
by timeouts of their own and, by default, do not re-run its job (rq moves it to a failed
registry; Celery's ``acks_late`` re-delivers only after a one-hour visibility timeout); dramatiq
re-queues but through its own Lua scripts and message format. Our jobs already carry their own
state in Neo4j and are idempotent by recording/turn id, so the thin layer here is all that is
needed, and its semantics are the documented ones of Redis itself.

Entries carry the job id, space, kind and a JSON payload; a recording's audio bytes live in a
separate key (``<prefix>:blob:<job id>``) so the stream stays small, and are deleted on ack.
``<prefix>:live`` maps job id → entry id while a job is unacknowledged, which is how a poller
tells "waiting for a worker" from "lost".
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis

from voxmem.audio.decode import Audio
from voxmem.config import Settings
from voxmem.errors import VoxmemError


class QueueUnavailable(VoxmemError):
    """Redis did not answer: nothing was enqueued (503, try again)."""

    status_code = 503

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": "5"}


def audio_bytes(audio: bytes | Audio) -> bytes:
    """What a worker receives: the uploaded file as it came, or decoded samples as FLAC."""
    if isinstance(audio, bytes):
        return audio
    import io

    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, audio.samples, audio.sample_rate, format="FLAC")
    return buf.getvalue()


@dataclass
class Delivery:
    """One job handed to this worker."""

    entry_id: str
    job_id: str
    space: str
    kind: str
    payload: dict[str, Any]
    deliveries: int  # 1 on the first delivery, more after a worker was lost


@dataclass
class QueueState:
    """Where an unacknowledged job is: waiting, or held by a worker (idle since its heartbeat)."""

    entry_id: str
    consumer: str | None
    idle_s: float
    deliveries: int


class JobQueue:
    """Enqueue, fetch, heartbeat and acknowledge jobs on ``<prefix>:jobs``."""

    GROUP = "workers"

    def __init__(self, settings: Settings, client: redis.Redis | None = None) -> None:
        self.client = client or redis.Redis.from_url(settings.redis_url, socket_timeout=30)
        self.prefix = settings.queue_name
        self.stream = f"{self.prefix}:jobs"
        self.live = f"{self.prefix}:live"
        self.claim_idle_ms = int(settings.worker_claim_idle_s * 1000)
        self._group_ready = False

    def _blob_key(self, job_id: str) -> str:
        return f"{self.prefix}:blob:{job_id}"

    def ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            self.client.xgroup_create(self.stream, self.GROUP, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    # --- producer (the API) --------------------------------------------------------------------
    def enqueue(
        self, job_id: str, space: str, kind: str, payload: dict[str, Any], blob: bytes | None = None
    ) -> str:
        try:
            self.ensure_group()
            if blob is not None:
                self.client.set(self._blob_key(job_id), blob)
            fields = {"job_id": job_id, "space": space, "kind": kind, "payload": json.dumps(payload)}
            entry = self.client.xadd(self.stream, fields)  # type: ignore[arg-type]
            entry_id = entry.decode() if isinstance(entry, bytes) else str(entry)
            self.client.hset(self.live, job_id, entry_id)
        except redis.RedisError as exc:
            raise QueueUnavailable(
                f"the job queue (Redis) did not answer: {exc}; nothing was enqueued"
            ) from exc
        return entry_id

    def blob(self, job_id: str) -> bytes | None:
        value = self.client.get(self._blob_key(job_id))
        return value if isinstance(value, bytes) else None

    # --- consumer (a worker) -------------------------------------------------------------------
    def fetch(self, consumer: str, block_s: float = 2.0) -> Delivery | None:
        """A job another worker lost (idle past the claim time) first, else a new one."""
        self.ensure_group()
        reply: Any = self.client.xautoclaim(
            self.stream, self.GROUP, consumer, min_idle_time=self.claim_idle_ms, start_id="0-0", count=1
        )
        entries = [e for e in reply[1] if e and e[1]]  # [next id, claimed entries, deleted ids]
        if not entries:
            got: Any = self.client.xreadgroup(
                self.GROUP, consumer, {self.stream: ">"}, count=1, block=int(block_s * 1000)
            )
            entries = [e for _, batch in got for e in batch] if got else []
        if not entries:
            return None
        raw_id, fields = entries[0]
        entry_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
        f = {k.decode(): v.decode() for k, v in fields.items()}
        state = self._pending(entry_id)
        return Delivery(
            entry_id=entry_id,
            job_id=f["job_id"],
            space=f["space"],
            kind=f["kind"],
            payload=json.loads(f["payload"]),
            deliveries=state.deliveries if state else 1,
        )

    def heartbeat(self, consumer: str, entry_id: str) -> bool:
        """Reset the entry's idle time; False when another worker has taken it over (then this
        worker must stop: the job is no longer its own)."""
        state = self._pending(entry_id)
        if state is None or state.consumer != consumer:
            return False
        self.client.xclaim(self.stream, self.GROUP, consumer, 0, [entry_id], justid=True)
        return True

    def ack(self, delivery: Delivery) -> None:
        """Called only after the job's result is stored: the entry, its blob and its live mark go."""
        pipe = self.client.pipeline()
        pipe.xack(self.stream, self.GROUP, delivery.entry_id)
        pipe.xdel(self.stream, delivery.entry_id)
        pipe.delete(self._blob_key(delivery.job_id))
        pipe.hdel(self.live, delivery.job_id)
        pipe.execute()

    # --- status --------------------------------------------------------------------------------
    def _pending(self, entry_id: str) -> QueueState | None:
        rows: Any = self.client.xpending_range(self.stream, self.GROUP, min=entry_id, max=entry_id, count=1)
        if not rows:
            return None
        row: dict[str, Any] = rows[0]
        consumer = row["consumer"]
        return QueueState(
            entry_id=entry_id,
            consumer=consumer.decode() if isinstance(consumer, bytes) else consumer,
            idle_s=row["time_since_delivered"] / 1000.0,
            deliveries=int(row["times_delivered"]),
        )

    def state(self, job_id: str) -> QueueState | None:
        """None when the job is not in the queue (acknowledged, or never enqueued here)."""
        raw = self.client.hget(self.live, job_id)
        if raw is None:
            return None
        entry_id = raw.decode() if isinstance(raw, bytes) else str(raw)
        self.ensure_group()
        return self._pending(entry_id) or QueueState(entry_id, None, 0.0, 0)

    def lost(self, state: QueueState) -> bool:
        """Held by a worker that stopped sending heartbeats: the next free worker takes it."""
        return state.consumer is not None and state.idle_s * 1000 >= self.claim_idle_ms

    def backlog(self) -> dict[str, int]:
        """Entries not yet acknowledged, and how many of them a worker holds."""
        self.ensure_group()
        pending = self.client.xpending(self.stream, self.GROUP)
        return {"unacknowledged": int(self.client.hlen(self.live)), "held": int(pending["pending"])}

    def wait_empty(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.client.hlen(self.live) == 0:
                return True
            time.sleep(0.2)
        return False


JOBS_MODES = ("inprocess", "queue")


def job_queue(settings: Settings) -> JobQueue | None:
    """The queue when ``VOXMEM_JOBS_MODE=queue``; None for the in-process default."""
    if settings.jobs_mode not in JOBS_MODES:
        raise ValueError(
            f"VOXMEM_JOBS_MODE must be one of {', '.join(JOBS_MODES)}, not {settings.jobs_mode!r}"
        )
    return JobQueue(settings) if settings.jobs_mode == "queue" else None
