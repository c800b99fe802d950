"""Job records (``(:Job)`` nodes): the only code that runs Cypher for background jobs.

A job's state is saved on submit, on every stage change and at the end, so a poller can
still read it after the server restarted (``voxmem.pipeline.jobs.JobRegistry`` runs the
jobs and decides when a saved one reads as interrupted).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from voxmem.cypher import query
from voxmem.db import Database


@dataclass
class Job:
    """A background job as pollers see it (``JobOut`` in the API schema)."""

    id: str
    space: str
    kind: str
    status: str = "queued"  # queued | running | done | failed | interrupted
    stage: str = ""
    progress: float = 0.0
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None

    def view(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SavedJob:
    """A job record read back, with who saved it and how long ago (seconds since its heartbeat)."""

    job: Job
    owner: str | None
    idle_s: float


class JobStore:
    """Save and read ``Job`` nodes of one database, always scoped by space."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, job: Job, owner: str) -> None:
        self.db.execute(
            query("job_save"),
            **{k: v for k, v in asdict(job).items() if k != "result"},
            result=None if job.result is None else json.dumps(job.result, default=str),
            owner=owner,
        )

    def get(self, space: str, job_id: str) -> SavedJob | None:
        rows = self.db.query(query("job_get"), space=space, id=job_id)
        return _saved(rows[0]["job"]) if rows else None

    def list(self, space: str, status: str | None = None, limit: int = 100) -> list[SavedJob]:
        rows = self.db.query(query("job_list"), space=space, status=status, limit=limit)
        return [_saved(r["job"]) for r in rows]


def _saved(row: dict[str, Any]) -> SavedJob:
    job = Job(
        id=row["id"],
        space=row["space"],
        kind=row["kind"],
        status=row["status"],
        stage=row["stage"] or "",
        progress=row["progress"] or 0.0,
        created_at=row["created_at"],
        finished_at=row.get("finished_at"),
        result=json.loads(row["result"]) if row.get("result") else None,
        error=row.get("error"),
    )
    return SavedJob(job=job, owner=row.get("owner"), idle_s=row["idle_s"])
