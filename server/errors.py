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


class SchemaMismatch(VoxmemError):
    """The database's indexes disagree with configuration (e.g. embedding dimensions)."""

    status_code = 500
