"""Request-scoped dependencies: the services on ``app.state`` and key checks.

A space-scoped route resolves the caller's key before anything else runs: no key or an
unknown key is 401, a key of another space is 403, and neither touches the space's data.
The admin key (from configuration) may act on every space.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from voxmem.errors import Forbidden, Unauthorized
from voxmem.services import Services

bearer = HTTPBearer(auto_error=False, description="A space API key, or the admin key.")


def services(request: Request) -> Services:
    return request.app.state.services


def _presented(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or not credentials.credentials:
        raise Unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    return credentials.credentials


def _is_admin(svc: Services, key: str) -> bool:
    return hmac.compare_digest(key.encode(), svc.settings.admin_key.get_secret_value().encode())


def require_admin(
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer), svc: Services = Depends(services)
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
    svc: Services = Depends(services),
) -> SpaceAccess:
    key = _presented(credentials)
    if _is_admin(svc, key):
        svc.spaces.get(space)  # 404 for unknown spaces
        return SpaceAccess(space=space, admin=True)
    granted = svc.spaces.space_for_key(key)
    if granted is None:
        raise Unauthorized("unknown or revoked API key")
    if granted != space:
        raise Forbidden("this key does not grant access to that space")
    return SpaceAccess(space=space, admin=False)
