"""Participants (people): the one place a ``Participant`` node is created.

People appear in four ways, each a method here and a query under ``cypher/``:

* by name — a text turn's speaker and addressees, a voice linked to a name by hand
  (:meth:`ParticipantStore.named`, ``participant_named``);
* as a new voice — the unnamed person a new or split-off ``Speaker`` is identified as
  (:meth:`ParticipantStore.for_new_speaker`, ``participant_for_speaker``);
* as an anonymous voice's person found or made when memory is derived
  (:meth:`ParticipantStore.ensure_for_speaker`, ``participant_ensure_for_speaker``);
* as a placeholder for someone addressed or mentioned by name before they spoke
  (:meth:`ParticipantStore.placeholder`, ``participant_placeholder``).

Most creations happen inside another write's transaction (a message, a routed voice, a
split), so those methods take the transaction; the rest run their own.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import InvalidInput, NotFound
from voxmem.ids import name_key, new_id, visible

# A name is a range-index key (participant_space_key); Neo4j refuses keys over ~8 KB with a
# DatabaseError, so names are bounded well below that, like the speaker field of a turn.
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class Person:
    """A person named by a client: the name as given (spaces folded) and its match key."""

    key: str
    name: str

    @classmethod
    def of(cls, name: str) -> Person:
        """Validate a client-given name (bounded, no control characters, something visible)."""
        if len(name) > MAX_NAME_CHARS:
            raise InvalidInput(f"participant name longer than {MAX_NAME_CHARS} characters")
        if any(unicodedata.category(ch) == "Cc" and not ch.isspace() for ch in name):  # NUL, ESC …
            raise InvalidInput(f"participant name {name!r} contains a control character")
        key = name_key(name)
        if not key or not visible(key):
            raise InvalidInput(f"participant name {name!r} is empty after normalisation")
        return cls(key=key, name=" ".join(name.split()))


@dataclass(frozen=True)
class NamingState:
    """What the naming rules need to know of a participant: name, key, aliases, the name
    evidence gathered so far, whether a voice or a spoken message is theirs, and how the
    name came (``name_source``)."""

    id: str
    name: str | None
    key: str | None
    aliases: list[str]
    evidence: list[str]
    has_voice: bool
    name_source: str | None


class ParticipantStore:
    """Creates ``Participant`` nodes (found first by name key where a name is known)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def named(
        tx: ManagedTransaction,
        space: str,
        people: list[Person],
        source: str | None = None,
        lock: bool = False,
    ) -> dict[str, str]:
        """Each person's participant id, found by name key or created (``source`` becomes the
        created node's ``name_source``: ``manual`` for a link by hand). ``lock``: also lock
        them in id order, as :meth:`lock` does a session's people, in the same statement (a message
        write's people: one round trip instead of two)."""
        rows = tx.run(
            query("participant_named"),
            space=space,
            people=[  # a stable order (key), so concurrent creations queue alike
                {"key": p.key, "name": p.name, "id": new_id("p")} for p in sorted(people, key=lambda p: p.key)
            ],
            source=source,
            lock=lock,
        )
        return {row["key"]: row["id"] for row in rows}

    @staticmethod
    def lock(tx: ManagedTransaction, space: str, messages: Sequence[str]) -> None:
        """Lock, first thing in a write transaction, the sessions of ``messages`` and those
        sessions' participants, each in id order (``participant_lock``): concurrent turns naming
        the same people then queue instead of deadlocking. A message write locks the people it
        names with :meth:`named` (``lock=True``)."""
        tx.run(query("participant_lock"), space=space, messages=list(messages)).consume()

    @staticmethod
    def for_new_speaker(tx: ManagedTransaction, space: str, speaker_id: str, label: str, source: str) -> str:
        """The unnamed person a Speaker created in ``tx`` is identified as."""
        row = tx.run(
            query("participant_for_speaker"),
            space=space,
            speaker_id=speaker_id,
            pid=new_id("p"),
            label=label,
            source=source,
        ).single()
        if row is None:
            raise NotFound(f"unknown speaker {speaker_id!r}")
        return row["id"]

    @staticmethod
    def placeholder(
        tx: ManagedTransaction, space: str, session: str, key: str, name: str, present: bool
    ) -> str | None:
        """Someone addressed (``present``: takes part in the session) or only mentioned, known by
        name only: found by key or created voiceless (``name_source: 'mention'``)."""
        row = tx.run(
            query("participant_placeholder"),
            space=space,
            session=session,
            key=key,
            name=name,
            pid=new_id("p"),
            present=present,
        ).single()
        return row["id"] if row else None

    # --- naming from conversation (in the turn's memory transaction) ---------------------------
    @staticmethod
    def find_name(tx: ManagedTransaction, space: str, key: str) -> list[str]:
        """Ids of the participants bearing a name key as name or alias (name holders first)."""
        return [row["id"] for row in tx.run(query("participant_find_name"), space=space, key=key)]

    @staticmethod
    def naming_states(tx: ManagedTransaction, space: str, ids: list[str]) -> list[NamingState]:
        rows = tx.run(query("participant_states"), space=space, ids=ids)
        return [
            NamingState(
                id=r["id"],
                name=r["name"],
                key=r["key"],
                aliases=list(r["aliases"]),
                evidence=list(r["evidence"]),
                has_voice=bool(r["has_voice"]),
                name_source=r["name_source"],
            )
            for r in rows
        ]

    @staticmethod
    def add_evidence(tx: ManagedTransaction, space: str, pid: str, entry: str, message_id: str) -> None:
        tx.run(
            query("participant_add_evidence"), space=space, id=pid, entry=entry, message_id=message_id
        ).consume()

    @staticmethod
    def set_name(tx: ManagedTransaction, space: str, pid: str, name: str, key: str | None) -> None:
        tx.run(query("participant_set_name"), space=space, id=pid, name=name, key=key).consume()

    @staticmethod
    def add_alias(tx: ManagedTransaction, space: str, pid: str, alias: str) -> None:
        tx.run(
            query("participant_add_alias"), space=space, id=pid, alias=alias, alias_key=name_key(alias)
        ).consume()

    @staticmethod
    def set_aliases(
        tx: ManagedTransaction, space: str, pid: str, aliases: list[str], keys: list[str]
    ) -> None:
        tx.run(
            query("participant_set_aliases"), space=space, id=pid, aliases=aliases, alias_keys=keys
        ).consume()

    @staticmethod
    def fold(tx: ManagedTransaction, space: str, folded: str, into: str, take_name: bool) -> bool:
        """Fold a participant without voice or messages into another (``participant_fold``): a
        placeholder into the speaking person who turned out to bear its name, or the unnamed
        person of a voice linked by hand into the person it was linked to. ``into`` keeps its
        name unless ``take_name`` or it has none: then it takes the folded one's name through
        ``participant_set_name`` (which remembers a name given by hand), so the naming rule has
        one home. Aliases are deduplicated after either. False when ``folded`` still has a voice
        or a message (it is someone else then, and nothing changed)."""
        row = tx.run(query("participant_fold"), {"space": space, "from": folded, "into": into}).single()
        if row is None:
            return False
        state = ParticipantStore.naming_states(tx, space, [into])[0]
        if row["name"] is not None and (take_name or state.name is None):
            ParticipantStore.set_name(tx, space, into, row["name"], row["key"])
        ParticipantStore.sync_aliases(tx, space, into)
        return True

    @staticmethod
    def sync_aliases(tx: ManagedTransaction, space: str, pid: str) -> None:
        """After a name change or a fold: aliases deduplicated by name key, the one repeating the
        name dropped, and their keys stored, so an alias is found by the same key as a name
        (Cypher's toLower is not that key: it neither folds "José" nor casefolds "Straße")."""
        state = next(iter(ParticipantStore.naming_states(tx, space, [pid])), None)
        if state is None:
            return
        seen = {state.key} if state.key else set()
        aliases, keys = [], []
        for alias in state.aliases:
            key = name_key(alias)
            if key and key not in seen:
                seen.add(key)
                aliases.append(alias)
                keys.append(key)
        ParticipantStore.set_aliases(tx, space, pid, aliases, keys)

    def forget_learned(self, space: str) -> list[str]:
        """Undo what extraction learned about people that no remaining name evidence supports
        (learned names and aliases, placeholders nothing refers to), so a reprocess starts
        from the state its first pass started from; names given by hand stay. Returns the
        ids whose name or aliases changed (their passages and captions must follow)."""
        rows = self.db.execute(query("participant_forget_learned"), space=space)
        return list(rows[0]["changed"]) if rows else []

    def known_names(self, space: str, limit: int = 30) -> list[str]:
        """Names the space gives to people (not names only heard), newest first: ASR hints."""
        rows = self.db.execute(query("participant_known_names"), space=space, limit=limit)
        return [row["name"] for row in rows]

    def ensure_for_speaker(self, space: str, speaker_id: str) -> str | None:
        """An anonymous voice's person: the one its Speaker is identified as, created unnamed when
        missing, with SPEAKS edges to every message of that voice that has no speaker yet."""
        rows = self.db.execute(
            query("participant_ensure_for_speaker"), space=space, speaker_id=speaker_id, pid=new_id("p")
        )
        return rows[0]["id"] if rows else None

    # --- reads ---------------------------------------------------------------------------------
    def profile(self, space: str, participant: str | None) -> dict[str, Any] | None:
        """A participant (by id or name key) with their voices, message and address counts and
        open audit items; None when unknown."""
        rows = self.db.query(query("participant_profile"), space=space, participant=participant)
        return rows[0] if rows else None
