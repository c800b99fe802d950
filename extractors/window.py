"""The context window an extractor sees: the current turn plus N previous turns of its session.

Why a window and not the whole session: a careful note-taker resolves "you", "thanks, Tom"
and "yes, the second one" from the last few turns; more context costs LLM tokens and
makes the offline rules guess across topic changes. Speakers are given their *current*
identities (name and aliases as stored now) under window-local labels ``S1``, ``S2``…, so
the extractor's record can name them without knowing graph ids. Other participants of
the session who did not speak in the window are labelled too (they can be addressed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


@dataclass
class WindowPerson:
    """One person the window knows: a speaker of a window turn or a session participant."""

    label: str
    participant_id: str | None
    name: str | None
    aliases: list[str] = field(default_factory=list)

    @property
    def display(self) -> str:
        """How facts refer to the person: the name, else a stable placeholder the writer back-fills."""
        return self.name or f"{{{self.participant_id or self.label}}}"

    def all_names(self) -> list[str]:
        return [n for n in [self.name, *self.aliases] if n]


@dataclass
class WindowTurn:
    message_id: str
    idx: int
    speaker: str  # window label
    text: str
    ts: datetime | None = None
    given_addressees: list[str] = field(default_factory=list)  # window labels
    addressees: list[str] = field(default_factory=list)  # labels it surely ADDRESSES (given or vocative)
    captions: list[str] = field(default_factory=list)
    vocabulary: list[str] = field(default_factory=list)  # names the ASR was told to expect (spoken turns)


@dataclass
class Window:
    """Current turn last; ``people`` maps labels to persons (window speakers first)."""

    session: str
    session_date: datetime
    turns: list[WindowTurn]
    people: dict[str, WindowPerson]
    space: str | None = None  # the tenant of a stored turn's window (graphiti uses it as group_id)

    @property
    def current(self) -> WindowTurn:
        return self.turns[-1]

    @property
    def previous(self) -> list[WindowTurn]:
        return self.turns[:-1]

    def person(self, label: str) -> WindowPerson | None:
        return self.people.get(label)

    def label_for_name(self, name: str) -> str | None:
        """The label of the person who bears ``name`` (or alias), case-insensitive."""
        wanted = " ".join(name.lower().split())
        for label, person in self.people.items():
            if any(" ".join(n.lower().split()) == wanted for n in person.all_names()):
                return label
        return None

    @property
    def reference_time(self) -> datetime:
        return self.current.ts or self.session_date


class WindowBuilder:
    """Assigns labels while building a window from plain turns (stored turns and benches)."""

    def __init__(self) -> None:
        self.people: dict[str, WindowPerson] = {}
        self._by_key: dict[str, str] = {}

    def label(self, key: str, participant_id: str | None, name: str | None, aliases: list[str]) -> str:
        if key not in self._by_key:
            label = f"S{len(self._by_key) + 1}"
            self._by_key[key] = label
            self.people[label] = WindowPerson(label, participant_id, name, list(aliases or []))
        return self._by_key[key]


def window_from_rows(
    rows: list[dict[str, Any]], roster: list[dict[str, Any]], session: str, session_date: datetime | None
) -> Window:
    """Build a window from message rows (oldest first) and the session's participants.

    A row is a mapping with ``id``, ``idx``, ``text``, ``ts``, ``speaker`` (``id``, ``name``,
    ``aliases``, or None), ``given`` and ``addressed`` (participant ids), ``captions`` and
    ``vocabulary`` (a spoken turn's ASR hints, optional); a
    roster entry has ``id``, ``name``, ``aliases``. The memory pipeline passes a stored
    message's context (``voxmem.stores.messages.MessageContext``) in this shape; tests and
    benchmarks pass plain dicts. Nothing here reads a database.
    """
    builder = WindowBuilder()
    turns: list[WindowTurn] = []
    for row in rows:
        sp = row.get("speaker") or {}
        key = sp.get("id") or f"unknown:{row['id']}"
        label = builder.label(key, sp.get("id"), sp.get("name"), sp.get("aliases") or [])
        turns.append(
            WindowTurn(
                message_id=row["id"],
                idx=row["idx"],
                speaker=label,
                text=row["text"],
                ts=_as_datetime(row.get("ts")),
                given_addressees=[],
                captions=list(row.get("captions") or []),
                vocabulary=list(row.get("vocabulary") or []),
            )
        )
    for person in roster:
        builder.label(person["id"], person["id"], person.get("name"), person.get("aliases") or [])
    by_id = {p.participant_id: label for label, p in builder.people.items()}
    for row, turn in zip(rows, turns, strict=True):
        turn.given_addressees = [by_id[a] for a in row.get("given") or [] if a in by_id]
        turn.addressees = [by_id[a] for a in row.get("addressed") or [] if a in by_id] or list(
            turn.given_addressees
        )
    start = session_date or (turns[0].ts if turns and turns[0].ts else datetime.now(UTC))
    return Window(session=session, session_date=start, turns=turns, people=builder.people)


def _as_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    if hasattr(value, "to_native"):
        return value.to_native()
    return datetime.fromisoformat(str(value))
