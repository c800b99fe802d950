"""Memory evolution rules: what a new fact or attribute does to the current ones (pure).

Why pure functions: whether a statement repeats, supersedes or contradicts what memory holds
is the heart of memory evolution, and it must be checkable on hand-made cases without a
database. The facts store reads the current candidates (same subject and slot, or the same
text) inside the turn's transaction, these functions decide, and the store applies the
decision in that same transaction.

Facts (same subject and slot, different value):
- the same content again, or the same slot with the same (non-empty) value → the new
  statement only supports the existing fact (one more ``DERIVED_FROM``), nothing is created;
- the subject says it themself, or whoever stated the old value restates it → the new fact
  supersedes the old one;
- someone else contradicts a value they did not state, about a third person → both stay
  current, in conflict (``CONFLICTS_WITH`` plus an audit item); a later statement by the
  subject supersedes both.
A fact without a slot never supersedes or conflicts: only updatable slots evolve.

Attributes: the same text again supports the existing attribute; a new text of the same
holder, kind and slot supersedes the old one (profiles have no conflicts: the holder's own
attributes come from what anyone said about them, and the newest statement wins).

Many statements at once (:func:`decide_facts`, :func:`decide_attributes`): a turn with several
facts, or a batch import's chunk of turns, reads the current candidates of all its statements
in one query, then decides them in conversation order here, each statement seeing what the
ones before it created or superseded, exactly as if each had been read and written alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from voxmem.stores.facts import CurrentAttribute, CurrentFact


@dataclass(frozen=True)
class FactStatement:
    """What the new fact says and who says it, as the rule needs it (participant ids)."""

    content: str
    slot: str | None
    value: str | None
    subject: str | None
    speaker: str | None


@dataclass(frozen=True)
class FactDecision:
    """Either ``support`` (an existing fact id: create nothing) or create the new fact, then
    supersede ``supersede`` and put it in conflict with ``conflicts``."""

    support: str | None = None
    supersede: tuple[str, ...] = ()
    conflicts: tuple[CurrentFact, ...] = ()

    @property
    def create(self) -> bool:
        return self.support is None


def decide_fact(new: FactStatement, current: Sequence[CurrentFact]) -> FactDecision:
    """The evolution rule for one new fact against the subject's current facts.

    ``current`` is in the store's order (newest first); the first repeated fact is the one
    supported.
    """
    for old in current:
        same_value = bool(new.slot) and old.slot == new.slot and old.value == new.value and bool(new.value)
        if old.content == new.content or same_value:
            return FactDecision(support=old.id)
    supersede: list[str] = []
    conflicts: list[CurrentFact] = []
    for old in current:
        if not new.slot or old.slot != new.slot:
            continue
        if new.speaker == new.subject or new.speaker in old.stated_by:
            supersede.append(old.id)
        else:
            conflicts.append(old)
    return FactDecision(supersede=tuple(supersede), conflicts=tuple(conflicts))


@dataclass(frozen=True)
class AttributeDecision:
    """Either ``support`` an existing attribute, or create the new one and supersede ``supersede``."""

    support: str | None = None
    supersede: tuple[str, ...] = ()

    @property
    def create(self) -> bool:
        return self.support is None


def decide_attribute(text: str, slot: str | None, current: Sequence[CurrentAttribute]) -> AttributeDecision:
    """The evolution rule for one new attribute against the holder's current ones of its kind."""
    same = next((old for old in current if old.text == text), None)
    if same is not None:
        return AttributeDecision(support=same.id)
    return AttributeDecision(supersede=tuple(old.id for old in current if slot and old.slot == slot))


@dataclass(frozen=True)
class FactCandidate:
    """A new fact of a turn or chunk, in conversation order: the id it gets if created, what it
    says and since when it holds (its message's time; orders candidates like the store does)."""

    id: str
    statement: FactStatement
    valid_from: datetime | None


def _newest_first(items: list[CurrentFact] | list[CurrentAttribute]) -> list:
    """The store's order, ``valid_from DESC`` (Neo4j puts nulls first); ties keep list order."""
    return sorted(
        items,
        key=lambda x: (x.valid_from is None, x.valid_from.timestamp() if x.valid_from else 0.0),
        reverse=True,
    )


def decide_facts(
    candidates: Sequence[FactCandidate], current: Mapping[str, Sequence[CurrentFact]]
) -> list[FactDecision]:
    """:func:`decide_fact` for each candidate in order, against the subject's current facts
    (``current``, by subject id, as read before the first candidate) plus the candidates
    before it: a created fact becomes current (stated by its speaker), a superseded one stops
    being current. A fact without a subject has no candidates (the store matches none)."""
    state = {subject: list(facts) for subject, facts in current.items()}
    decisions = []
    for cand in candidates:
        new = cand.statement
        facts = state.setdefault(new.subject, []) if new.subject is not None else []
        same = [f for f in facts if f.content == new.content or (new.slot is not None and f.slot == new.slot)]
        decision = decide_fact(new, _newest_first(same))
        decisions.append(decision)
        if decision.support is not None or new.subject is None:
            continue
        gone = set(decision.supersede)
        facts[:] = [f for f in facts if f.id not in gone]
        stated = (new.speaker,) if new.speaker else ()
        facts.append(CurrentFact(cand.id, new.content, new.slot, new.value, stated, cand.valid_from))
    return decisions


@dataclass(frozen=True)
class AttributeCandidate:
    """A new attribute of a turn or chunk, in conversation order (see :class:`FactCandidate`)."""

    id: str
    holder: str
    kind: str
    text: str
    slot: str | None
    valid_from: datetime | None


def decide_attributes(
    candidates: Sequence[AttributeCandidate], current: Mapping[tuple[str, str], Sequence[CurrentAttribute]]
) -> list[AttributeDecision]:
    """:func:`decide_attribute` for each candidate in order, against the holder's current
    attributes of its kind (``current``, by (holder, kind)) plus the candidates before it."""
    state = {key: list(attrs) for key, attrs in current.items()}
    decisions = []
    for cand in candidates:
        attrs = state.setdefault((cand.holder, cand.kind), [])
        same = [a for a in attrs if a.text == cand.text or (cand.slot is not None and a.slot == cand.slot)]
        decision = decide_attribute(cand.text, cand.slot, _newest_first(same))
        decisions.append(decision)
        if decision.support is not None:
            continue
        gone = set(decision.supersede)
        attrs[:] = [a for a in attrs if a.id not in gone]
        attrs.append(CurrentAttribute(cand.id, cand.text, cand.slot, cand.valid_from))
    return decisions
