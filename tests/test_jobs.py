"""Background job records: saved in Neo4j so a poller can read them after a restart."""

from __future__ import annotations

import threading

import pytest

from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable, NotFound
from voxmem.pipeline.jobs import JobRegistry, Progress
from voxmem.stores.jobs import JobStore


@pytest.mark.integration
def test_a_finished_job_outlives_its_process(services: Voxmem, space: str) -> None:
    before = JobRegistry(JobStore(services.db))
    job = before.submit(space, "recording", lambda progress: (progress("asr", 0.5), {"turns": 3})[1])
    assert before.wait(space, job.id).status == "done"
    after = JobRegistry(JobStore(services.db))  # a new server process: nothing in memory
    saved = after.get(space, job.id)
    assert (saved.status, saved.result, saved.progress) == ("done", {"turns": 3}, 1.0)
    assert saved.finished_at is not None
    with pytest.raises(NotFound):
        after.get("another-space", job.id)
    with pytest.raises(NotFound):
        after.get(space, "job_unknown")


@pytest.mark.integration
def test_a_job_whose_process_is_gone_reads_as_interrupted(services: Voxmem, space: str) -> None:
    release = threading.Event()
    running = JobRegistry(JobStore(services.db))
    job = running.submit(space, "recording", lambda progress: (release.wait(30), {"turns": 1})[1])
    try:
        other = JobRegistry(JobStore(services.db))  # another process, reading the saved record
        for _ in range(500):
            if other.get(space, job.id).status == "running":
                break
            threading.Event().wait(0.02)
        # seen from a live process, a running job with a recent heartbeat is running ...
        assert other.get(space, job.id).status == "running"
        # ... and from one whose patience is shorter than the silence, it is interrupted
        seen = JobRegistry(JobStore(services.db), stale_after_s=0.0).get(space, job.id)
        assert seen.status == "interrupted" and "post the recording again" in seen.error
    finally:
        release.set()
    assert running.wait(space, job.id).status == "done"
    assert JobRegistry(JobStore(services.db), stale_after_s=0.0).get(space, job.id).status == "done"


class _DownDatabase:
    def execute(self, *args, **kwargs):
        raise DatabaseUnavailable("Neo4j is unavailable: test")

    query = execute


def test_a_job_goes_on_when_its_record_cannot_be_saved() -> None:
    registry = JobRegistry(JobStore(_DownDatabase()))  # type: ignore[arg-type]
    job = registry.submit("s", "recording", lambda progress: {"turns": 2})
    done = registry.wait("s", job.id)
    assert (done.status, done.result) == ("done", {"turns": 2})


def test_progress_saves_on_a_new_stage_or_a_heartbeat() -> None:
    from voxmem.stores.jobs import Job

    saved: list[str] = []
    progress = Progress(Job("j", "s", "recording"), lambda job: saved.append(job.stage), heartbeat_s=3600)
    for fraction in (0.1, 0.2, 0.3):
        progress("embedding", fraction)
    progress("asr", 0.4)
    assert saved == ["embedding", "asr"]
    eager = Progress(Job("j", "s", "recording"), lambda job: saved.append(job.stage), heartbeat_s=0)
    eager("asr", 0.1)
    eager("asr", 0.2)
    assert saved[-2:] == ["asr", "asr"]
