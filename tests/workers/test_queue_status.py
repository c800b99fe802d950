"""The queue's semantics and the status a poller reads, on the real Redis and Neo4j, no workers:
a delivered job stays pending until acknowledged, a silent holder loses it to the next fetch,
the old holder's heartbeat then fails, and the registry reports each state truthfully."""

from __future__ import annotations

import time
import uuid

import pytest

from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.pipeline.jobs import JobRegistry
from voxmem.pipeline.queue import JobQueue, QueueUnavailable
from voxmem.stores.jobs import JobStore

pytestmark = pytest.mark.integration


@pytest.fixture
def fast_queue(queue_settings: Settings) -> JobQueue:
    """A queue of its own with a one-second claim time."""
    settings = queue_settings.model_copy(
        update={"queue_name": f"unit-{uuid.uuid4().hex[:8]}", "worker_claim_idle_s": 1.0}
    )
    return JobQueue(settings)


def test_unacknowledged_job_moves_to_the_next_worker(fast_queue: JobQueue) -> None:
    fast_queue.enqueue("j1", "sp", "recording", {"session": "s"}, b"audio")
    first = fast_queue.fetch("w1", block_s=0.1)
    assert first is not None and first.deliveries == 1 and fast_queue.blob("j1") == b"audio"
    assert fast_queue.fetch("w2", block_s=0.1) is None  # held by w1, not idle long enough
    assert fast_queue.heartbeat("w1", first.entry_id)
    time.sleep(1.2)
    state = fast_queue.state("j1")
    assert state is not None and state.consumer == "w1" and fast_queue.lost(state)
    second = fast_queue.fetch("w2", block_s=0.1)
    assert second is not None and second.entry_id == first.entry_id and second.deliveries == 2
    assert not fast_queue.heartbeat("w1", first.entry_id)  # w1 must stop: no longer its job
    assert fast_queue.heartbeat("w2", second.entry_id)
    fast_queue.ack(second)
    assert fast_queue.state("j1") is None and fast_queue.blob("j1") is None
    assert fast_queue.backlog() == {"unacknowledged": 0, "held": 0}


def test_status_follows_the_queue(services: Voxmem, space: str, fast_queue: JobQueue) -> None:
    registry = JobRegistry(JobStore(services.db), queue=fast_queue)
    job = registry.enqueue(space, "recording", {"session": "s"}, b"audio")
    assert registry.get(space, job.id).status == "queued"
    delivery = fast_queue.fetch("w1", block_s=0.1)
    assert delivery is not None
    job.status, job.stage = "running", "asr"
    JobStore(services.db).save(job, "w1")  # what the worker saves when it starts
    assert registry.get(space, job.id).status == "running"
    time.sleep(1.2)  # w1 stopped sending heartbeats
    lost = registry.get(space, job.id)
    assert lost.status == "queued" and "w1 stopped" in lost.stage, lost
    fast_queue.ack(delivery)  # acknowledged without a final record: the queue lost it
    assert registry.get(space, job.id).status == "interrupted"


def test_enqueue_without_redis_is_a_503_and_the_record_says_failed(
    services: Voxmem, space: str, queue_settings: Settings
) -> None:
    down = JobQueue(queue_settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"}))
    registry = JobRegistry(JobStore(services.db), queue=down)
    with pytest.raises(QueueUnavailable) as caught:
        registry.enqueue(space, "recording", {"session": "s"}, b"audio")
    assert caught.value.status_code == 503
    saved = JobStore(services.db).list(space)
    assert [s.job.status for s in saved] == ["failed"] and "did not answer" in (saved[0].job.error or "")
