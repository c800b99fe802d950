"""Write one turn's extraction into Neo4j: identity, addressees, facts, attributes, evolution.

Why one transaction per turn: a turn's memory is all or nothing, and the transaction
first removes whatever an earlier run derived from the same message, so retries and
reprocessing are idempotent (derived nodes replaced, messages and voiceprints untouched).
Embeddings are computed before the transaction so no lock is held while encoding.

Memory evolution (repeat, supersede, conflict) is decided by the pure rules in
:mod:`voxmem.memory.rules` on the candidates the facts store reads inside the transaction;
the store applies the decision, and a conflict also gets an ``AuditItem`` here. Facts and
attributes are *staged* (:class:`PendingMemory`) and decided and written together by
:meth:`MemoryWriter.flush`: at the end of a turn, or, in a batch import, at the end of a
chunk of turns (one candidate read and one ``UNWIND`` write per kind for the whole chunk
instead of a read and a write per fact). Nothing a later turn's identity or addressee step
reads depends on facts, so deferring them changes no result; the one step that moves fact
edges (a placeholder merged into a speaker) flushes first. Inferred ADDRESSES edges are staged
the same way (a batch shows a turn's vocatives to the later windows it already read).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder, sparse_encoder
from voxmem.extractors.name_lexicon import not_a_name
from voxmem.extractors.naming import plausible_new_name
from voxmem.extractors.schema import GROUP, ExtractionResult, is_label
from voxmem.extractors.window import Window
from voxmem.ids import name_as_word, name_key, new_id
from voxmem.memory.fold import audit_conflict, audit_in, fold_person
from voxmem.memory.identity import NOT_ME, PersonState, decide, evidence_entry
from voxmem.memory.rules import (
    AttributeCandidate,
    FactCandidate,
    FactStatement,
    decide_attributes,
    decide_facts,
)
from voxmem.passages import MessageIndexer
from voxmem.stores.facts import FactStore, NewAttribute, NewFact
from voxmem.stores.participants import ParticipantStore

log = logging.getLogger(__name__)


@dataclass
class WriteSummary:
    """What one turn's write did (returned by the API and counted by benchmarks)."""

    message_id: str
    extractor: str
    facts: int = 0
    attributes: int = 0
    superseded: int = 0
    conflicts: int = 0
    addressees: list[dict[str, Any]] = field(default_factory=list)
    names: list[dict[str, Any]] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)  # participant id -> new name
    renamed: dict[str, str] = field(default_factory=dict)  # participant id -> the name it replaced
    # what this write changed that later turns' windows show (a batch follows it): people whose
    # name or aliases changed, people merged (a placeholder and the one it was folded into), and
    # people addressed by name who joined the session
    people_changed: set[str] = field(default_factory=set)
    merged: set[str] = field(default_factory=set)
    joined: set[str] = field(default_factory=set)
    # people known already (outside this turn's window) whom this turn called by name: a batch
    # puts them into the roster of later windows that left them out only because they speak later
    called: set[str] = field(default_factory=set)
    # earlier turns whose ADDRESSES edges this turn's answer re-pointed (their windows changed)
    readdressed: set[str] = field(default_factory=set)
    # the turn's pending mark was cleared and its captions refreshed in the memory transaction
    # (MemoryWriter.write with ``done``): nothing is left to do after the commit
    done: bool = False

    @property
    def vocatives(self) -> list[str]:
        """Whom the turn called by name: the ADDRESSES edges a window reads as ``addressed``
        (sorted, as :meth:`voxmem.stores.messages.MessageStore.contexts_in` reads them)."""
        return sorted({a["pid"] for a in self.addressees if a["source"] == "vocative"})

    def as_dict(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "extractor": self.extractor,
            "facts": self.facts,
            "attributes": self.attributes,
            "superseded": self.superseded,
            "conflicts": self.conflicts,
            "addressees": self.addressees,
            "names": self.names,
        }


def _rows(tx: ManagedTransaction, qname: str, /, **params: Any) -> list[dict[str, Any]]:
    return [r.data() for r in tx.run(query(qname), params)]


@dataclass
class _StagedFact:
    candidate: FactCandidate
    new: NewFact
    summary: WriteSummary


@dataclass
class _StagedAttribute:
    candidate: AttributeCandidate
    new: NewAttribute
    summary: WriteSummary


@dataclass
class PendingMemory:
    """Facts and attributes extracted from a turn (or a batch chunk's turns, in order) whose
    evolution is not decided yet; :meth:`MemoryWriter.flush` decides and writes them."""

    facts: list[_StagedFact] = field(default_factory=list)
    attributes: list[_StagedAttribute] = field(default_factory=list)
    addresses: list[dict[str, Any]] = field(default_factory=list)  # {message_id, edges}

    def __bool__(self) -> bool:
        return bool(self.facts or self.attributes or self.addresses)


@dataclass
class TurnWrite:
    """One turn's write in progress: what every step shares inside the transaction."""

    tx: ManagedTransaction
    space: str
    window: Window
    result: ExtractionResult
    resolver: _Resolver
    summary: WriteSummary
    pending: PendingMemory

    @property
    def message_id(self) -> str:
        return self.result.message_id


class MemoryWriter:
    def __init__(self, db: Database, embedder: TextEmbedder, facts: FactStore) -> None:
        self.db = db
        self.embedder = embedder
        self.facts = facts
        self.passages = MessageIndexer(db, embedder, sparse_encoder())

    # --- public ----------------------------------------------------------------------------
    def write(
        self,
        space: str,
        window: Window,
        result: ExtractionResult,
        done: Callable[[ManagedTransaction], None] | None = None,
    ) -> WriteSummary:
        """One turn's memory in one transaction. ``done`` (the turn pipeline's: clear the
        turn's pending mark) runs in that transaction too, with the caption refresh, when
        the turn named nobody: nothing is left for :meth:`after_write` then, so memory,
        captions and mark commit together (``summary.done``). A naming keeps the old order:
        commit, back-fill and re-index after it, and the caller marks the turn done last, so
        an outage in between leaves it pending for repair."""
        vectors = self.vectors(result)

        def work(tx: ManagedTransaction) -> WriteSummary:
            ParticipantStore.lock(tx, space, messages=[result.message_id])  # before any other lock
            self.clear_in(tx, space, [result.message_id])
            summary = self.write_in(tx, space, window, result, vectors)
            if done is not None and not summary.named:
                self.refresh_turns_in(tx, space, [summary.message_id], [])
                done(tx)
                summary.done = True
            return summary

        summary = self.db.write(work)
        if not summary.done:
            self.after_write(space, [summary])
        return summary

    def vectors(
        self, result: ExtractionResult, known: Mapping[str, list[float]] | None = None
    ) -> tuple[list[list[float]], list[list[float]]]:
        """Embeddings of the turn's fact contents and attribute texts (one model call, or none).

        ``known`` holds vectors already computed for some texts (a batch import embeds the texts
        its turns are expected to yield in one model call first); only the others are encoded.
        """
        record = result.record
        texts = [f.content for f in record.facts] + [a.text for a in record.attributes]
        known = known or {}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        encoded = dict(zip(missing, (v.tolist() for v in self.embedder.embed(missing)), strict=True))
        vectors = [known[t] if t in known else encoded[t] for t in texts]
        return vectors[: len(record.facts)], vectors[len(record.facts) :]

    def clear_in(self, tx: ManagedTransaction, space: str, message_ids: list[str]) -> None:
        """Remove what earlier derivations of these messages wrote, inside the caller's
        transaction, so a replay re-derives instead of adding twice."""
        _rows(tx, "memory_clear_messages", space=space, ids=message_ids)

    def write_in(
        self,
        tx: ManagedTransaction,
        space: str,
        window: Window,
        result: ExtractionResult,
        vectors: tuple[list[list[float]], list[list[float]]],
        pending: PendingMemory | None = None,
    ) -> WriteSummary:
        """One turn's memory inside the caller's transaction, whose memory of this message was
        cleared before (``memory_clear_messages``); :meth:`after_write` follows the commit.

        With ``pending`` (a batch chunk's), the turn's facts and attributes join it and the
        caller flushes it once after the chunk's last turn (before the commit); without, they
        are decided and written at the end of this turn. The summary's fact counts are
        complete only after the flush.
        """
        summary = WriteSummary(message_id=result.message_id, extractor=result.extractor)
        staged = PendingMemory() if pending is None else pending
        turn = TurnWrite(tx, space, window, result, _Resolver(tx, space, window), summary, staged)
        self._names(turn)
        addressee_ids = self._addressees(turn)
        self._facts(turn, addressee_ids, vectors[0])
        self._attributes(turn, vectors[1])
        self._answered(turn)
        summary.joined = set(turn.resolver.joined)
        summary.called = set(turn.resolver.called)
        if pending is None:
            self.flush(tx, space, staged)
        return summary

    def flush(self, tx: ManagedTransaction, space: str, pending: PendingMemory) -> None:
        """Decide the staged facts and attributes in order (one candidate read each, the pure
        rules over all of them) and write the decisions (one ``UNWIND`` per kind of write)."""
        if not pending:
            return
        facts, attributes, addresses = list(pending.facts), list(pending.attributes), list(pending.addresses)
        pending.facts.clear()
        pending.attributes.clear()
        pending.addresses.clear()
        if addresses:
            _rows(tx, "memory_addresses_write", space=space, rows=addresses)
        subjects = [(f.candidate.statement.subject, f.new.slot, f.new.content) for f in facts]
        keys = [(subject, slot, content) for subject, slot, content in subjects if subject is not None]
        current = self.facts.current_facts(tx, space, keys)
        decisions = decide_facts([f.candidate for f in facts], current)
        create: list[NewFact] = []
        support: list[tuple[str, str]] = []
        supersede: list[tuple[str, str]] = []
        conflicts: list[tuple[str, str]] = []
        audits: list[tuple[str, str, str, list[Any]]] = []
        for f, d in zip(facts, decisions, strict=True):
            if d.support is not None:
                support.append((d.support, f.new.message_id))
                continue
            create.append(f.new)
            supersede += [(f.new.id, old) for old in d.supersede]
            conflicts += [(f.new.id, old.id) for old in d.conflicts]
            f.summary.facts += 1
            f.summary.superseded += len(d.supersede)
            f.summary.conflicts += len(d.conflicts)
            statement = f.candidate.statement
            audits += [
                (f.new.message_id, f.new.content, old.content, [statement.subject, statement.speaker])
                for old in d.conflicts
            ]
        self.facts.apply_facts(tx, space, create, support, supersede, conflicts)
        if create:  # a calling turn derived again while its answer was not: facts follow the answer
            _rows(tx, "memory_addresses_kept_answer", space=space, ids=sorted({f.message_id for f in create}))
        for message_id, new_text, old_text, people in audits:
            audit_conflict(tx, space, message_id, new_text, old_text, people)
        if not attributes:
            return
        attr_keys = [(a.new.holder, a.new.kind, a.new.slot, a.new.text) for a in attributes]
        current_attrs = self.facts.current_attributes(tx, space, attr_keys)
        attr_decisions = decide_attributes([a.candidate for a in attributes], current_attrs)
        new_attrs: list[NewAttribute] = []
        attr_support: list[tuple[str, str]] = []
        attr_supersede: list[tuple[str, str]] = []
        for a, ad in zip(attributes, attr_decisions, strict=True):
            if ad.support is not None:
                attr_support.append((ad.support, a.new.message_id))
                continue
            new_attrs.append(a.new)
            attr_supersede += [(a.new.id, old) for old in ad.supersede]
            a.summary.attributes += 1
        self.facts.apply_attributes(tx, space, new_attrs, attr_support, attr_supersede)

    def after_write(self, space: str, summaries: list[WriteSummary]) -> None:
        """After the commit: texts written before a naming read with the name, passages that
        name a renamed person are re-indexed, and the Browser captions of what these turns
        touched refreshed (once)."""
        named: list[str] = []
        for summary in summaries:
            for pid, name in summary.named.items():
                named.append(pid)
                if pid in summary.renamed:
                    self.rename_texts(space, pid, summary.renamed[pid], name, summary.message_id)
                self.follow_name(space, pid, name)
        self.refresh_display(space, [s.message_id for s in summaries], named)

    def follow_name(self, space: str, pid: str, name: str | None) -> None:
        """What reads a person's name follows it: texts written while they were unnamed
        ('{p_…}') get the name, and "Name: text" passages of their messages are re-indexed.
        Each step skips what is already current, so a repeat does nothing."""
        if name:
            self.backfill(space, pid, name)
        self.passages.reindex_participant(space, pid)

    def follow_person(self, space: str, pid: str, name: str | None) -> None:
        """After an identity change gave ``pid`` messages (a voice linked to them by hand, its
        earlier person folded in; a voice merged into theirs, unmerged or split off):
        :meth:`follow_name`, then the captions of ``pid`` and their memory. Runs after that
        commit (embeddings are computed outside transactions); an outage in between is
        repaired by linking again (idempotent)."""
        self.follow_name(space, pid, name)
        self.refresh_display(space, [], [pid])

    def refresh_display(
        self, space: str, message_ids: list[str] | None = None, people: list[str] | None = None
    ) -> int:
        """Keep the ``display`` captions people read in Browser (names, never '{p_…}') current;
        returns how many nodes' captions changed.

        With ``message_ids``: only the memory derived from those messages, the memory of
        ``people`` (participants just named or renamed) and the people of both
        (``memory_display_refresh_turns``; a turn's cost, not the space's). Without: the whole
        space (``memory_display_refresh``, a catch-up after edits made outside the writer).
        Run after the back-fill, so a fact about a person named in this turn reads with the
        name; a person never named reads as 'unnamed voice …', like their Participant node.
        """
        if message_ids is None:
            rows = self.db.execute(query("memory_display_refresh"), space=space)
            return sum(int(v) for row in rows for v in row.values())
        return self.db.write(lambda tx: self.refresh_turns_in(tx, space, message_ids, people or []))

    @staticmethod
    def refresh_turns_in(
        tx: ManagedTransaction, space: str, message_ids: list[str], people: list[str]
    ) -> int:
        """:meth:`refresh_display` of some turns inside the caller's transaction."""
        rows = _rows(tx, "memory_display_refresh_turns", space=space, ids=message_ids, people=people)
        return sum(int(v) for row in rows for v in row.values())

    def backfill(self, space: str, pid: str, name: str) -> int:
        """Re-render facts/attributes written while ``pid`` had no name ('{p_…}' → name)."""
        placeholder = "{" + pid + "}"
        rows = self.facts.texts_with(space, placeholder)
        if not rows:
            return 0
        texts = [r.text.replace(placeholder, name) for r in rows]
        vectors = self.embedder.embed(texts)
        return self.facts.set_texts(
            space, [(r.id, t, v.tolist()) for r, t, v in zip(rows, texts, vectors, strict=True)]
        )

    def rename_texts(self, space: str, pid: str, old: str, new: str, message_id: str) -> int:
        """After a correction ("Actually it's Katherine, not Kate") facts and attributes about,
        by or held by the person read with the new name: the old name is replaced as a whole
        word (never inside another word or name) and the text re-embedded."""
        if not old or name_key(old) == name_key(new):
            return 0
        rows = self.facts.texts_naming(space, pid, old, message_id)
        pattern = name_as_word(old)
        changed = [(r.id, pattern.sub(new, r.text)) for r in rows]
        changed = [(i, t) for (i, t), r in zip(changed, rows, strict=True) if t != r.text]
        if not changed:
            return 0
        vectors = self.embedder.embed([t for _, t in changed])
        return self.facts.set_texts(
            space, [(i, t, v.tolist()) for (i, t), v in zip(changed, vectors, strict=True)]
        )

    # --- steps -----------------------------------------------------------------------------
    def _names(self, turn: TurnWrite) -> None:
        tx, space, window, summary = turn.tx, turn.space, turn.window, turn.summary
        for ev in turn.result.record.names:
            person = window.person(ev.speaker)
            if person is None or person.participant_id is None:
                continue
            pid = person.participant_id
            key = name_key(ev.name)
            states = _states(tx, space, [pid, *ParticipantStore.find_name(tx, space, key)])
            target = states.get(pid)
            if target is None:
                continue
            holders = [s for i, s in states.items() if i != pid]
            d = decide(ev.name, ev.kind, ev.alias, ev.confidence, target, holders, window.session)
            entry = evidence_entry(ev.name, ev.confidence, ev.kind, turn.message_id, window.session)
            summary.names.append({"participant": pid, "name": ev.name, "kind": ev.kind, "action": d.action})
            if d.action == "none":
                continue
            # a merge moves fact and ADDRESSES edges: what is staged is written first
            self.flush(tx, space, turn.pending)
            if d.action == "merge_placeholder":
                summary.merged.update(p for p in (pid, d.other) if p)
            elif d.action in ("name", "rename", "alias"):
                summary.people_changed.add(pid)
            ParticipantStore.add_evidence(tx, space, pid, entry, turn.message_id)
            if d.action in ("name", "rename"):
                if d.action == "rename" and target.name:
                    summary.renamed.setdefault(pid, target.name)
                ParticipantStore.set_name(tx, space, pid, ev.name, d.key)
                ParticipantStore.sync_aliases(tx, space, pid)
                summary.named[pid] = ev.name
                person.name = ev.name
            elif d.action == "alias":
                ParticipantStore.add_alias(tx, space, pid, d.name)
                person.aliases.append(d.name)
            elif d.action == "merge_placeholder" and d.other is not None:  # decide always names it
                folded = states[d.other]
                fold_person(tx, space, d.other, pid, take_name=not d.keep_name)
                if not d.keep_name:
                    summary.named[pid] = ev.name
                    person.name = ev.name
                turn.resolver.forget(d.other, pid)
                # the placeholder is gone: the item lists the person only and says in its detail
                # whom it was folded into (a listed id would be a copy of a deleted participant)
                detail = {
                    "placeholder": d.other,
                    "placeholder_name": folded.name,
                    "into": pid,
                    "why": d.detail,
                }
                _audit(turn, d.action, json.dumps(detail), [pid], resolved=True)
            if d.action in ("rename", "conflict_two_names", "conflict_two_voices"):
                _audit(
                    turn,
                    d.action,
                    d.detail,
                    [p for p in (pid, d.other) if p],
                    resolved=d.action == "rename",
                )

    def _addressees(self, turn: TurnWrite) -> list[str]:
        """ADDRESSES edges of the turn; returns the ids its facts are ADDRESSED_TO (the given
        addressees, else the inferred ones)."""
        tx, space, window = turn.tx, turn.space, turn.window
        cur = window.current
        speaker_id = turn.resolver.speaker_id
        edges: dict[str, dict[str, Any]] = {}
        for a in turn.result.record.addressees:
            if a.target == GROUP:
                pids = [
                    p.participant_id
                    for label, p in window.people.items()
                    if label != cur.speaker and p.participant_id
                ]
            else:
                # Only a vocative makes the named person present (PARTICIPATED_IN): scope
                # membership comes from who spoke or was called, never from a mention.
                pid = turn.resolver.pid(a.target, create=True, present=a.source == "vocative")
                pids = [pid] if pid else []
            for pid in pids:
                if pid == speaker_id:
                    continue
                if pid not in edges or edges[pid]["confidence"] < a.confidence:
                    edges[pid] = {"pid": pid, "source": a.source, "confidence": a.confidence}
        for a in turn.result.record.addressees:  # whoever calls someone "Tom" is not Tom
            if not speaker_id or a.target == GROUP:
                continue
            # Also when "Tom" is already someone of the window: a name-only placeholder is
            # named yet voiceless, and the voice that calls it could otherwise collect weak votes
            # for that very name (household audio run: Ben's voice, which said "Sophie, okay,
            # no problem.", was named "Sophie"; docs/memory.md, "Naming heard through ASR").
            called = window.person(a.target) if is_label(a.target) and a.source == "vocative" else None
            name = called.name if called is not None else (None if is_label(a.target) else a.target)
            if name and (called is None or called.participant_id != speaker_id):
                entry = evidence_entry(name, NOT_ME, "not_me", turn.message_id, window.session)
                ParticipantStore.add_evidence(tx, space, speaker_id, entry, turn.message_id)
        if edges:  # written by flush (a chunk's in one statement)
            turn.pending.addresses.append({"message_id": turn.message_id, "edges": list(edges.values())})
        turn.summary.addressees = list(edges.values())
        given = [
            window.people[label].participant_id for label in cur.given_addressees if label in window.people
        ]
        return [p for p in given if p] or list(edges)

    def _answered(self, turn: TurnWrite) -> None:
        """The turn just before called someone by a kinship or role term nobody known bore and
        this voice answered it: that turn's inferred ADDRESSES edges, written before the answer
        existed, are re-pointed to this voice with the answer as evidence
        (``memory_addresses_answered``), in this turn's transaction, so a retry of this turn
        re-points again (idempotent). What is staged is written first (in a batch the earlier
        turn's edges and facts may still be staged); the batch's later windows that show the
        earlier turn are read again (``readdressed``: a vocative edge may be gone)."""
        answerer = turn.resolver.speaker_id
        if answerer is None or not turn.result.record.answered:
            return
        self.flush(turn.tx, turn.space, turn.pending)
        for call in turn.result.record.answered:
            rows = _rows(
                turn.tx,
                "memory_addresses_answered",
                space=turn.space,
                message_id=call.message_id,
                pid=answerer,
                term=call.term,
                confidence=call.confidence,
                answered_by=turn.message_id,
            )
            if rows and rows[0]["readdressed"]:
                turn.summary.readdressed.add(call.message_id)

    def _facts(self, turn: TurnWrite, addressee_ids: list[str], vectors: list[list[float]]) -> None:
        """Stage each fact with its people resolved (placeholders created now, in turn order);
        :meth:`flush` lets the rules decide against the subject's current facts."""
        speaker_id = turn.resolver.speaker_id
        for fact, vec in zip(turn.result.record.facts, vectors, strict=True):
            subject = turn.resolver.pid(fact.subject, create=True) or speaker_id
            about = [p for p in (turn.resolver.pid(x, create=True) for x in [fact.subject, *fact.about]) if p]
            new = NewFact(
                content=fact.content,
                subject_key=subject,
                slot=fact.slot,
                value=fact.value,
                event_time=fact.time.value if fact.time else None,
                time_text=fact.time.text if fact.time else None,
                extractor=turn.result.extractor,
                confidence=fact.confidence,
                speaker=speaker_id,
                addressees=addressee_ids,
                about=list(dict.fromkeys(about)),
                embedding=vec,
                id=new_id("fact"),
                message_id=turn.message_id,
            )
            statement = FactStatement(
                fact.content, fact.slot, fact.value, subject=subject, speaker=speaker_id
            )
            candidate = FactCandidate(new.id, statement, turn.window.current.ts)
            turn.pending.facts.append(_StagedFact(candidate, new, turn.summary))

    def _attributes(self, turn: TurnWrite, vectors: list[list[float]]) -> None:
        for attr, vec in zip(turn.result.record.attributes, vectors, strict=True):
            holder = turn.resolver.pid(attr.holder, create=True)
            if holder is None:
                continue
            new = NewAttribute(
                holder=holder,
                kind=attr.kind,
                text=attr.text,
                slot=attr.slot,
                extractor=turn.result.extractor,
                confidence=attr.confidence,
                embedding=vec,
                id=new_id("attr"),
                message_id=turn.message_id,
            )
            candidate = AttributeCandidate(
                new.id, holder, attr.kind, attr.text, attr.slot, turn.window.current.ts
            )
            turn.pending.attributes.append(_StagedAttribute(candidate, new, turn.summary))


def _audit(turn: TurnWrite, kind: str, detail: Any, participants: list[Any], resolved: bool) -> None:
    """An audit item raised by this turn (removed again when the turn is re-extracted)."""
    audit_in(turn.tx, turn.space, turn.message_id, kind, detail, participants, resolved)


def _states(tx: ManagedTransaction, space: str, ids: list[str]) -> dict[str, PersonState]:
    states = ParticipantStore.naming_states(tx, space, list(dict.fromkeys(ids)))
    return {
        s.id: PersonState(s.id, s.name, list(s.aliases), list(s.evidence), s.has_voice, s.name_source)
        for s in states
    }


class _Resolver:
    """Maps record references (window labels or plain names) to participant ids in this tx."""

    def __init__(self, tx: ManagedTransaction, space: str, window: Window) -> None:
        self.tx = tx
        self.space = space
        self.window = window
        self.cache: dict[str, str | None] = {}
        self.joined: set[str] = set()  # people addressed by name, made participants of the session
        self.called: set[str] = set()  # people already known, called by name (not placeholders made now)
        cur = window.people.get(window.current.speaker)
        self.speaker_id = cur.participant_id if cur else None

    def forget(self, old: str | None, new: str) -> None:
        for key, value in list(self.cache.items()):
            if value == old:
                self.cache[key] = new
        for person in self.window.people.values():
            if person.participant_id == old:
                person.participant_id = new

    def pid(self, ref: str, create: bool = False, present: bool = False) -> str | None:
        if is_label(ref):
            person = self.window.person(ref)
            return person.participant_id if person else None
        key = name_key(ref)
        if not key:
            return None
        if key in self.cache:
            return self.cache[key]
        label = self.window.label_for_name(ref)
        found: str | None = self.window.people[label].participant_id if label else None
        if found is None:
            found = next(iter(ParticipantStore.find_name(self.tx, self.space, key)), None)
            if present and found:
                self.called.add(found)
        if found is None and create and plausible_new_name(ref.strip()) and not not_a_name(ref):
            found = ParticipantStore.placeholder(
                self.tx, self.space, self.window.session, key, " ".join(ref.split()), present
            )
            if present and found:
                self.joined.add(found)
        self.cache[key] = found
        return found
