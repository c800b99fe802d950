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


def _internal_error(tx, write: bool = True) -> None:
    """Stands for a query Neo4j fails inside (the server's own DatabaseError, as an ANN search
    raised under concurrent writes), after this transaction ran a statement."""
    from neo4j.exceptions import DatabaseError

    if write:
        tx.run("CREATE (:Message {id: 'internal-error-probe', space: 'internal-error-probe'})").consume()
    else:
        tx.run("MATCH (m:Message) RETURN count(m)").consume()
    raise DatabaseError("Neo.DatabaseError.General.UnknownError: index search failed")


def test_an_internal_neo4j_error_is_a_503_that_wrote_nothing(services: Voxmem) -> None:
    with pytest.raises(DatabaseUnavailable) as raised:
        services.db.write(_internal_error)
    assert raised.value.status_code == 503 and "nothing was written" in raised.value.message
    assert services.db.query("MATCH (m:Message {id: 'internal-error-probe'}) RETURN m") == []
    assert services.db.query("RETURN 1 AS one") == [{"one": 1}]  # not marked down: the next call runs


def test_a_tool_failing_inside_neo4j_costs_its_slot_and_all_failing_is_a_503(services: Voxmem) -> None:
    from voxmem.retrieval.tools import Retriever
    from voxmem.stores.messages import Turn

    space = f"test-{uuid.uuid4().hex[:12]}"
    services.spaces.create(space, "open")  # an unknown asker reads everything here

    class Failing(Retriever):
        name, queries = "message_vector", ()

        def search(self, *args: object, **kwargs: object) -> list:
            return services.db.read(_internal_error, write=False)

    try:
        turn = Turn("s1", "Maya", "The spare key is under the blue flowerpot.", turn_id="k0")
        services.pipeline.append_text(space, turn)
        retrieval = services.retrieval
        agent = retrieval.agent(max_rounds=1)
        bm25 = retrieval.tools["message_fulltext"]
        agent.tools = {"message_vector": Failing(db=services.db), "message_fulltext": bm25}
        scope = retrieval.scope(space, None)
        result = agent.run("Where is the spare key?", scope, retrieval.policy("fixed"))
        assert any(e.evidence.text.startswith("The spare key") for e in result.evidence), result.evidence
        assert any(s.startswith("message_vector: Neo4j failed") for s in result.trace[0].skipped)

        agent.tools = {"message_vector": Failing(db=services.db)}
        with pytest.raises(DatabaseUnavailable):  # an outage is a 503, never an empty "not in memory"
            agent.run("Where is the spare key?", scope, retrieval.policy("fixed"))
    finally:
        services.spaces.delete(space)
