"""Neo4j unreachable gives bounded retries then 503; a failed transaction leaves nothing."""

from __future__ import annotations

import time
import uuid

import pytest
from fastapi.testclient import TestClient

from voxmem.api.app import create_app
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable


def test_unreachable_neo4j_gives_503_after_bounded_retries() -> None:
    settings = Settings(neo4j_uri="bolt://127.0.0.1:9", db_retry_attempts=3, db_retry_max_wait_s=0.2)
    svc = Voxmem.build(settings)  # not started: no migrations against a dead server
    try:
        with TestClient(create_app(services=svc)) as client:
            admin = {"Authorization": f"Bearer {settings.admin_key.get_secret_value()}"}
            t0 = time.monotonic()
            r = client.get("/spaces/anything/messages", headers=admin)
            elapsed = time.monotonic() - t0
            assert r.status_code == 503 and r.json()["error"] == "DatabaseUnavailable"
            assert elapsed < 30
            health = client.get("/health").json()
            assert health["status"] == "degraded" and health["neo4j"]["status"] == "unavailable"
    finally:
        svc.close()


def test_failed_transaction_writes_nothing(services: Voxmem, space: str) -> None:
    marker = uuid.uuid4().hex

    def work(tx) -> None:
        tx.run("CREATE (:Message {space: $space, id: $id, text: 'half'})", space=space, id=marker).consume()
        raise ValueError("boom after the first write")

    with pytest.raises(ValueError):
        services.db.write(work)
    assert services.db.query("MATCH (m:Message {id: $id}) RETURN m", id=marker) == []


def test_database_unavailable_is_raised_by_ping() -> None:
    from voxmem.db import Database

    db = Database(Settings(neo4j_uri="bolt://127.0.0.1:9"))
    try:
        with pytest.raises(DatabaseUnavailable):
            db.ping()
    finally:
        db.close()
