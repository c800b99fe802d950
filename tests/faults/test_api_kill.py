"""Fault test: kill -9 the API process in the middle of a burst of text turns, start it
again, let every client retry what it did not see answered, and check that nothing is lost,
nothing is duplicated and every answer a client got was true.

The API runs as its own process (``voxmem serve``) on the shared test Neo4j, which is never
touched; only the API process is killed. Bounded: 24 turns, two server starts (40 turns took
5 min at load average 14 on 2 cores).
"""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import pytest
from api.live import free_port  # tests/ is on sys.path (rootdir conftest, package dirs)
from own_stack import start_api

pytestmark = pytest.mark.integration

TURNS = 24


def test_kill_api_mid_burst_loses_and_duplicates_nothing(services, space, space_key) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/spaces/{space}/sessions/burst/turns"
    headers = {"Authorization": f"Bearer {space_key}"}
    texts = {f"b{i}": f"Turn number {i}: I bought {i} apples at the market." for i in range(TURNS)}
    answered: dict[str, int] = {}
    lock = threading.Lock()

    def post(turn_id: str) -> None:
        try:
            r = httpx.post(
                base,
                headers=headers,
                json={"speaker": "Ann", "text": texts[turn_id], "turn_id": turn_id},
                timeout=60,
            )
            status = r.status_code
        except httpx.HTTPError:
            status = 0  # no answer: the client cannot know, so it retries
        with lock:
            answered[turn_id] = status

    server = start_api(port, None)
    try:
        workers = [
            threading.Thread(target=lambda c=c: [post(t) for t in list(texts)[c::4]]) for c in range(4)
        ]
        for w in workers:
            w.start()
        while True:  # kill once some turns are in, well before the end
            with lock:
                if len([s for s in answered.values() if s == 201]) >= 6:
                    break
            time.sleep(0.05)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        for w in workers:
            w.join(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
    first_answers = dict(answered)
    assert any(s == 0 for s in first_answers.values()), "the kill hit no request in flight"
    assert all(s in (0, 201) for s in first_answers.values()), first_answers  # no false failure

    server = start_api(port, None)
    try:
        for turn_id in texts:  # a client retries everything it did not see stored, same turn_id
            if first_answers[turn_id] != 201:
                post(turn_id)
                assert answered[turn_id] == 201, (turn_id, answered[turn_id])
        replay = httpx.post(
            base, headers=headers, json={"speaker": "Ann", "text": texts["b0"], "turn_id": "b0"}, timeout=60
        )
        assert replay.status_code == 201
    finally:
        server.kill()
        server.wait(timeout=30)

    rows = services.db.query(
        "MATCH (m:Message {space: $space, session: 'burst'}) RETURN m.id AS id, m.text AS text, m.idx AS idx",
        space=space,
    )
    assert len(rows) == TURNS, f"{len(rows)} stored for {TURNS} turns"
    by_text = {r["text"] for r in rows}
    assert by_text == set(texts.values())  # nothing lost, nothing twice
    assert sorted(r["idx"] for r in rows) == list(range(TURNS))  # one gap-free order
