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

After a fold (:func:`replay_facts`, :func:`replay_attributes`): two people turned out to be one,
so facts stored about each, decided apart, are now one subject's. The slots the fold touched are
decided again from their whole history, oldest first, by the same rules, as if every statement
had been about that person from the start; only what differs from the stored evolution is
returned for writing, so a second replay returns nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from voxmem.stores.facts import CurrentAttribute, CurrentFact, Evolved


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


@dataclass(frozen=True)
class Settled:
    """The evolution a replay gives one stored fact or attribute (``conflict`` None for an
    attribute): whether it is current, which one supersedes it (its ``valid_to`` is that one's
    ``valid_from``), and its own SUPERSEDES and CONFLICTS_WITH edges."""

    id: str
    current: bool
    conflict: bool | None
    superseded_by: str | None
    supersedes: tuple[str, ...]
    conflicts: tuple[str, ...]


@dataclass
class Replay:
    """What a replay changes: ``merges`` (repeat, kept) pairs, a repeat of what was current
    becoming support of it as the writer records repeats; ``changed``, the stored facts or
    attributes whose evolution differs from the replay's; ``new_conflicts`` (new, old) pairs in
    conflict now that were not before (each gets an audit item, as from the writer);
    ``settled_conflicts``, the facts whose stored conflict the replay settles (the audit items
    their conflicts raised are resolved)."""

    merges: list[tuple[str, str]] = field(default_factory=list)
    changed: list[Settled] = field(default_factory=list)
    new_conflicts: list[tuple[Evolved, Evolved]] = field(default_factory=list)
    settled_conflicts: list[Evolved] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.merges or self.changed)


def replay_facts(history: Sequence[Evolved], person: str, name: str | None) -> Replay:
    """:func:`decide_facts` over each subject's facts of the touched slots, oldest first (the
    store's order), as if written in that order from the start. ``person`` is the one folded
    into: texts the fold rewrote still read '{person}' where the person's own read the name
    (rendered after the commit), so a text is compared with ``name`` in its place."""
    candidates = [
        FactCandidate(
            h.id,
            FactStatement(
                _rendered(h.text, person, name),
                h.slot,
                h.value,
                subject=h.owner,
                speaker=next(iter(h.stated_by), None),
            ),
            h.valid_from,
        )
        for h in history
    ]
    replay = Replay()
    supersedes: dict[str, tuple[str, ...]] = {}
    conflicts: dict[str, tuple[str, ...]] = {}
    for h, d in zip(history, decide_facts(candidates, {}), strict=True):
        if d.support is not None:
            replay.merges.append((h.id, d.support))
            continue
        supersedes[h.id] = d.supersede
        conflicts[h.id] = tuple(c.id for c in d.conflicts)
    _settle(history, replay, supersedes, conflicts, facts=True)
    return replay


def replay_attributes(history: Sequence[Evolved], person: str, name: str | None) -> Replay:
    """:func:`decide_attributes` over ``person``'s attributes of the touched kinds, oldest
    first, as :func:`replay_facts` does for facts (``owner`` is the kind here)."""
    candidates = [
        AttributeCandidate(h.id, person, h.owner, _rendered(h.text, person, name), h.slot, h.valid_from)
        for h in history
    ]
    replay = Replay()
    supersedes: dict[str, tuple[str, ...]] = {}
    for h, d in zip(history, decide_attributes(candidates, {}), strict=True):
        if d.support is not None:
            replay.merges.append((h.id, d.support))
        else:
            supersedes[h.id] = d.supersede
    _settle(history, replay, supersedes, {}, facts=False)
    return replay


def _rendered(text: str, person: str, name: str | None) -> str:
    return text.replace("{" + person + "}", name) if name else text


def _settle(
    history: Sequence[Evolved],
    replay: Replay,
    supersedes: Mapping[str, tuple[str, ...]],
    conflicts: Mapping[str, tuple[str, ...]],
    facts: bool,
) -> None:
    """Fill ``replay.changed`` and ``new_conflicts``: the replay's evolution of each kept item
    against the stored one (edges to merged repeats vanish with them)."""
    by_id = {h.id: h for h in history}
    merged = {repeat for repeat, _ in replay.merges}
    successor = {old: new for new, olds in supersedes.items() for old in olds}
    in_conflict = {i for new, olds in conflicts.items() for i in (new, *olds) if olds}
    stored_pairs = {frozenset((h.id, o)) for h in history for o in h.conflicts}
    for i, ups in supersedes.items():
        h = by_id[i]
        new = successor.get(i)
        settled = Settled(
            id=i,
            current=new is None,
            conflict=(new is None and i in in_conflict) if facts else None,
            superseded_by=new,
            supersedes=tuple(sorted(ups)),
            conflicts=tuple(sorted(conflicts.get(i, ()))),
        )
        valid_to = by_id[new].valid_from if new is not None else None
        if (
            h.current != settled.current
            or (facts and h.conflict != settled.conflict)
            or h.valid_to != valid_to
            or h.supersedes - merged != set(settled.supersedes)
            or h.conflicts - merged != set(settled.conflicts)
        ):
            replay.changed.append(settled)
        replay.new_conflicts += [
            (h, by_id[o]) for o in settled.conflicts if frozenset((i, o)) not in stored_pairs
        ]
    desired_pairs = {frozenset((new, old)) for new, olds in conflicts.items() for old in olds}
    replay.settled_conflicts = [
        h for h in history if any(frozenset((h.id, o)) not in desired_pairs for o in h.conflicts)
    ]
