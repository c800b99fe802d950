"""A Neo4j restart in the middle of ingestion loses nothing and duplicates nothing.

The test stops and restarts the real test server while a client keeps appending turns.
Requests during the outage get 503 after bounded retries; the client retries them with
the same ``turn_id`` (idempotent), and afterwards every turn is stored exactly once with
an unbroken ``NEXT`` chain.
"""

from __future__ import annotations

import threading
import time

from fastapi.testclient import TestClient

from voxmem import neo4j_local
from voxmem.audit import run_audit
from voxmem.config import Settings
from voxmem.services import Services


def test_ingest_survives_a_neo4j_restart(
    app_client: TestClient, services: Services, settings: Settings, space: str, space_headers: dict
) -> None:
    restarted = threading.Event()
    stored: list[str] = []
    statuses: list[int] = []

    def ingest() -> None:
        i, after_restart = 0, 0
        while after_restart < 3 and i < 400:
            body = {
                "speaker": ["Ana", "Ben"][i % 2],
                "text": f"turn {i} of the long meeting",
                "turn_id": f"r{i}",
            }
            for _ in range(120):
                r = app_client.post(f"/spaces/{space}/sessions/long/turns", json=body, headers=space_headers)
                statuses.append(r.status_code)
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
    neo4j_local.down(settings)
    neo4j_local.up(settings)
    restarted.set()
    worker.join(timeout=600)
    assert not worker.is_alive()

    assert 503 in statuses, "no request hit the outage: the test did not test anything"
    assert len(stored) == len(set(stored))
    rows = services.db.query(
        "MATCH (m:Message {space: $space, session: 'long'}) RETURN m.idx AS idx ORDER BY idx", space=space
    )
    assert [r["idx"] for r in rows] == list(range(len(stored)))
    assert not [f.check.name for f in run_audit(services.db, space) if f.failed]
