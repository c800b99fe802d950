"""Fault test: kill -9 Neo4j in the middle of a burst of text turns, start it again on the same
home, let every client retry what it did not see stored, and check that nothing is lost, nothing
is duplicated, every stored turn has its memory and every answer a client got was true.

Truthful means: 201 only for a turn that is stored (with its memory, checked afterwards); while
Neo4j is down, 503 with ``Retry-After`` (fast, within the configured budget) and never a 5xx of
another kind or a dropped connection; after Neo4j is back, a retry with the same ``turn_id``
stores each missing turn exactly once and derives its memory.

Starts its own Neo4j (own NEO4J_HOME under the cache dir, Bolt 27707 / HTTP 27494) through
``voxmem.neo4j_local`` and its own ``voxmem serve``; both are stopped in ``finally``. The shared
servers on 7687/17687 are never touched. Bounded: 16 turns, one Neo4j restart, every wait has a
time limit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from api.live import free_port  # tests/ is on sys.path (rootdir conftest, package dirs)
from neo4j import GraphDatabase
from own_stack import own_neo4j, start_api, stop, wait_for

from voxmem import neo4j_local
from voxmem.cypher import query

pytestmark = pytest.mark.integration

BOLT, HTTP = 27707, 27494
TURNS = 16
SPACE = "fault-neo4j-kill"
SESSION = "burst"
DOWN_ANSWER_S = 15.0  # budget 3 s below; a 503 must come well before a client would give up


def test_kill_neo4j_mid_burst_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    settings = own_neo4j("fault-kill-home", BOLT, HTTP)
    port = free_port()
    root = f"http://127.0.0.1:{port}"
    admin = {"Authorization": f"Bearer {settings.admin_key.get_secret_value()}"}
    texts = {f"k{i}": f"Turn number {i}: I bought {i + 2} apples at the market." for i in range(TURNS)}
    answers: dict[str, tuple[int, str | None]] = {}
    lock = threading.Lock()
    api: subprocess.Popen[bytes] | None = None
    try:
        neo4j_local.up(settings)
        api = start_api(
            port, tmp_path / "serve.log", neo4j=settings, env={"VOXMEM_DB_UNAVAILABLE_TIMEOUT_S": "3"}
        )
        httpx.delete(f"{root}/admin/spaces/{SPACE}", headers=admin, timeout=60)  # absent on a fresh home
        created = httpx.post(
            f"{root}/admin/spaces", headers=admin, json={"id": SPACE, "policy": "open"}, timeout=60
        )
        assert created.status_code in (200, 201), created.text
        key = httpx.post(
            f"{root}/admin/spaces/{SPACE}/keys", headers=admin, json={"label": "fault"}, timeout=60
        ).json()["key"]
        headers = {"Authorization": f"Bearer {key}"}
        turns_url = f"{root}/spaces/{SPACE}/sessions/{SESSION}/turns"

        def post(turn_id: str) -> tuple[int, str | None]:
            try:
                r = httpx.post(
                    turns_url,
                    headers=headers,
                    json={"speaker": "Ann", "text": texts[turn_id], "turn_id": turn_id},
                    timeout=60,
                )
                answer = (r.status_code, r.headers.get("Retry-After"))
            except httpx.HTTPError:
                answer = (0, None)  # no answer at all: the API itself is up, so this is a failure
            with lock:
                answers[turn_id] = answer
            return answer

        # --- the burst, Neo4j killed once some turns are in -------------------------------
        pid = neo4j_local.status(settings).pid
        assert pid is not None, "our Neo4j reports no pid"
        workers = [
            threading.Thread(target=lambda c=c: [post(t) for t in list(texts)[c::4]]) for c in range(4)
        ]
        for w in workers:
            w.start()
        wait_for(
            "4 stored turns before the kill",
            lambda: sum(1 for s, _ in list(answers.values()) if s == 201) >= 4,
            120,
        )
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        for w in workers:
            w.join(timeout=180)
        assert not any(w.is_alive() for w in workers), "a client hung while Neo4j was down"
        burst_s = time.monotonic() - killed_at
        first = dict(answers)
        assert len(first) == TURNS
        assert all(s in (201, 503) for s, _ in first.values()), first  # no 500, no dropped connection
        failed = [t for t, (s, _) in first.items() if s == 503]
        assert failed, f"the kill hit no request (all {TURNS} stored); {first}"
        assert all(ra and int(ra) > 0 for s, ra in first.values() if s == 503), first
        assert burst_s < TURNS * DOWN_ANSWER_S, f"the clients were answered only after {burst_s:.0f}s"

        # --- while Neo4j is down: a fast, truthful 503 ---------------------------------------
        started = time.monotonic()
        status, retry_after = post(failed[0])
        assert status == 503 and retry_after, (status, retry_after)
        assert time.monotonic() - started < DOWN_ANSWER_S

        # --- Neo4j back on the same home; clients retry with the same turn_id ------------------
        neo4j_local.up(settings)
        for turn_id in failed:

            def stored(turn_id: str = turn_id) -> bool:
                return post(turn_id)[0] == 201  # 503 until the API's driver reconnects

            wait_for(f"turn {turn_id} stored on retry", stored, 90)
        replay = httpx.post(
            turns_url,
            headers=headers,
            json={"speaker": "Ann", "text": texts["k0"], "turn_id": "k0"},
            timeout=60,
        )
        assert replay.status_code == 201, replay.text  # a replay of a stored turn: same answer, no copy
        print(f"burst: {TURNS - len(failed)} stored, {len(failed)} answered 503 after the kill")
        check = httpx.get(f"{root}/spaces/{SPACE}/memory/check", headers=headers, timeout=60)
        assert check.status_code == 200 and check.json()["clean"], check.text

        # --- what Neo4j holds ----------------------------------------------------------------------
        driver = GraphDatabase.driver(
            settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value())
        )
        try:
            with driver.session(database=settings.neo4j_database) as s:
                rows = s.run(
                    "MATCH (m:Message {space: $space, session: $session}) "
                    "RETURN m.text AS text, m.idx AS idx, "
                    "COUNT { (m)<-[:DERIVED_FROM]-(:Fact) } AS facts",
                    space=SPACE,
                    session=SESSION,
                ).data()
                chain = s.run(query("audit_next_chain"), space=SPACE).single()
                links = s.run(
                    "MATCH (:Message {space: $space, session: $session})-[r:NEXT]->"
                    "(:Message {space: $space, session: $session}) RETURN count(r) AS n",
                    space=SPACE,
                    session=SESSION,
                ).single()["n"]
        finally:
            driver.close()
        assert len(rows) == TURNS, f"{len(rows)} stored for {TURNS} turns"
        assert sorted(r["text"] for r in rows) == sorted(texts.values())  # nothing lost, nothing twice
        assert sorted(r["idx"] for r in rows) == list(range(TURNS))  # one gap-free order
        assert chain["violations"] == 0 and links == TURNS - 1, (chain, links)  # NEXT chain unbroken
        assert all(r["facts"] >= 1 for r in rows), [r for r in rows if r["facts"] < 1]  # memory with each
    finally:
        if api is not None:
            stop(api)
        neo4j_local.down(settings)
