"""Errors the API turns into HTTP answers. Raised deep, mapped once in ``voxmem.api.app``."""

from __future__ import annotations


class VoxmemError(Exception):
    """Base class: carries an HTTP status and a message meant for the client."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
    """Neo4j did not answer within the bounded retries; nothing was written."""

    status_code = 503


class SchemaMismatch(VoxmemError):
    """The database's indexes disagree with configuration (e.g. embedding dimensions)."""

    status_code = 500
