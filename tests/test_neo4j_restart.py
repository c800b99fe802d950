"""A Neo4j restart in the middle of ingestion loses nothing and duplicates nothing.

The test stops and restarts the real test server while a client keeps appending turns.
Requests during the outage either ride it out on the bounded retries or get 503; the
client retries those with the same ``turn_id`` (idempotent). Afterwards every turn is
stored exactly once with an unbroken ``NEXT`` chain. It only runs against a server of its
own (``VOXMEM_NEO4J_HOME`` set, as the test command does), never a shared dev server.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from fastapi.testclient import TestClient

from voxmem import neo4j_local
from voxmem.audit import run_audit
from voxmem.config import Settings
from voxmem.core import Voxmem

pytestmark = pytest.mark.skipif(
    not os.environ.get("VOXMEM_NEO4J_HOME"),
    reason="restarts the server: only on the test command's own Neo4j",
)


def test_ingest_survives_a_neo4j_restart(
    app_client: TestClient, services: Voxmem, settings: Settings, space: str, space_headers: dict
) -> None:
    restarted = threading.Event()
    stored: list[str] = []
    requests: list[tuple[float, float, int]] = []  # (start, end, status)

    def ingest() -> None:
        i, after_restart = 0, 0
        while after_restart < 3 and i < 400:
            body = {
                "speaker": ["Ana", "Ben"][i % 2],
                "text": f"turn {i} of the long meeting",
                "turn_id": f"r{i}",
            }
            for _ in range(120):
                t0 = time.monotonic()
                r = app_client.post(f"/spaces/{space}/sessions/long/turns", json=body, headers=space_headers)
                requests.append((t0, time.monotonic(), r.status_code))
                if r.status_code == 201:
                    stored.append(r.json()["id"])
                    break
                assert r.status_code == 503, r.text
                time.sleep(0.5)
            i += 1
            if restarted.is_set():
                after_restart += 1

    worker = threading.Thread(target=ingest)
    worker.start()
    time.sleep(1.0)
    down_at = time.monotonic()
    neo4j_local.down(settings)
    neo4j_local.up(settings)
    up_at = time.monotonic()
    restarted.set()
    worker.join(timeout=600)
    assert not worker.is_alive()

    during = [status for start, end, status in requests if start < up_at and end > down_at]
    assert during, "no request overlapped the outage: the test did not test anything"
    assert len(stored) == len(set(stored))
    rows = services.db.query(
        "MATCH (m:Message {space: $space, session: 'long'}) RETURN m.idx AS idx ORDER BY idx", space=space
    )
    assert [r["idx"] for r in rows] == list(range(len(stored)))
    assert not [f.check.name for f in run_audit(services.db, space) if f.failed]
