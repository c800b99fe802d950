"""Two queue workers, one killed with SIGKILL mid-job: every job still finishes, exactly once.

Real everything: Redis and the workers are started with the project's CLI (`voxmem redis up`,
`voxmem worker`), recordings are synthetic multi-speaker speech (espeak-ng voices), the API
side is a queue-mode ``Voxmem`` over the real Neo4j. One worker is killed while a recording
job of its own is writing turns (at least one stored, the recording not finished); the other
worker must take that job over after the claim time, resume it from the stored turns and
finish it. Checked: every job done with its memory written, every recording's turns cover
disjoint spans (no turn stored twice), the killed job finished by the survivor on a later
delivery, the status read while the job waited for a new worker says so (never ``running``
under the dead worker, never failed), text turns derived by the workers in order, the queue
empty at the end.
"""

from __future__ import annotations

import io
import itertools
import shutil
import time

import pytest
import soundfile as sf

from bench.voices import concatenate, synthesize
from voxmem.core import Voxmem
from voxmem.pipeline.queue import JobQueue
from voxmem.stores.jobs import JobStore
from voxmem.stores.messages import Turn

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed"),
]

A, B, C = "us_f3_s150", "us_m1", "us_klatt5"
RECORDINGS = [
    [(A, "The garage door is broken again, can somebody fix it?"), (B, "I can fix it tomorrow evening."),
     (C, "Then I will buy the new hinges today."), (B, "Good, bring two of them please.")],
    [(C, "We should plan the trip to the mountains."), (A, "The weather looks fine next weekend."),
     (B, "I will book the small cabin near the lake."), (C, "Remember to pack the warm jackets.")],
    [(B, "The concert starts at eight on Friday."), (C, "Can we have dinner before it starts?"),
     (A, "There is a nice place next to the hall."), (B, "Let us meet there at six then.")],
    [(A, "My sister visits us in December."), (B, "She can sleep in the guest room."),
     (C, "I will clean the guest room on Sunday."), (A, "Thank you, she arrives on the tenth.")],
]  # fmt: skip
TEXT = [
    ("Anna", "Tom, can you fix the garage door tomorrow?"),
    ("Tom", "Yes Anna, I will fix it after work."),
    ("Anna", "Thanks. I will buy the hinges at the hardware store."),
]


def flac(turns: list[tuple[str, str]]) -> bytes:
    samples, _ = concatenate([synthesize(text, voice) for voice, text in turns], gap_s=1.0)
    buf = io.BytesIO()
    sf.write(buf, samples, 16_000, format="FLAC")
    return buf.getvalue()


def test_a_killed_worker_loses_nothing(
    services: Voxmem, queue_services: Voxmem, space: str, two_workers
) -> None:
    pipeline, store = queue_services.pipeline, JobStore(services.db)
    queue: JobQueue = queue_services.jobs.queue  # type: ignore[assignment]
    audio = [flac(turns) for turns in RECORDINGS]
    jobs = {
        f"r{i}": pipeline.submit_recording(space, f"s{i}", f"r{i}", raw, audio_uri=f"r{i}.flac")
        for i, raw in enumerate(audio)
    }
    assert {queue_services.jobs.get(space, j.id).status for j in jobs.values()} <= {"queued", "running"}
    for speaker, text in TEXT:  # stored by the API, derived by a worker
        pipeline.append_text(space, Turn(session="t1", speaker=speaker, text=text))

    # Kill the worker of a recording job that has stored a turn and is not finished.
    victim = job_id = None
    deadline = time.monotonic() + 240
    while victim is None:
        assert time.monotonic() < deadline, {r: store.get(space, j.id) for r, j in jobs.items()}
        for rec, job in jobs.items():
            saved = store.get(space, job.id)
            if saved is None or saved.job.status != "running" or saved.owner not in two_workers.procs:
                continue
            state = services.messages.recording_state(space, rec)
            if state["n"] >= 1 and not state["complete"]:
                victim, job_id = saved.owner, job.id
                two_workers.kill9(victim)
                break
        time.sleep(0.1)
    killed_at = time.monotonic()
    survivor = next(n for n in two_workers.procs if n != victim)
    assert store.get(space, job_id).job.status == "running"  # type: ignore[union-attr]

    # While nobody holds it, the status says it waits for another worker (never "running" under
    # the dead one, never failed); once the survivor holds it, it is the survivor's.
    time.sleep(queue.claim_idle_ms / 1000 + 1.0)
    seen = queue_services.jobs.get(space, job_id)
    holder = queue.state(job_id)
    if seen.status == "queued":
        assert victim in seen.stage and holder is not None and holder.consumer == victim, (seen, holder)
    else:  # the survivor has taken it over already (or even finished it)
        assert seen.status in ("running", "done"), seen
        assert holder is None or holder.consumer == survivor, (seen, holder)

    # Every job finishes.
    finished = {}
    for rec, job in jobs.items():
        while (got := queue_services.jobs.get(space, job.id)).status not in ("done", "failed", "interrupted"):
            assert got.status in ("queued", "running"), got
            assert time.monotonic() < killed_at + 300, (
                rec,
                got,
                two_workers.procs[survivor].output()[-3000:],
            )
            time.sleep(0.3)
        assert got.status == "done", got
        assert got.result is not None and got.result["memory"] == "written", got.result
        finished[rec] = got.result

    # The killed job was finished by the survivor on a later delivery, resuming stored turns.
    resumed = next(r for r in finished.values() if jobs[r["recording_id"]].id == job_id)
    assert resumed["worker"] == survivor and resumed["delivery"] >= 2, resumed
    assert resumed["resumed_turns"] >= 1, resumed
    assert {r["worker"] for r in finished.values()} <= {"wA", "wB"}

    # Exactly once in the graph: each recording's turns are its result's, over disjoint spans.
    for rec, result in finished.items():
        turns = sorted(services.messages.recording_turns(space, rec), key=lambda t: t["start"])
        assert len(turns) == result["turns"] >= 3, (rec, turns, result)
        for a, b in itertools.pairwise(turns):
            assert a["start"] + a["duration"] <= b["start"] + 0.05, (rec, a, b)
        assert services.messages.recording_state(space, rec)["complete"]

    # Text turns: derived by the workers, in order (the vocative names the addressee).
    assert queue.wait_empty(120), queue.backlog()
    for session in ["t1", *(f"s{i}" for i in range(len(RECORDINGS)))]:
        assert services.messages.memory_pending(space, session, 0.0, 100) == [], session
    msgs = services.messages.list(space, session="t1")
    assert [m["text"] for m in msgs] == [t for _, t in TEXT]
    assert [a["name"] for a in msgs[0]["addressees"]] == ["Tom"], msgs[0]
    assert queue.backlog() == {"unacknowledged": 0, "held": 0}
    assert two_workers.procs[survivor].proc.poll() is None  # the survivor is still serving
