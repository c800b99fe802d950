"""The one way voxmem talks to Neo4j: managed transactions with bounded retries.

Why a wrapper: every write of a turn must be one transaction, retried as a whole when
Neo4j is briefly unreachable (restart mid-ingest), and given up on after a bounded time
so the API can answer 503 instead of hanging. The driver's own managed-transaction
retry covers transient errors inside a live connection; tenacity covers the server
being gone altogether.

Fail fast: every transaction gets at most ``db_unavailable_timeout_s`` of retries (connect
timeouts included), and once Neo4j has been found gone, calls in the next seconds try once
without retrying, so a request that touches the database several times still answers 503
within a few seconds (a text turn once took ~40 s to fail).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    Record,
    Session,
)
from neo4j.exceptions import (
    ClientError,
    DatabaseError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from neo4j.vector import Vector
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)

from voxmem.config import Settings
from voxmem.cypher import query
from voxmem.errors import DatabaseUnavailable, QueryFailed

log = logging.getLogger(__name__)

T = TypeVar("T")

# Raised while an index is dropped and rebuilt by a migration (and for a name that never existed).
INDEX_NOT_FOUND = "Neo.ClientError.Schema.IndexNotFound"
_RETRYABLE = (ServiceUnavailable, SessionExpired, TransientError, ConnectionError, OSError)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """Whether ``value`` holds only strings, numbers, booleans and nulls (in lists and maps)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is list:
        return all(_plain(item) for item in value)
    if kind is dict:
        return all(_plain(item) for item in value.values())
    return False


def _row(record: Record) -> dict[str, Any]:
    """One record as a dict, equal to ``record.data()``.

    Why: ``record.data()`` walks every value with abstract-base-class checks looking for nodes,
    relationships and paths to convert, 1.7 ms for a retrieval tool's 50 rows of maps and lists
    (the fused round decodes four such results, on the GIL); a record of plain values needs no
    conversion, and telling so with exact type checks costs 0.24 ms (docs/retrieval.md "Latency,
    ninth pass"). Anything else (a node, a temporal value) goes through ``record.data()``."""
    values = record.values()
    if all(_plain(value) for value in values):
        return dict(zip(record.keys(), values, strict=True))
    return record.data()


def native_time(value: Any) -> datetime | None:
    """A Neo4j temporal read from a record as Python's (``datetime``; None stays None). The
    stores' typed records carry Python times, which the pure rules compare and order."""
    return value.to_native() if hasattr(value, "to_native") else value


class Database:
    """A Neo4j driver plus the retry policy; cheap to share across threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.database = settings.neo4j_database
        self.budget_s = settings.db_unavailable_timeout_s
        self._down_until = 0.0  # monotonic time until which Neo4j counts as gone: no retries
        self.driver: Driver = GraphDatabase.driver(
            settings.neo4j_uri,
            auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
            max_transaction_retry_time=min(self.budget_s / 2, settings.db_retry_max_wait_s * 2),
            connection_acquisition_timeout=max(1.0, self.budget_s),
            connection_timeout=max(0.5, min(5.0, self.budget_s / 2)),
            # Queries that name labels other writers have not created yet are normal here.
            notifications_min_severity="OFF",
        )

    def close(self) -> None:
        self.driver.close()

    def _retrying(self) -> Retrying:
        known_down = time.monotonic() < self._down_until
        attempts = 1 if known_down else self.settings.db_retry_attempts
        return Retrying(
            retry=retry_if_exception_type(_RETRYABLE),
            stop=stop_after_attempt(attempts) | stop_after_delay(self.budget_s),
            wait=wait_exponential(multiplier=0.25, max=min(self.settings.db_retry_max_wait_s, self.budget_s)),
            reraise=False,
            before_sleep=lambda rs: log.warning("neo4j unavailable, retry %d", rs.attempt_number),
        )

    def _run(self, access: str, work: Callable[..., T], **kwargs: Any) -> T:
        """``work`` in a managed write or read transaction, or (``access`` "auto") given the session
        itself, for one statement run as an auto-commit read."""
        try:
            for attempt in self._retrying():
                mode = WRITE_ACCESS if access == "write" else READ_ACCESS
                session_of = self.driver.session(database=self.database, default_access_mode=mode)
                with attempt, session_of as session:
                    if access == "write":
                        return session.execute_write(work, **kwargs)
                    if access == "read":
                        return session.execute_read(work, **kwargs)
                    return work(session, **kwargs)
        except RetryError as exc:
            cause = exc.last_attempt.exception()
            self._down_until = time.monotonic() + self.budget_s
            raise DatabaseUnavailable(f"Neo4j is unavailable: {cause}") from cause
        except DatabaseError as exc:
            # The server is up but failed inside (e.g. an internal error in a vector index
            # search under concurrent writes): the transaction was rolled back, so this is
            # "nothing written, retry" (503), not a bug of ours (500); the server is not
            # marked down, the next call tries normally.
            log.warning("neo4j internal error %s: %s", exc.code, exc.message)
            raise QueryFailed(
                f"Neo4j failed to run the query ({exc.code}); nothing was written, retry"
            ) from exc
        except ClientError as exc:
            if exc.code != INDEX_NOT_FOUND:
                raise
            # A schema migration drops and rebuilds an index (0011: ~30 s at 100k messages, ~24
            # min at 1M) while another process may still be answering questions: for that window
            # the index is "not found" or "not ready". It is the same "nothing done, retry" as an
            # internal failure (503), and a caller with another way to ask may take it.
            log.warning("neo4j index missing or not ready: %s", exc.message)
            raise QueryFailed(
                "an index this query needs is missing or still being built (a schema migration may "
                "be running); nothing was written, retry"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def write(self, work: Callable[..., T], **kwargs: Any) -> T:
        """Run ``work(tx, **kwargs)`` in one write transaction (all or nothing)."""
        return self._run("write", work, **kwargs)

    def read(self, work: Callable[..., T], **kwargs: Any) -> T:
        """Run ``work(tx, **kwargs)`` in one read transaction."""
        return self._run("read", work, **kwargs)

    def query(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run one read query and return its records as dicts.

        An auto-commit transaction, not a managed one: a single read statement needs no BEGIN and
        COMMIT exchanges, which cost the retrieval round's queries a few ms of client time each
        (docs/retrieval.md "Latency, eighth pass"). Retried like every call (tenacity's
        ``_RETRYABLE`` includes the transient errors the managed form retried)."""

        def work(session: Session) -> list[dict[str, Any]]:
            return [_row(record) for record in session.run(cypher, params)]

        return self._run("auto", work)

    def execute(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run one write query in its own transaction and return its records."""

        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(cypher, params)]

        return self.write(work)

    def execute_batched(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run one write statement in an auto-commit transaction, the only kind in which
        ``CALL { … } IN TRANSACTIONS`` may run: a data migration over every message of a store
        commits in batches instead of holding one transaction of a million updates. Not retried
        (such a statement must be idempotent; the next start runs it again)."""

        try:
            with self.driver.session(database=self.database) as session:
                return [record.data() for record in session.run(cypher, params)]
        except _RETRYABLE as exc:
            raise DatabaseUnavailable(f"Neo4j is unavailable: {exc}") from exc

    @functools.cached_property
    def cypher25(self) -> bool:
        """Whether the server has Cypher 25 ``SEARCH`` with vector index filters (2026.x; the
        project runs 2026.08.1); 5.26 LTS has not, and retrieval then runs the ``*_legacy``
        queries and migrations drop index filter properties (docs/scaling.md)."""
        major = str(self.ping().get("version") or "0").split(".")[0]
        return major.isdigit() and int(major) >= 2026

    def vector(self, values: Any) -> Any:
        """A stored embedding as a query parameter: a packed float32 ``neo4j.vector.Vector`` on a
        server with Cypher 25 (read back by ``toFloatList`` in a :meth:`vector_query`), else a list
        of floats (5.26 LTS).

        Why: the driver packs a list one float at a time in Python (384 per passage, fact or
        attribute) and the server unpacks as many values; a Vector is one byte string each way.
        400 rows with 1,200 vectors: 1.0 s → 0.07 s of client CPU (docs/scaling.md). The stored
        values are the same: a float32 vector's floats, exactly."""
        array = np.asarray(values, dtype=np.float32)
        return Vector(array) if self.cypher25 else array.tolist()

    def vector_query(self, name: str) -> str:
        """``cypher/<name>.cypher`` for parameters made by :meth:`vector`: run as Cypher 25 where
        the server has it (``toFloatList`` of a VECTOR; Cypher 5 refuses one), as written on 5.26."""
        text = query(name)
        return f"CYPHER 25\n{text}" if self.cypher25 else text

    def ping(self) -> dict[str, Any]:
        """Server version and edition, or raise DatabaseUnavailable (one quick attempt)."""
        try:
            info = self.driver.get_server_info()
            rows = self.driver.execute_query(
                "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS version, edition",
                database_=self.database,
            ).records
        except _RETRYABLE as exc:
            raise DatabaseUnavailable(f"Neo4j is unavailable: {exc}") from exc
        row = rows[0] if rows else {}
        return {"agent": info.agent, "version": row.get("version"), "edition": row.get("edition")}
