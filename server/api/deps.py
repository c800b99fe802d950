"""Request-scoped dependencies: the services on ``app.state`` and key checks.

A space-scoped route resolves the caller's key before anything else runs: no key or an
unknown key is 401, a key of another space is 403, and neither touches the space's data.
The admin key (from configuration) may act on every space.

During a Neo4j outage a key this process has already verified is still honoured, so routes
that answer from the running process (job status) keep answering; every route that needs
the database answers 503 anyway, and a key revoked since can only have been revoked while
Neo4j was up, which drops it from the memo at its next lookup.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from collections import OrderedDict
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable, Forbidden, Unauthorized

bearer = HTTPBearer(auto_error=False, description="A space API key, or the admin key.")


def services(request: Request) -> Voxmem:
    return request.app.state.services


def _presented(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or not credentials.credentials:
        raise Unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    return credentials.credentials


def _is_admin(svc: Voxmem, key: str) -> bool:
    return hmac.compare_digest(key.encode(), svc.settings.admin_key.get_secret_value().encode())


def require_admin(
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer), svc: Voxmem = Depends(services)
) -> None:
    if not _is_admin(svc, _presented(credentials)):
        raise Forbidden("this route needs the admin key")


@dataclass(frozen=True)
class SpaceAccess:
    space: str
    admin: bool


def require_space(
    space: str,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
    svc: Voxmem = Depends(services),
) -> SpaceAccess:
    key = _presented(credentials)
    if _is_admin(svc, key):
        # 404 for unknown spaces; in an outage the admin may still read what the process holds
        with contextlib.suppress(DatabaseUnavailable):
            svc.spaces.get(space)
        return SpaceAccess(space=space, admin=True)
    granted = _space_for_key(svc, key)
    if granted is None:
        raise Unauthorized("unknown or revoked API key")
    if granted != space:
        raise Forbidden("this key does not grant access to that space")
    return SpaceAccess(space=space, admin=False)


_VERIFIED_MAX = 10_000
_verified: OrderedDict[str, str] = OrderedDict()  # sha256(key) -> space, most recent last


def _space_for_key(svc: Voxmem, key: str) -> str | None:
    """The key's space from Neo4j; during an outage, from this process's memo of keys it verified."""
    digest = hashlib.sha256(key.encode()).hexdigest()
    try:
        granted = svc.spaces.space_for_key(key)
    except DatabaseUnavailable:
        if digest in _verified:
            return _verified[digest]
        raise
    if granted is None:
        _verified.pop(digest, None)
    else:
        _verified[digest] = granted
        _verified.move_to_end(digest)
        while len(_verified) > _VERIFIED_MAX:
            _verified.popitem(last=False)
    return granted
