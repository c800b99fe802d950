"""Spaces (tenants) and their API keys.

Keys are random 256-bit tokens shown once; Neo4j stores only their SHA-256 (a slow hash
buys nothing for keys of that entropy). Every space-scoped request resolves its key to a
space here before any other query runs.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Literal

from neo4j.exceptions import ConstraintError

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import Conflict, InvalidInput, NotFound
from voxmem.ids import is_valid_id, new_id

Policy = Literal["open", "participant", "private"]
ACCESS_POLICIES: tuple[str, ...] = ("open", "participant", "private")
KEY_PREFIX = "vxm_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Space:
    """A tenant: its id, access policy, creation time and (when read) its message count."""

    id: str
    policy: str
    created_at: str
    messages: int | None = None


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    key: str
    space: str


class SpaceStore:
    """Create, read and delete spaces; issue, revoke and resolve their keys."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, space: str, policy: str = "participant") -> Space:
        if not is_valid_id(space):
            raise InvalidInput("space id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        if policy not in ACCESS_POLICIES:
            raise InvalidInput(f"policy must be one of {', '.join(ACCESS_POLICIES)}")
        try:
            return Space(**self.db.execute(query("space_create"), space=space, policy=policy)[0])
        except ConstraintError as exc:
            raise Conflict(f"space {space!r} already exists") from exc

    def get(self, space: str) -> Space:
        rows = self.db.query(query("space_get"), space=space)
        if not rows:
            raise NotFound(f"unknown space {space!r}")
        return Space(**rows[0])

    def list(self, skip: int = 0, limit: int = 100) -> list[Space]:
        return [Space(**row) for row in self.db.query(query("space_list"), skip=skip, limit=limit)]

    def delete(self, space: str, batch: int = 2000) -> int:
        """Remove every node of the space (messages, people, keys, the space itself)."""
        self.get(space)
        total = 0
        while True:
            deleted = self.db.execute(query("space_delete_batch"), space=space, batch=batch)[0]["deleted"]
            total += deleted
            if deleted == 0:
                return total

    def issue_key(self, space: str, label: str = "") -> IssuedKey:
        self.get(space)
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        key_id = new_id("key")
        self.db.execute(query("apikey_create"), space=space, key_id=key_id, hash=hash_key(key), label=label)
        return IssuedKey(key_id=key_id, key=key, space=space)

    def revoke_key(self, space: str, key_id: str) -> None:
        if not self.db.execute(query("apikey_revoke"), space=space, key_id=key_id):
            raise NotFound(f"unknown key {key_id!r} in space {space!r}")

    def space_for_key(self, key: str) -> str | None:
        """The space a key grants, or None for unknown or revoked keys."""
        rows = self.db.query(query("apikey_lookup"), hash=hash_key(key))
        return rows[0]["space"] if rows else None
