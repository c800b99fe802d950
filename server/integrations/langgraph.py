"""A LangGraph ``BaseStore`` over voxmem's facts and profile attributes (through the HTTP API).

    from langgraph.prebuilt import create_react_agent
    store = VoxmemStore(client, "household-1", asker="Maya")
    agent = create_react_agent(model, tools, store=store)

Namespaces are ``(participant, "facts")`` and ``(participant, "attributes")``, the participant
given by id or name. Items are voxmem's own records: a fact's key is its id and its value holds
content, slot/value, validity (``valid_from``/``valid_to``/``current``) and ``sources`` (the
turns it came from). ``search`` with a ``query`` is voxmem's scoped retrieval.

Access: with an ``asker`` every read goes through ``/retrieve`` inside that person's scope
(what they may see, decided server-side); without one the store reads the space-level
``/facts`` and ``/attributes`` routes, as any holder of the space key can.

Writing: memory in voxmem is derived from what people say, so ``put`` stores the value's
``text`` as a turn spoken by the participant (its ``turn_id`` made from the key, the session
and the text: the same put twice is stored once, a new value under a key is a new statement
that supersedes the old one, as BaseStore's ``put`` replaces) and extraction derives facts
and attributes from it, with provenance. ``delete`` is refused:
a fact is superseded by a later statement, not erased.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Iterable
from datetime import UTC, datetime

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from voxmem.client import VoxmemClient

KINDS = ("facts", "attributes")
STORE_SESSION = "langgraph-store"


def put_turn_id(key: str, session: str, text: str) -> str:
    """The turn id a ``put`` writes. Why not the key itself: a key may hold characters a turn id
    may not (a 422), and the key alone made a second value under the same key a replay of the
    first, lost (now refused by the server as a reused turn id)."""
    safe = re.sub(r"[^A-Za-z0-9_.:-]", "-", key)[:96]
    digest = hashlib.sha256("\n".join((key, session, text)).encode()).hexdigest()[:16]
    return f"lg-{safe}-{digest}"


def _when(value: str | None) -> datetime:
    if value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return datetime.now(UTC)


class VoxmemStore(BaseStore):
    """Facts and attributes of one space as a LangGraph store (see the module docstring)."""

    def __init__(self, client: VoxmemClient, space: str, asker: str | None = None) -> None:
        self.client, self.space, self.asker = client, space, asker

    # --- reading -------------------------------------------------------------------------------
    def _records(self, participant: str, kind: str, query: str | None, limit: int) -> list[SearchItem]:
        if kind not in KINDS:
            return []
        if self.asker is not None or query:
            layer = "fact" if kind == "facts" else "profile"
            found = self.client.retrieve(
                self.space,
                query or participant,
                asker=self.asker,
                k=min(max(limit, 1), 100),
                layers=[layer],
                about=participant,
            )
            items: dict[str, SearchItem] = {}
            for ev in found.evidence:
                for record in ev.support:
                    key = record.get("id")
                    if key and key not in items:
                        value = {**record, "source_turn": ev.id, "stated_by": ev.speaker and ev.speaker.name}
                        when = _when(record.get("valid_from") or ev.ts)
                        items[key] = SearchItem((participant, kind), key, value, when, when, score=ev.score)
            return list(items.values())[:limit]
        rows = (
            self.client.facts(self.space, participant=participant, history=True, limit=min(limit, 1000))
            if kind == "facts"
            else self.client.attributes(
                self.space, participant=participant, history=True, limit=min(limit, 1000)
            )
        )
        out = []
        for row in rows:
            value = row.model_dump(mode="json")
            when = _when(value.get("valid_from"))
            out.append(SearchItem((participant, kind), row.id, value, when, when))
        return out

    def _get(self, op: GetOp) -> Item | None:
        participant, kind = self._namespace(op.namespace)
        for item in self._records(participant, kind, None, 1000):
            if item.key == op.key:
                return Item(
                    value=item.value,
                    key=item.key,
                    namespace=item.namespace,
                    created_at=item.created_at,
                    updated_at=item.updated_at,
                )
        return None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if len(op.namespace_prefix) == 2:
            participant, kind = self._namespace(op.namespace_prefix)
            kinds = [kind]
        elif len(op.namespace_prefix) == 1:
            participant, kinds = op.namespace_prefix[0], list(KINDS)
        else:
            raise ValueError("search a namespace (participant,) or (participant, 'facts'|'attributes')")
        items = [i for k in kinds for i in self._records(participant, k, op.query, op.offset + op.limit)]
        if op.filter:
            items = [i for i in items if all(i.value.get(f) == v for f, v in op.filter.items())]
        return items[op.offset : op.offset + op.limit]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        people: set[str] = set()
        for fact in self.client.facts(self.space, history=True, limit=1000):
            people.update(p.name or p.id for p in fact.about)
        for attribute in self.client.attributes(self.space, history=True, limit=1000):
            if attribute.holder is not None:
                people.add(attribute.holder.name or attribute.holder.id)
        spaces: list[tuple[str, ...]] = sorted((p, k) for p in people for k in KINDS)
        if op.max_depth is not None:
            spaces = sorted({ns[: op.max_depth] for ns in spaces})
        for cond in op.match_conditions or ():
            n = len(cond.path)
            if cond.match_type == "prefix":
                spaces = [ns for ns in spaces if tuple(ns[:n]) == tuple(cond.path)]
            else:
                spaces = [ns for ns in spaces if tuple(ns[-n:]) == tuple(cond.path)]
        return spaces[op.offset : op.offset + op.limit]

    # --- writing -------------------------------------------------------------------------------
    def _put(self, op: PutOp) -> None:
        participant, _ = self._namespace(op.namespace)
        if op.value is None:
            raise NotImplementedError(
                "voxmem does not delete facts: a later statement supersedes them (or delete the participant)"
            )
        text = op.value.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ValueError("put a value with 'text': what the participant said, e.g. 'I moved to Lisbon'")
        session = op.value.get("session", STORE_SESSION)
        self.client.append_turn(
            self.space,
            session,
            participant,
            text,
            addressees=op.value.get("addressees") or [],
            turn_id=put_turn_id(op.key, session, text),
        )

    @staticmethod
    def _namespace(namespace: tuple[str, ...]) -> tuple[str, str]:
        if len(namespace) != 2 or namespace[1] not in KINDS:
            raise ValueError(f"namespace must be (participant, 'facts'|'attributes'), got {namespace!r}")
        return namespace[0], namespace[1]

    # --- BaseStore -----------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            else:
                raise TypeError(f"unknown store operation {op!r}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))
