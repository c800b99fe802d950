"""Database.query runs one auto-commit read (no BEGIN/COMMIT exchanges), retried like every call,
and a DatabaseError inside it is still QueryFailed (docs/retrieval.md "Latency, eighth pass")."""

from __future__ import annotations

import uuid
from typing import Any

import neo4j
import pytest
from neo4j.exceptions import DatabaseError, TransientError

from voxmem.core import Voxmem
from voxmem.errors import QueryFailed


def test_query_is_one_auto_commit_statement_not_a_managed_transaction(
    services: Voxmem, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = {"managed": 0, "auto": 0}
    run = neo4j.Session.run
    execute_read = neo4j.Session.execute_read

    def counted_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen["auto"] += 1
        return run(self, *args, **kwargs)

    def counted_read(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen["managed"] += 1
        return execute_read(self, *args, **kwargs)

    monkeypatch.setattr(neo4j.Session, "run", counted_run)
    monkeypatch.setattr(neo4j.Session, "execute_read", counted_read)
    rows = services.db.query("UNWIND range(1, $n) AS i RETURN i", n=3)
    assert rows == [{"i": 1}, {"i": 2}, {"i": 3}]
    assert seen == {"managed": 0, "auto": 1}


def test_a_transient_error_is_retried_and_a_database_error_is_query_failed(
    services: Voxmem, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = neo4j.Session.run
    failures = [TransientError("Neo.TransientError.Transaction.Terminated: try again")]

    def flaky(self: Any, *args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return run(self, *args, **kwargs)

    monkeypatch.setattr(neo4j.Session, "run", flaky)
    assert services.db.query("RETURN 1 AS one") == [{"one": 1}]  # the transient failure was retried
    assert failures == []

    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise DatabaseError("Neo.DatabaseError.General.UnknownError: index search failed")

    monkeypatch.setattr(neo4j.Session, "run", broken)
    with pytest.raises(QueryFailed):
        services.db.query("RETURN 1 AS one")
    monkeypatch.undo()
    assert services.db.query("RETURN 1 AS one") == [{"one": 1}]  # not marked down


def test_a_vector_index_missing_or_being_rebuilt_is_query_failed_not_a_client_error(
    services: Voxmem,
) -> None:
    """While a migration rebuilds ``message_embedding`` the index is "not found": a question then
    must be a retry-later (QueryFailed, 503), not an unhandled ClientError (500)."""
    search = (
        "CYPHER 25 MATCH (m:Message) SEARCH m IN (VECTOR INDEX voxmem_rebuilding_index "
        "FOR $v LIMIT 5) SCORE AS s RETURN m.id AS id"
    )
    with pytest.raises(QueryFailed, match="missing or still being built"):
        services.db.query(search, v=[0.1, 0.2])
    assert services.db.query("RETURN 1 AS one") == [{"one": 1}]  # not marked down


def test_query_rows_equal_record_data_for_plain_values_and_graph_values(
    services: Voxmem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Database.query skips record.data() only for records of plain values (maps, lists, strings,
    numbers, nulls), which need no conversion; a node or a temporal value still goes through it,
    so every row equals record.data() (docs/retrieval.md "Latency, ninth pass"). Fails if the fast
    path takes a node (it would come back as a Node, not its properties) or is never taken."""
    calls = {"data": 0}
    data = neo4j.Record.data

    def counted(self: Any, *keys: Any) -> Any:
        calls["data"] += 1
        return data(self, *keys)

    monkeypatch.setattr(neo4j.Record, "data", counted)
    plain = services.db.query(
        "UNWIND range(1, 2) AS i RETURN i, 'x' + i AS s, [i, 0.5, null, true] AS l, "
        "{id: 'p' + i, name: null, tags: ['a']} AS m, [{source: 'given'}] AS ms"
    )
    assert plain[1] == {
        "i": 2,
        "s": "x2",
        "l": [2, 0.5, None, True],
        "m": {"id": "p2", "name": None, "tags": ["a"]},
        "ms": [{"source": "given"}],
    }
    assert calls["data"] == 0
    name = f"test-rows-{uuid.uuid4().hex[:8]}"
    services.spaces.create(name, "open")
    try:
        text = "MATCH (s:Space {id: $id}) RETURN s, [s] AS ss, datetime('2026-01-01T00:00:00Z') AS t"
        calls["data"] = 0
        graph = services.db.query(text, id=name)
        assert calls["data"] == 1
        monkeypatch.undo()
        assert graph == services.db.execute(text, id=name)  # record.data() on the write path
        assert graph[0]["s"]["id"] == name and graph[0]["ss"] == [graph[0]["s"]]
    finally:
        services.spaces.delete(name)
