"""Facts and profile attributes: the only code that runs Cypher for ``Fact`` and ``Attribute``.

Why one store: memory evolution reads the current candidates, decides with the pure rules in
:mod:`voxmem.memory.rules`, and applies the decision; the API and the profile read facts and
attributes back. Keeping every fact/attribute query here (each a ``.cypher`` file under
``cypher/``, pasteable into Neo4j Browser) means one place to look when the graph and the
code disagree. Writes that belong to a turn take the turn's transaction (a turn is stored
with its memory or not at all); reads and text maintenance run their own.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database, native_time

K = TypeVar("K", bound=Hashable)


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
    valid_from: datetime | None = None


@dataclass(frozen=True)
class CurrentAttribute:
    """A current attribute of a holder with the same kind and text or slot as a new one."""

    id: str
    text: str
    slot: str | None
    valid_from: datetime | None = None


@dataclass(frozen=True)
class Evolved:
    """A stored fact or attribute with its evolution as stored: the input of the replay that
    re-decides a slot after a fold (:func:`voxmem.memory.rules.replay_facts`)."""

    id: str
    owner: str  # a fact's subject (participant id), an attribute's kind
    text: str
    slot: str | None
    value: str | None
    valid_from: datetime | None
    valid_to: datetime | None
    current: bool
    conflict: bool
    stated_by: tuple[str, ...]
    supersedes: frozenset[str]
    conflicts: frozenset[str]  # its own CONFLICTS_WITH edges (to the others)
    first_message: str | None  # the message it was derived from first (its conflict's audit item)


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
    id: str  # made when staged: the rules' candidate (decide_facts) refers to it
    message_id: str


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
    id: str
    message_id: str


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


def _evolved(r: dict[str, Any]) -> Evolved:
    return Evolved(
        id=r["id"],
        owner=r["owner"],
        text=r["text"],
        slot=r["slot"],
        value=r["value"],
        valid_from=native_time(r["valid_from"]),
        valid_to=native_time(r["valid_to"]),
        current=bool(r["current"]),
        conflict=bool(r["conflict"]),
        stated_by=tuple(r["stated_by"]),
        supersedes=frozenset(r["supersedes"]),
        conflicts=frozenset(r["conflicts"]),
        first_message=next(iter(r["first"]), None),
    )


def _texts_and_slots(keys: Iterable[tuple[K, str | None, str]]) -> dict[K, tuple[list[str], list[str]]]:
    """The texts and slots asked about per owner (a fact's subject, an attribute's holder and
    kind), each sorted: the parameters of one candidate read for many statements."""
    wanted: dict[K, tuple[set[str], set[str]]] = {}
    for owner, slot, text in keys:
        texts, slots = wanted.setdefault(owner, (set(), set()))
        texts.add(text)
        if slot is not None:
            slots.add(slot)
    return {owner: (sorted(texts), sorted(slots)) for owner, (texts, slots) in wanted.items()}


class FactStore:
    """Reads and writes ``Fact`` and ``Attribute`` nodes, always scoped by space."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- in the turn's (or batch chunk's) transaction: candidates and applying decisions ------
    def current_facts(
        self, tx: ManagedTransaction, space: str, keys: Sequence[tuple[str, str | None, str]]
    ) -> dict[str, list[CurrentFact]]:
        """Current facts with the same subject and content or slot as any of ``keys``
        ``(subject, slot, content)``, by subject, newest first (one statement for all)."""
        wanted = _texts_and_slots(keys)
        out: dict[str, list[CurrentFact]] = {s: [] for s in wanted}
        if not wanted:
            return out
        params = [{"subject": s, "contents": c, "slots": sl} for s, (c, sl) in wanted.items()]
        for r in _run(tx, "fact_slot_current", space=space, keys=params):
            out[r["subject"]].append(
                CurrentFact(
                    r["id"],
                    r["content"],
                    r["slot"],
                    r["value"],
                    tuple(r["stated_by"]),
                    native_time(r["valid_from"]),
                )
            )
        return out

    def apply_facts(
        self,
        tx: ManagedTransaction,
        space: str,
        create: Sequence[NewFact] = (),
        support: Sequence[tuple[str, str]] = (),
        supersede: Sequence[tuple[str, str]] = (),
        conflicts: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Apply the rules' decisions, one ``UNWIND`` statement per kind of write: ``create``
        the new facts (each with its id and message), ``support`` (fact, message) pairs,
        ``supersede`` (new, old) and ``conflicts`` (new, old) pairs; conflicts before
        supersessions, so a fact both flagged and superseded ends unflagged, as in turn order."""
        if create:  # every field of each fact, plus its order in the chunk
            rows = [
                {**vars(f), "embedding": self.db.vector(f.embedding), "seq": seq}
                for seq, f in enumerate(create)
            ]
            tx.run(self.db.vector_query("fact_create"), space=space, facts=rows).consume()
        if support:
            _run(tx, "fact_add_support", space=space, rows=[{"id": i, "message_id": m} for i, m in support])
        if conflicts:
            _run(tx, "fact_conflict", space=space, pairs=[{"a": a, "b": b} for a, b in conflicts])
        if supersede:
            _run(tx, "fact_supersede", space=space, pairs=[{"new": n, "old": o} for n, o in supersede])

    def current_attributes(
        self, tx: ManagedTransaction, space: str, keys: Sequence[tuple[str, str, str | None, str]]
    ) -> dict[tuple[str, str], list[CurrentAttribute]]:
        """Current attributes with the same holder, kind and text or slot as any of ``keys``
        ``(holder, kind, slot, text)``, by (holder, kind), newest first (one statement)."""
        wanted = _texts_and_slots(((holder, kind), slot, text) for holder, kind, slot, text in keys)
        out: dict[tuple[str, str], list[CurrentAttribute]] = {k: [] for k in wanted}
        if not wanted:
            return out
        params = [{"holder": h, "kind": k, "texts": t, "slots": sl} for (h, k), (t, sl) in wanted.items()]
        for r in _run(tx, "attribute_slot_current", space=space, keys=params):
            out[(r["holder"], r["kind"])].append(
                CurrentAttribute(r["id"], r["text"], r["slot"], native_time(r["valid_from"]))
            )
        return out

    def apply_attributes(
        self,
        tx: ManagedTransaction,
        space: str,
        create: Sequence[NewAttribute] = (),
        support: Sequence[tuple[str, str]] = (),
        supersede: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Apply the attribute decisions, one ``UNWIND`` statement per kind of write."""
        if create:
            rows = [
                {**vars(a), "embedding": self.db.vector(a.embedding), "seq": seq}
                for seq, a in enumerate(create)
            ]
            tx.run(self.db.vector_query("attribute_create"), space=space, attributes=rows).consume()
        if support:
            _run(
                tx,
                "attribute_add_support",
                space=space,
                rows=[{"id": i, "message_id": m} for i, m in support],
            )
        if supersede:
            _run(tx, "attribute_supersede", space=space, pairs=[{"new": n, "old": o} for n, o in supersede])

    # --- after a fold, in its transaction: re-deciding what it brought together ----------------
    @staticmethod
    def fold_keys(
        tx: ManagedTransaction, space: str, pid: str, into: str
    ) -> tuple[list[tuple[str, str | None]], list[str]]:
        """What folding ``pid`` into ``into`` can bring into one slot (read before the fold): the
        (subject, slot) pairs of facts about ``pid`` (slot None: those without one) or stated by
        it (``pid`` read as ``into``), and the kinds of ``pid``'s attributes."""
        row = tx.run(query("fact_fold_keys"), space=space, pid=pid, into=into).single()
        if row is None:
            return [], []
        return [(k["subject"], k["slot"]) for k in row["slots"]], list(row["kinds"])

    @staticmethod
    def slot_history(
        tx: ManagedTransaction, space: str, keys: Sequence[tuple[str, str | None]]
    ) -> list[Evolved]:
        """Every fact of these (subject, slot) pairs (slot None: the subject's facts without
        one), current or not, oldest first."""
        rows = _run(tx, "fact_slot_history", space=space, keys=[{"subject": s, "slot": sl} for s, sl in keys])
        return [_evolved(r) for r in rows]

    @staticmethod
    def kind_history(tx: ManagedTransaction, space: str, holder: str, kinds: Sequence[str]) -> list[Evolved]:
        """Every attribute of ``holder`` of these kinds, current or not, oldest first."""
        rows = _run(tx, "attribute_kind_history", space=space, holder=holder, kinds=list(kinds))
        return [_evolved(r) for r in rows]

    @staticmethod
    def settle(
        tx: ManagedTransaction, space: str, merges: Sequence[tuple[str, str]], rows: Sequence[dict[str, Any]]
    ) -> None:
        """Apply a replay (``memory_settle``): ``merges`` (repeat, kept) pairs become support of
        the kept one, ``rows`` set the evolution of facts or attributes whose state changed."""
        if merges or rows:
            merge_rows = [{"repeat": r, "kept": k} for r, k in merges]
            _run(tx, "memory_settle", space=space, merges=merge_rows, rows=list(rows))

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
        rows = [{"id": i, "text": t, "embedding": self.db.vector(v)} for i, t, v in texts]
        self.db.execute(self.db.vector_query("memory_backfill_set"), space=space, rows=rows)
        return len(rows)
