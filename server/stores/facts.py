"""Facts and profile attributes: the only code that runs Cypher for ``Fact`` and ``Attribute``.

Why one store: memory evolution reads the current candidates, decides with the pure rules in
:mod:`voxmem.memory.rules`, and applies the decision; the API and the profile read facts and
attributes back. Keeping every fact/attribute query here (each a ``.cypher`` file under
``cypher/``, pasteable into Neo4j Browser) means one place to look when the graph and the
code disagree. Writes that belong to a turn take the turn's transaction (a turn is stored
with its memory or not at all); reads and text maintenance run their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.ids import new_id


@dataclass(frozen=True)
class PersonRef:
    """A participant as facts and attributes show it: id and current name (None while unnamed)."""

    id: str
    name: str | None = None


@dataclass(frozen=True)
class CurrentFact:
    """A current fact of a subject with the same content or slot as a new one (evolution input)."""

    id: str
    content: str
    slot: str | None
    value: str | None
    stated_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class CurrentAttribute:
    """A current attribute of a holder with the same kind and text or slot as a new one."""

    id: str
    text: str
    slot: str | None


@dataclass(frozen=True)
class NewFact:
    """A fact ready to be written: text, slot, time and the people it links (participant ids)."""

    content: str
    subject_key: str | None
    slot: str | None
    value: str | None
    event_time: str | None
    time_text: str | None
    extractor: str
    confidence: float
    speaker: str | None
    addressees: list[str]
    about: list[str]
    embedding: list[float]


@dataclass(frozen=True)
class NewAttribute:
    """A profile attribute ready to be written for its holder (a participant id)."""

    holder: str
    kind: str
    text: str
    slot: str | None
    extractor: str
    confidence: float
    embedding: list[float]


@dataclass
class StoredFact:
    """A fact as read back, with its people, provenance and evolution links."""

    id: str
    content: str | None = None
    slot: str | None = None
    value: str | None = None
    current: bool | None = None
    conflict: bool | None = None
    extractor: str | None = None
    confidence: float | None = None
    event_time: str | None = None
    time_text: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    stated_by: list[PersonRef] = field(default_factory=list)
    addressed_to: list[PersonRef] = field(default_factory=list)
    about: list[PersonRef] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    conflicts_with: list[str] = field(default_factory=list)


@dataclass
class StoredAttribute:
    """A profile attribute as read back, with its holder and provenance."""

    id: str
    kind: str
    text: str | None = None
    slot: str | None = None
    current: bool | None = None
    extractor: str | None = None
    confidence: float | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    holder: PersonRef | None = None
    sources: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryText:
    """The text of one fact or attribute (``label`` says which), for back-fill and renames."""

    id: str
    label: str
    text: str


def _people(rows: list[dict[str, Any]]) -> list[PersonRef]:
    return [PersonRef(r["id"], r.get("name")) for r in rows]


def _run(tx: ManagedTransaction, name: str, /, **params: Any) -> list[dict[str, Any]]:
    return [r.data() for r in tx.run(query(name), params)]


class FactStore:
    """Reads and writes ``Fact`` and ``Attribute`` nodes, always scoped by space."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- in the turn's transaction: evolution candidates and applying a decision -------------
    def current_facts(
        self, tx: ManagedTransaction, space: str, subject_key: str | None, slot: str | None, content: str
    ) -> list[CurrentFact]:
        """Current facts of one subject with the same content or slot, newest first."""
        rows = _run(tx, "fact_slot_current", space=space, subject_key=subject_key, slot=slot, content=content)
        return [
            CurrentFact(r["id"], r["content"], r["slot"], r["value"], tuple(r["stated_by"])) for r in rows
        ]

    def add_fact_support(self, tx: ManagedTransaction, space: str, fact_id: str, message_id: str) -> None:
        """One more message supports an existing fact (it was said again)."""
        _run(tx, "fact_add_support", space=space, id=fact_id, message_id=message_id)

    def create_fact(
        self,
        tx: ManagedTransaction,
        space: str,
        message_id: str,
        fact: NewFact,
        supersede: Sequence[str] = (),
        conflicts: Sequence[str] = (),
    ) -> str:
        """Create the fact with its provenance and people; it supersedes the ``supersede`` facts
        and stands in conflict with the ``conflicts`` ones. Returns its id."""
        fid = new_id("fact")
        _run(
            tx,
            "fact_create",
            space=space,
            message_id=message_id,
            speaker=fact.speaker,
            addressees=fact.addressees,
            about=fact.about,
            embedding=fact.embedding,
            fact={
                "id": fid,
                "content": fact.content,
                "subject_key": fact.subject_key,
                "slot": fact.slot,
                "value": fact.value,
                "event_time": fact.event_time,
                "time_text": fact.time_text,
                "extractor": fact.extractor,
                "confidence": fact.confidence,
            },
        )
        for old in supersede:
            _run(tx, "fact_supersede", space=space, new=fid, old=old)
        for other in conflicts:
            _run(tx, "fact_conflict", space=space, a=fid, b=other)
        return fid

    def current_attributes(
        self, tx: ManagedTransaction, space: str, holder: str, kind: str, slot: str | None, text: str
    ) -> list[CurrentAttribute]:
        """Current attributes of one holder and kind with the same text or slot, newest first."""
        rows = _run(tx, "attribute_slot_current", space=space, holder=holder, kind=kind, slot=slot, text=text)
        return [CurrentAttribute(r["id"], r["text"], r["slot"]) for r in rows]

    def add_attribute_support(
        self, tx: ManagedTransaction, space: str, attribute_id: str, message_id: str
    ) -> None:
        """One more message supports an existing attribute."""
        _run(tx, "attribute_add_support", space=space, id=attribute_id, message_id=message_id)

    def create_attribute(
        self,
        tx: ManagedTransaction,
        space: str,
        message_id: str,
        attr: NewAttribute,
        supersede: Sequence[str] = (),
    ) -> str:
        """Create the attribute for its holder with provenance; it supersedes ``supersede``."""
        aid = new_id("attr")
        _run(
            tx,
            "attribute_create",
            space=space,
            message_id=message_id,
            holder=attr.holder,
            embedding=attr.embedding,
            attr={
                "id": aid,
                "kind": attr.kind,
                "text": attr.text,
                "slot": attr.slot,
                "extractor": attr.extractor,
                "confidence": attr.confidence,
            },
        )
        for old in supersede:
            _run(tx, "attribute_supersede", space=space, new=aid, old=old)
        return aid

    # --- reads ---------------------------------------------------------------------------------
    def facts(
        self,
        space: str,
        participant: str | None = None,
        slot: str | None = None,
        history: bool = False,
        skip: int = 0,
        limit: int = 100,
    ) -> list[StoredFact]:
        """Facts of a space, newest first: current only unless ``history``; optionally about or
        stated by one participant (id or name key) and of one slot."""
        rows = self.db.query(
            query("fact_list"),
            space=space,
            participant=participant,
            slot=slot,
            history=history,
            skip=skip,
            limit=limit,
        )
        return [
            StoredFact(
                **r["fact"],
                stated_by=_people(r["stated_by"]),
                addressed_to=_people(r["addressed_to"]),
                about=_people(r["about"]),
                sources=list(r["sources"]),
                supersedes=list(r["supersedes"]),
                conflicts_with=list(r["conflicts_with"]),
            )
            for r in rows
        ]

    def attributes(
        self,
        space: str,
        participant: str | None = None,
        kind: str | None = None,
        history: bool = False,
        skip: int = 0,
        limit: int = 100,
    ) -> list[StoredAttribute]:
        """Profile attributes of a space, newest first: current only unless ``history``;
        optionally of one holder (id or name key) and one kind."""
        rows = self.db.query(
            query("attribute_list"),
            space=space,
            participant=participant,
            kind=kind,
            history=history,
            skip=skip,
            limit=limit,
        )
        return [
            StoredAttribute(
                **r["attribute"],
                holder=PersonRef(r["holder"]["id"], r["holder"].get("name")) if r["holder"] else None,
                sources=list(r["sources"]),
                supersedes=list(r["supersedes"]),
            )
            for r in rows
        ]

    # --- text maintenance after naming -----------------------------------------------------------
    def texts_with(self, space: str, placeholder: str) -> list[MemoryText]:
        """Facts and attributes whose text still holds an unnamed person's '{p_…}' placeholder."""
        rows = self.db.query(query("memory_backfill_find"), space=space, placeholder=placeholder)
        return [MemoryText(r["id"], r["label"], r["text"]) for r in rows]

    def texts_naming(self, space: str, pid: str, old_name: str, message_id: str) -> list[MemoryText]:
        """Facts and attributes about, by or held by ``pid`` that use its previous name (not
        those of the correcting turn ``message_id``)."""
        rows = self.db.query(
            query("participant_renamed_texts"), space=space, pid=pid, old=old_name, message_id=message_id
        )
        return [MemoryText(r["id"], r["label"], r["text"]) for r in rows]

    def set_texts(self, space: str, texts: list[tuple[str, str, list[float]]]) -> int:
        """Replace the text and embedding of facts/attributes: ``(id, text, embedding)`` each."""
        if not texts:
            return 0
        rows = [{"id": i, "text": t, "embedding": v} for i, t, v in texts]
        self.db.execute(query("memory_backfill_set"), space=space, rows=rows)
        return len(rows)
