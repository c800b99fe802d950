"""Fault tests: kill -9 Neo4j, and kill -9 the API process, in the middle of a recording job.

Each checks that nothing is lost (every spoken sentence of the recording lies in a stored turn),
nothing is duplicated (turn spans do not overlap, texts are unique, one gap-free order), every
stored turn has its memory, the memory check is clean, and every client got a truthful status:

* Neo4j killed: job status keeps answering 200 from the running API process (fast, within the
  configured budget), the job ends ``failed`` naming the outage, a new upload meanwhile gets a fast
  503 with ``Retry-After``; after Neo4j is back, posting the recording again resumes it (the stored
  turns are kept, not written twice) and it finishes.
* API killed: the client's status poll gets no answer; after a restart, the job reads ``running``
  (its heartbeat is fresh) or ``interrupted``, never ``done`` or ``failed``; posting the recording
  again resumes it and it finishes.

Starts its own Neo4j (own NEO4J_HOME under the cache dir, Bolt 27717 / HTTP 27504) and its own
``voxmem serve``; the shared servers on 7687/17687 are never touched. Bounded: one 6-turn recording
(~30 s of speech) per test, every wait has a time limit.
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import soundfile as sf
from api.live import free_port  # tests/ is on sys.path (rootdir conftest, package dirs)
from neo4j import GraphDatabase
from own_stack import own_neo4j, start_api, stop, wait_for

from bench.sentences import BENCHMARK
from bench.voices import concatenate, synthesize
from voxmem import neo4j_local
from voxmem.asr.transcriber import is_speech_text
from voxmem.config import Settings

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed"),
]

BOLT, HTTP = 27717, 27504
SPACE = "fault-recording-kill"
BUDGET_S = 3  # VOXMEM_DB_UNAVAILABLE_TIMEOUT_S of the API under test
DOWN_ANSWER_S = 15.0  # a status or a 503 must come well before a client would give up
VOICES = ["us_m1", "us_f3_s150", "us_croak_hi"]


@dataclass
class Stack:
    settings: Settings
    port: int
    log: Path
    key: str
    api: subprocess.Popen[bytes] | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def start_api(self) -> None:
        self.api = start_api(
            self.port, self.log, neo4j=self.settings, env={"VOXMEM_DB_UNAVAILABLE_TIMEOUT_S": str(BUDGET_S)}
        )

    def post(self, session: str, recording_id: str, flac: bytes) -> httpx.Response:
        return httpx.post(
            f"{self.root}/spaces/{SPACE}/sessions/{session}/recordings",
            headers=self.headers,
            files={"audio": ("r.flac", flac, "audio/flac")},
            data={"recording_id": recording_id},
            timeout=120,
        )

    def job(self, job_id: str) -> httpx.Response:
        return httpx.get(f"{self.root}/spaces/{SPACE}/jobs/{job_id}", headers=self.headers, timeout=60)

    def rows(self, cypher: str, **params) -> list[dict]:
        s = self.settings
        driver = GraphDatabase.driver(s.neo4j_uri, auth=(s.neo4j_user, s.neo4j_password.get_secret_value()))
        try:
            with driver.session(database=s.neo4j_database) as session:
                return session.run(cypher, space=SPACE, **params).data()
        finally:
            driver.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = own_neo4j("fault-recording-home", BOLT, HTTP)
    log = tmp_path_factory.mktemp("recording-kill") / "serve.log"
    st = Stack(settings, free_port(), log, key="")
    try:
        neo4j_local.up(settings)
        st.start_api()
        admin = {"Authorization": f"Bearer {settings.admin_key.get_secret_value()}"}
        httpx.delete(f"{st.root}/admin/spaces/{SPACE}", headers=admin, timeout=60)  # a rerun's leftovers
        created = httpx.post(
            f"{st.root}/admin/spaces", headers=admin, json={"id": SPACE, "policy": "open"}, timeout=60
        )
        assert created.status_code in (200, 201), created.text
        st.key = httpx.post(
            f"{st.root}/admin/spaces/{SPACE}/keys", headers=admin, json={"label": "fault"}, timeout=60
        ).json()["key"]
        yield st
    finally:
        if st.api is not None:
            stop(st.api)
        neo4j_local.down(settings)


def six_turns() -> tuple[bytes, list[tuple[float, float]]]:
    """Six sentences by three voices with 1 s pauses, as FLAC, and each sentence's span."""
    paths = [synthesize(BENCHMARK[i], VOICES[i % 3]) for i in range(2, 8)]
    samples, spans = concatenate(paths, gap_s=1.0)
    buf = io.BytesIO()
    sf.write(buf, samples, 16_000, format="FLAC")
    return buf.getvalue(), spans


def start_and_wait_for_a_stored_turn(stack: Stack, session: str, recording_id: str, flac: bytes) -> str:
    """Post the recording; return its job id once at least one turn is stored (routing stage past
    its first turn), so a kill now lands in the middle of the writes."""
    posted = stack.post(session, recording_id, flac)
    assert posted.status_code == 202, posted.text
    job_id = posted.json()["id"]

    def writing() -> bool:
        job = stack.job(job_id).json()
        assert job["status"] in ("queued", "running"), job  # finished before the kill: test too slow
        return job["stage"] == "routing" and job["progress"] > 0.7

    wait_for("the first stored turn of the recording", writing, 300, every_s=0.05)
    return job_id


def stored_turns(stack: Stack, session: str) -> list[dict]:
    return stack.rows(
        "MATCH (m:Message {space: $space, session: $session}) "
        "RETURN m.id AS id, m.text AS text, m.idx AS idx, m.start AS start, m.duration AS duration, "
        "m.memory_pending AS pending ORDER BY m.idx",
        session=session,
    )


def assert_whole_and_once(stack: Stack, session: str, spans: list[tuple[float, float]], result: dict) -> None:
    """Nothing lost, nothing twice, memory with every turn, a clean check."""
    turns = stored_turns(stack, session)
    assert len(turns) == result["turns"], (turns, result)
    assert [t["idx"] for t in turns] == list(range(len(turns)))  # one gap-free order
    assert len({t["text"] for t in turns}) == len(turns), turns  # no turn written twice
    assert all(is_speech_text(t["text"]) for t in turns), turns
    by_start = sorted((t["start"], t["start"] + t["duration"]) for t in turns)
    overlaps = [(a, b) for a, b in itertools.pairwise(by_start) if b[0] < a[1] - 0.05]
    assert not overlaps, overlaps  # a resumed piece stored twice would overlap its first copy
    for start, end in spans:  # every sentence lies (mostly) inside some stored turn
        covered = max(min(end, e) - max(start, s) for s, e in by_start)
        assert covered > 0.5 * (end - start), ((start, end), by_start)
    assert not [t for t in turns if t["pending"]], turns  # every turn's memory derived
    check = httpx.get(f"{stack.root}/spaces/{SPACE}/memory/check", headers=stack.headers, timeout=60)
    assert check.status_code == 200 and check.json()["clean"], check.text


def finish(stack: Stack, job_id: str, limit_s: float = 400) -> dict:
    return wait_for(
        f"job {job_id} to end",
        lambda: (j := stack.job(job_id).json())["status"] in ("done", "failed", "interrupted") and j,
        limit_s,
    )


def test_kill_neo4j_mid_recording(stack: Stack) -> None:
    flac, spans = six_turns()
    session, recording = "neo4j-kill", "rec-neo4j-kill"
    job_id = start_and_wait_for_a_stored_turn(stack, session, recording, flac)
    pid = neo4j_local.status(stack.settings).pid
    assert pid is not None, "our Neo4j reports no pid"
    os.kill(pid, signal.SIGKILL)

    # --- while Neo4j is down: job status from the running process, a fast 503 for new work ---
    slowest, final = 0.0, None
    deadline = time.monotonic() + 300
    while final is None and time.monotonic() < deadline:
        asked = time.monotonic()
        r = stack.job(job_id)
        slowest = max(slowest, time.monotonic() - asked)
        assert r.status_code == 200, (r.status_code, r.text)
        if r.json()["status"] in ("done", "failed", "interrupted"):
            final = r.json()
        time.sleep(0.2)
    assert slowest < DOWN_ANSWER_S, f"job status took {slowest:.1f}s during the outage"
    assert final is not None and final["status"] == "failed", (
        final
    )  # not done: its turns could not all be written
    assert "unavailable" in final["error"].lower(), final["error"]
    asked = time.monotonic()
    again = stack.post(session, recording, flac)
    assert again.status_code == 503 and int(again.headers["Retry-After"]) > 0, (again.status_code, again.text)
    assert time.monotonic() - asked < DOWN_ANSWER_S

    # --- Neo4j back on the same home: the same upload resumes the job --------------------------
    neo4j_local.up(stack.settings)
    before = len(stored_turns(stack, session))
    assert before >= 1, "the kill came before any turn was stored"
    resumed = wait_for(
        "the re-posted recording accepted",
        lambda: (r := stack.post(session, recording, flac)).status_code == 202 and r,
        120,
    )
    job = finish(stack, resumed.json()["id"])
    assert job["status"] == "done", job
    result = job["result"]
    assert result["resumed_turns"] == before and result["turns"] > before, result
    assert_whole_and_once(stack, session, spans, result)
    assert stack.job(job_id).json()["status"] == "failed"  # the first job's answer stays true
    print(
        f"neo4j kill: {before} of {result['turns']} turns stored before the kill, rest on resume; "
        f"slowest job status during the outage {slowest:.1f}s"
    )


def test_kill_api_mid_recording(stack: Stack) -> None:
    neo4j_local.up(stack.settings)  # in case the test before stopped early
    flac, spans = six_turns()
    session, recording = "api-kill", "rec-api-kill"
    job_id = start_and_wait_for_a_stored_turn(stack, session, recording, flac)
    assert stack.api is not None
    stack.api.send_signal(signal.SIGKILL)
    stack.api.wait(timeout=30)
    with pytest.raises(httpx.HTTPError):
        stack.job(job_id)  # no answer at all: the client knows nothing was confirmed
    before = len(stored_turns(stack, session))
    assert before >= 1, before

    stack.start_api()
    old = stack.job(job_id)
    assert old.status_code == 200 and old.json()["status"] in ("running", "interrupted"), old.text
    resumed = stack.post(session, recording, flac)
    assert resumed.status_code == 202, resumed.text
    job = finish(stack, resumed.json()["id"])
    assert job["status"] == "done", job
    result = job["result"]
    assert result["resumed_turns"] == before and result["turns"] > before, result
    assert_whole_and_once(stack, session, spans, result)
    print(f"api kill: {before} of {result['turns']} turns stored before the kill, rest on resume")
