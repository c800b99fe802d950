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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
