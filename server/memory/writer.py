"""Write one turn's extraction into Neo4j: identity, addressees, facts, attributes, evolution.

Why one transaction per turn: a turn's memory is all or nothing, and the transaction
first removes whatever an earlier run derived from the same message, so retries and
reprocessing are idempotent (derived nodes replaced, messages and voiceprints untouched).
Embeddings are computed before the transaction so no lock is held while encoding.

Memory evolution rule (same subject and slot, different value):
- the subject says it themself, or the same person who stated the old value restates it
  → the new fact SUPERSEDES the old one (old: ``current`` false, ``valid_to`` set);
- someone else contradicts a value they did not state, about a third person → both stay
  current, side by side, ``conflict`` true and linked by ``CONFLICTS_WITH``, plus an
  ``AuditItem``; a later statement by the subject settles it (supersedes both).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder, sparse_encoder
from voxmem.extractors.offline.names import plausible_new_name
from voxmem.extractors.schema import GROUP, ExtractionResult, is_label
from voxmem.extractors.window import Window
from voxmem.ids import name_key, new_id
from voxmem.memory.identity import NOT_ME, PersonState, decide, evidence_entry
from voxmem.passages import MessageIndexer

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


class MemoryWriter:
    def __init__(self, db: Database, embedder: TextEmbedder) -> None:
        self.db = db
        self.embedder = embedder
        self.passages = MessageIndexer(db, embedder, sparse_encoder())

    # --- public ----------------------------------------------------------------------------
    def write(self, space: str, window: Window, result: ExtractionResult) -> WriteSummary:
        record = result.record
        texts = [f.content for f in record.facts] + [a.text for a in record.attributes]
        vectors = self.embedder.embed(texts) if texts else []
        fact_vecs = [v.tolist() for v in vectors[: len(record.facts)]]
        attr_vecs = [v.tolist() for v in vectors[len(record.facts) :]]

        def work(tx: ManagedTransaction) -> WriteSummary:
            summary = WriteSummary(message_id=result.message_id, extractor=result.extractor)
            _rows(tx, "memory_clear_messages", space=space, ids=[result.message_id])
            resolver = _Resolver(tx, space, window)
            self._names(tx, space, window, result, resolver, summary)
            addressee_ids = self._addressees(tx, space, window, result, resolver, summary)
            self._facts(tx, space, window, result, resolver, addressee_ids, fact_vecs, summary)
            self._attributes(tx, space, window, result, resolver, attr_vecs, summary)
            return summary

        summary = self.db.write(work)
        for pid, name in summary.named.items():
            self.backfill(space, pid, name)
            if pid in summary.renamed:
                self.rename_texts(space, pid, summary.renamed[pid], name, summary.message_id)
            self.passages.reindex_participant(space, pid)  # "Name: text" passages carry the new name
        self.refresh_display(space)
        return summary

    def refresh_display(self, space: str) -> None:
        """Keep the ``display`` captions people read in Browser (names, never '{p_…}') current.

        Run after the back-fill, so a fact about a person named in this turn reads with the
        name; a person never named reads as 'unnamed voice …', like their Participant node.
        """
        self.db.execute(query("memory_display_refresh"), space=space)

    def backfill(self, space: str, pid: str, name: str) -> int:
        """Re-render facts/attributes written while ``pid`` had no name ('{p_…}' → name)."""
        placeholder = "{" + pid + "}"
        rows = self.db.query(query("memory_backfill_find"), space=space, placeholder=placeholder)
        if not rows:
            return 0
        texts = [r["text"].replace(placeholder, name) for r in rows]
        vectors = self.embedder.embed(texts)
        payload = [
            {"id": r["id"], "text": t, "embedding": v.tolist()}
            for r, t, v in zip(rows, texts, vectors, strict=True)
        ]
        self.db.execute(query("memory_backfill_set"), space=space, rows=payload)
        return len(payload)

    def rename_texts(self, space: str, pid: str, old: str, new: str, message_id: str) -> int:
        """After a correction ("Actually it's Katherine, not Kate") facts and attributes about,
        by or held by the person read with the new name: the old name is replaced as a whole
        word (never inside another word or name) and the text re-embedded."""
        if not old or name_key(old) == name_key(new):
            return 0
        rows = self.db.query(
            query("participant_renamed_texts"), space=space, pid=pid, old=old, message_id=message_id
        )
        pattern = re.compile(r"(?<![\w'’])" + re.escape(old) + r"(?![\w])")
        changed = [(r["id"], pattern.sub(new, r["text"])) for r in rows]
        changed = [(i, t) for (i, t), r in zip(changed, rows, strict=True) if t != r["text"]]
        if not changed:
            return 0
        vectors = self.embedder.embed([t for _, t in changed])
        payload = [
            {"id": i, "text": t, "embedding": v.tolist()} for (i, t), v in zip(changed, vectors, strict=True)
        ]
        self.db.execute(query("memory_backfill_set"), space=space, rows=payload)
        return len(payload)

    # --- steps -----------------------------------------------------------------------------
    def _names(self, tx, space, window, result, resolver, summary) -> None:
        for ev in result.record.names:
            person = window.person(ev.speaker)
            if person is None or person.participant_id is None:
                continue
            pid = person.participant_id
            key = name_key(ev.name)
            states = _states(
                tx, space, [pid, *(r["id"] for r in _rows(tx, "participant_find_name", space=space, key=key))]
            )
            target = states.get(pid)
            if target is None:
                continue
            holders = [s for i, s in states.items() if i != pid]
            d = decide(ev.name, ev.kind, ev.alias, ev.confidence, target, holders)
            entry = evidence_entry(ev.name, ev.confidence, ev.kind, result.message_id)
            summary.names.append({"participant": pid, "name": ev.name, "kind": ev.kind, "action": d.action})
            if d.action == "none":
                continue
            _rows(
                tx, "participant_add_evidence", space=space, id=pid, entry=entry, message_id=result.message_id
            )
            if d.action in ("name", "rename"):
                if d.action == "rename" and target.name:
                    summary.renamed.setdefault(pid, target.name)
                _rows(tx, "participant_set_name", space=space, id=pid, name=ev.name, key=d.key)
                _sync_aliases(tx, space, pid)
                summary.named[pid] = ev.name
                person.name = ev.name
            elif d.action == "alias":
                _rows(
                    tx, "participant_add_alias", space=space, id=pid, alias=d.name, alias_key=name_key(d.name)
                )
                person.aliases.append(d.name)
            elif d.action == "merge_placeholder":
                _rows(
                    tx,
                    "participant_merge_placeholder",
                    space=space,
                    keep_name=d.keep_name,
                    **{"from": d.other, "into": pid},
                )
                _sync_aliases(tx, space, pid)
                if not d.keep_name:
                    summary.named[pid] = ev.name
                    person.name = ev.name
                resolver.forget(d.other, pid)
            if d.action in ("rename", "merge_placeholder", "conflict_two_names", "conflict_two_voices"):
                _rows(
                    tx,
                    "memory_audit_create",
                    space=space,
                    id=new_id("audit"),
                    kind=d.action,
                    detail=d.detail,
                    participants=[p for p in (pid, d.other) if p],
                    message_id=result.message_id,
                    resolved=d.action in ("rename", "merge_placeholder"),
                )

    def _addressees(self, tx, space, window, result, resolver, summary) -> list[str]:
        cur = window.current
        speaker_id = resolver.speaker_id
        edges: dict[str, dict[str, Any]] = {}
        for a in result.record.addressees:
            if a.target == GROUP:
                pids = [
                    p.participant_id
                    for label, p in window.people.items()
                    if label != cur.speaker and p.participant_id
                ]
            else:
                # Only a vocative makes the named person present (PARTICIPATED_IN): scope
                # membership comes from who spoke or was called, never from a mention.
                pid = resolver.pid(a.target, create=True, present=a.source == "vocative")
                pids = [pid] if pid else []
            for pid in pids:
                if pid == speaker_id:
                    continue
                if pid not in edges or edges[pid]["confidence"] < a.confidence:
                    edges[pid] = {"pid": pid, "source": a.source, "confidence": a.confidence}
        for a in result.record.addressees:  # whoever calls someone "Tom" is not Tom
            if speaker_id and a.target != GROUP and not is_label(a.target):
                entry = evidence_entry(a.target, NOT_ME, "not_me", result.message_id)
                _rows(
                    tx,
                    "participant_add_evidence",
                    space=space,
                    id=speaker_id,
                    entry=entry,
                    message_id=result.message_id,
                )
        if edges:
            _rows(
                tx,
                "memory_addresses_write",
                space=space,
                message_id=result.message_id,
                edges=list(edges.values()),
            )
        summary.addressees = list(edges.values())
        given = [
            window.people[label].participant_id for label in cur.given_addressees if label in window.people
        ]
        return [p for p in given if p] or list(edges)

    def _facts(self, tx, space, window, result, resolver, addressee_ids, vectors, summary) -> None:
        speaker_id = resolver.speaker_id
        for fact, vec in zip(result.record.facts, vectors, strict=True):
            subject = resolver.pid(fact.subject, create=True) or speaker_id
            about = [p for p in (resolver.pid(x, create=True) for x in [fact.subject, *fact.about]) if p]
            existing = _rows(
                tx,
                "fact_slot_current",
                space=space,
                subject_key=subject,
                slot=fact.slot,
                content=fact.content,
            )
            same = next(
                (
                    e
                    for e in existing
                    if e["content"] == fact.content
                    or (fact.slot and e["slot"] == fact.slot and e["value"] == fact.value and fact.value)
                ),
                None,
            )
            if same is not None:
                _rows(tx, "fact_add_support", space=space, id=same["id"], message_id=result.message_id)
                continue
            fid = new_id("fact")
            _rows(
                tx,
                "fact_create",
                space=space,
                message_id=result.message_id,
                speaker=speaker_id,
                addressees=addressee_ids,
                about=list(dict.fromkeys(about)),
                embedding=vec,
                fact={
                    "id": fid,
                    "content": fact.content,
                    "subject_key": subject,
                    "slot": fact.slot,
                    "value": fact.value,
                    "event_time": fact.time.value if fact.time else None,
                    "time_text": fact.time.text if fact.time else None,
                    "extractor": result.extractor,
                    "confidence": fact.confidence,
                },
            )
            summary.facts += 1
            for old in existing:
                if not fact.slot or old["slot"] != fact.slot:
                    continue
                authoritative = speaker_id == subject or speaker_id in old["stated_by"]
                if authoritative:
                    _rows(tx, "fact_supersede", space=space, new=fid, old=old["id"])
                    summary.superseded += 1
                else:
                    _rows(tx, "fact_conflict", space=space, a=fid, b=old["id"])
                    _rows(
                        tx,
                        "memory_audit_create",
                        space=space,
                        id=new_id("audit"),
                        kind="fact_conflict",
                        detail=f"{fact.content!r} contradicts {old['content']!r}",
                        participants=[subject, speaker_id],
                        message_id=result.message_id,
                        resolved=False,
                    )
                    summary.conflicts += 1

    def _attributes(self, tx, space, window, result, resolver, vectors, summary) -> None:
        for attr, vec in zip(result.record.attributes, vectors, strict=True):
            holder = resolver.pid(attr.holder, create=True)
            if holder is None:
                continue
            existing = _rows(
                tx,
                "attribute_slot_current",
                space=space,
                holder=holder,
                kind=attr.kind,
                slot=attr.slot,
                text=attr.text,
            )
            same = next((e for e in existing if e["text"] == attr.text), None)
            if same is not None:
                _rows(tx, "attribute_add_support", space=space, id=same["id"], message_id=result.message_id)
                continue
            aid = new_id("attr")
            _rows(
                tx,
                "attribute_create",
                space=space,
                message_id=result.message_id,
                holder=holder,
                embedding=vec,
                attr={
                    "id": aid,
                    "kind": attr.kind,
                    "text": attr.text,
                    "slot": attr.slot,
                    "extractor": result.extractor,
                    "confidence": attr.confidence,
                },
            )
            summary.attributes += 1
            for old in existing:
                if attr.slot and old["slot"] == attr.slot:
                    _rows(tx, "attribute_supersede", space=space, new=aid, old=old["id"])


def _sync_aliases(tx: ManagedTransaction, space: str, pid: str) -> None:
    """After a name change: aliases deduplicated by name key, the one repeating the name dropped,
    and their keys stored, so an alias is found by the same key as a name (Cypher's toLower is
    not that key: it neither folds "José" nor casefolds "Straße")."""
    row = next(iter(_rows(tx, "participant_states", space=space, ids=[pid])), None)
    if row is None:
        return
    seen = {row["key"]} if row["key"] else set()
    aliases, keys = [], []
    for alias in row["aliases"]:
        key = name_key(alias)
        if key and key not in seen:
            seen.add(key)
            aliases.append(alias)
            keys.append(key)
    _rows(tx, "participant_set_aliases", space=space, id=pid, aliases=aliases, alias_keys=keys)


def _states(tx: ManagedTransaction, space: str, ids: list[str]) -> dict[str, PersonState]:
    rows = _rows(tx, "participant_states", space=space, ids=list(dict.fromkeys(ids)))
    return {
        r["id"]: PersonState(
            r["id"],
            r["name"],
            list(r["aliases"]),
            list(r["evidence"]),
            bool(r["has_voice"]),
            r["name_source"],
        )
        for r in rows
    }


class _Resolver:
    """Maps record references (window labels or plain names) to participant ids in this tx."""

    def __init__(self, tx: ManagedTransaction, space: str, window: Window) -> None:
        self.tx = tx
        self.space = space
        self.window = window
        self.cache: dict[str, str | None] = {}
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
            rows = _rows(self.tx, "participant_find_name", space=self.space, key=key)
            found = rows[0]["id"] if rows else None
        if found is None and create and plausible_new_name(ref.strip()):
            rows = _rows(
                self.tx,
                "participant_placeholder",
                space=self.space,
                session=self.window.session,
                key=key,
                name=" ".join(ref.split()),
                pid=new_id("p"),
                present=present,
            )
            found = rows[0]["id"] if rows else None
        self.cache[key] = found
        return found
