"""Who is asking and what they may read: the access scope of one query.

The access policy (``open`` | ``participant`` | ``private``, :data:`ACCESS_POLICIES`) always
comes from the ``Space`` node (its ``policy`` property, never from the client), and every
retrieval query receives ``$space``, ``$access_policy`` and ``$asker`` so the scope is enforced
inside Cypher itself, by the one access rule of ``cypher/access/`` (MODEL.md "Access scopes").
This module only resolves those three values and describes the rule applied, so every answer
can name it. "Access policy" is not the retrieval policy (fixed / heuristic / llm / learned,
``voxmem.retrieval.agent``) nor the voice routing policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import Conflict, NotFound
from voxmem.ids import name_key
from voxmem.stores.spaces import ACCESS_POLICIES

ACCESS_RULES = {
    "open": "open: every message, fact and attribute of the space",
    "participant": (
        "participant: messages of sessions the asker took part in, and memory derived only from them"
    ),
    "private": (
        "private: messages the asker spoke or that addressed the asker, facts stated by/to/about the asker "
        "from such messages, and the asker's own attributes"
    ),
}
UNKNOWN_RULE = "unknown asker: nothing (the space is not open)"


def present_layers(row: Mapping[str, Any]) -> frozenset[str]:
    """The memory layers that hold anything, from a row of @layers.present ('interaction' always
    counts)."""
    return frozenset({"interaction", *(layer for layer in ("fact", "profile") if row[layer])})


@dataclass(frozen=True)
class AccessScope:
    """The three values every retrieval query takes, plus how the asker was identified."""

    space: str
    access_policy: str  # the Space's policy: one of ACCESS_POLICIES
    asker: str | None = None
    asker_name: str | None = None
    identified_by: str = "none"  # 'id' | 'voice' | 'none'
    # The memory layers that held anything when the scope was read (retrieve_scope, in the query
    # every request makes before retrieving); None when the scope was built without reading them
    # (the fused round then asks, retrieve_layers). A scope lives for one request, so the round
    # sees the layers as they were when that request began (docs/retrieval.md "Latency, twelfth
    # pass"); a scope kept longer keeps its reading.
    layers: frozenset[str] | None = None

    def params(self) -> dict[str, Any]:
        return {"space": self.space, "access_policy": self.access_policy, "asker": self.asker}

    @property
    def rule(self) -> str:
        if self.asker is None and self.access_policy != "open":
            return UNKNOWN_RULE
        return ACCESS_RULES.get(self.access_policy, "unknown policy: nothing")

    @property
    def sees_nothing(self) -> bool:
        """True when the scope admits no evidence at all (queries would return nothing)."""
        policy = self.access_policy
        return policy not in ACCESS_POLICIES or (self.asker is None and policy != "open")

    def describe(self) -> dict[str, Any]:
        """The scope as the HTTP API reports it (its field keeps the Space's name, ``policy``)."""
        return {
            "space": self.space,
            "policy": self.access_policy,
            "asker": self.asker,
            "asker_name": self.asker_name,
            "identified_by": self.identified_by,
            "rule": self.rule,
        }


class AmbiguousName(Conflict):
    """A name that several participants of the space bear: the caller must pick an id."""

    def __init__(self, message: str, candidates: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.candidates = candidates


def resolve_participant(db: Database, space: str, ref: str, role: str = "participant") -> str:
    """The participant id a reference means: an id as is, else a name (or alias) borne by
    exactly one participant. An unknown reference is 404; a name several people bear is 409
    with the candidates, never a guess (a wrong guess would read another person's scope)."""
    rows = db.query(query("participant_resolve"), space=space, ref=ref, key=name_key(ref))
    if not rows:
        raise NotFound(f"{role} {ref!r} is not a participant of space {space!r} (by id or by name)")
    if rows[0]["by_id"]:
        return rows[0]["id"]
    named = [r for r in rows if r["by_name"]] or rows
    if len(named) > 1:
        listed = ", ".join(f"{r['name']} ({r['id']})" for r in named)
        raise AmbiguousName(
            f"{role} {ref!r} names {len(named)} participants: {listed}; give the participant id",
            [{"id": r["id"], "name": r["name"]} for r in named],
        )
    return named[0]["id"]


def resolve_scope(db: Database, space: str, asker: str | None, identified_by: str = "id") -> AccessScope:
    """Read the space's policy and check the asker is a participant of it.

    An asker id that is not a participant of the space is an error (404), not a silent
    downgrade: the caller named someone, and answering as "unknown" would hide the mistake.
    """
    if asker is not None:
        asker = resolve_participant(db, space, asker, role="asker")
    rows = db.query(query("retrieve_scope"), space=space, asker=asker)
    if not rows:
        raise NotFound(f"unknown space {space!r}")
    row = rows[0]
    if asker is not None and row["asker"] is None:
        raise NotFound(f"asker {asker!r} is not a participant of space {space!r}")
    asker_row = row["asker"] or {}
    return AccessScope(
        space=space,
        access_policy=row["policy"],
        asker=asker_row.get("id"),
        asker_name=asker_row.get("name"),
        # a voice that matched nobody is still reported as a voice attempt (asker null)
        identified_by=identified_by if (asker is not None or identified_by == "voice") else "none",
        layers=present_layers(row),
    )
