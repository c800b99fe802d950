"""Errors the API turns into HTTP answers. Raised deep, mapped once in ``voxmem.api.app``."""

from __future__ import annotations


class VoxmemError(Exception):
    """Base class: carries an HTTP status and a message meant for the client."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def headers(self) -> dict[str, str]:
        """HTTP headers the answer carries (e.g. ``Retry-After`` on a 503)."""
        return {}


class NotFound(VoxmemError):
    status_code = 404


class Conflict(VoxmemError):
    status_code = 409


class InvalidInput(VoxmemError):
    status_code = 422


class Unauthorized(VoxmemError):
    status_code = 401


class Forbidden(VoxmemError):
    status_code = 403


class DatabaseUnavailable(VoxmemError):
    """Neo4j did not answer within the bounded time (``db_unavailable_timeout_s``).

    Nothing of the failed transaction was written; the message says what *was* stored
    before it when a request spans several transactions (a turn stored, its memory not).
    """

    status_code = 503
    retry_after_s = 5

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class QueryFailed(DatabaseUnavailable):
    """Neo4j is up but failed inside one query (an internal error, rolled back: nothing written).

    A subclass so that a caller with another way to ask the same question can take it instead of
    giving up: Neo4j 2026.08.1's filtered vector search (``SEARCH … WHERE``) can fail with a Lucene
    ``ArrayIndexOutOfBoundsException`` once the index holds deleted nodes, on about half the calls
    and for as long as the bad segment lives, while the unfiltered search never does
    (docs/retrieval.md "Filtered vector search failures"). Otherwise it is a 503 like its parent.
    """


class SchemaMismatch(VoxmemError):
    """The database's indexes disagree with configuration (e.g. embedding dimensions)."""

    status_code = 500
