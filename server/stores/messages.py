"""Text turns: append to a session, list with filters, and hybrid search.

Appending is one transaction: lock the session, read its message count, write the
message with its edges. The session lock makes concurrent appends queue, so ``idx`` has
no duplicates and ``NEXT`` never forks. A client-chosen ``turn_id`` makes retries
idempotent: the same id returns the stored message instead of writing a second one.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from voxmem.cypher import query
from voxmem.db import Database, native_time
from voxmem.embeddings import SparseEncoder, TextEmbedder, sparse_encoder
from voxmem.errors import Conflict, InvalidInput, NotFound
from voxmem.ids import (
    is_valid_id,
    iso_timestamp,
    legacy_turn_message_id,
    new_id,
    participant_ref,
    turn_message_id,
    visible,
)
from voxmem.passages import encode_passages, passage
from voxmem.stopwords import SEARCH_STOP_WORDS
from voxmem.stores.participants import ParticipantStore, Person

# How many earlier turns of a session left without memory a turn's write reads (then derives).
PENDING_LIMIT = 100


@dataclass
class Turn:
    """One text turn as the API receives it."""

    session: str
    speaker: str
    text: str
    addressees: list[str] = field(default_factory=list)
    ts: datetime | None = None
    turn_id: str | None = None
    source: str = "text"


@dataclass
class PreparedTurn:
    """A validated text turn before its write: trimmed text, speaker and addressees by name key
    (the speaker never addresses themself), and the speaker-aware passage it is indexed by."""

    turn: Turn
    text: str
    speaker: Person
    addressees: dict[str, Person]
    passage: str
    message_id: str = ""

    @classmethod
    def of(cls, turn: Turn, require_id: bool = False) -> PreparedTurn:
        """Validate one turn (a bad one is a 422, :class:`InvalidInput`)."""
        text = turn.text.strip()
        if not visible(text):
            raise InvalidInput(
                "turn text is empty (nothing visible: only spaces, controls or zero-width marks)"
            )
        if not is_valid_id(turn.session):
            raise InvalidInput("session id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        if require_id and turn.turn_id is None:
            raise InvalidInput("every turn of a batch needs a turn_id (retries must be idempotent)")
        if turn.turn_id is not None and not is_valid_id(turn.turn_id):
            raise InvalidInput("turn_id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        speaker = Person.of(turn.speaker)
        addressees = {p.key: p for p in (Person.of(a) for a in turn.addressees)}
        addressees.pop(speaker.key, None)  # talking to oneself makes no ADDRESSES edge
        indexed = passage(text, speaker.name, sorted(a.name for a in addressees.values()))
        return cls(turn, text, speaker, addressees, indexed)


def check_replay(item: PreparedTurn, session: str, text: str) -> None:
    """A turn_id names ONE turn: a request that reuses a stored turn's id must repeat it (same
    session, same text), else it is a 409, never an answer with the old turn.

    Why: a retry is only safe to collapse into the stored turn when it is the same turn; a
    client that reused an id for a new turn used to get 201 with the old message, and the new
    words were lost without a sign. Speaker and addressees are not compared: a person's name
    can change after the fact (a voice linked by hand), the words and the session cannot.
    """
    if session != item.turn.session or text != item.text:
        raise Conflict(
            f"turn_id {item.turn.turn_id!r} is already stored for a different turn (session "
            f"{session!r}, text {text[:80]!r}); a retry must repeat the turn, a new turn needs a new turn_id"
        )


@dataclass(frozen=True)
class StoredTurn:
    """One turn of a batch after :meth:`MessageStore.append_many`: its message id, whether this
    call wrote it (else it was stored before: an idempotent replay) and whether its memory is
    still to be derived."""

    turn_id: str
    session: str
    id: str
    stored: bool
    pending: bool


@dataclass(frozen=True)
class PreparedBatch:
    """A batch of text turns ready for :meth:`MessageStore.write_many`: each turn with its message
    id, the ids stored already (with their ``memory_pending`` state) and the encoded passages of
    the others."""

    space: str
    turns: list[PreparedTurn]
    found: dict[str, bool]
    encoded: dict[str, dict[str, Any]]

    def pending(self) -> list[Turn]:
        """The turns whose memory is still to be derived once written: new ones and those stored
        before with their memory pending (an import interrupted between its two steps)."""
        return [p.turn for p in self.turns if self.found.get(p.message_id, True)]


@dataclass(frozen=True)
class AppendedTurn:
    """A text turn after :meth:`MessageStore.append_turn`: the message as :meth:`MessageStore.get`
    shows it; whether this call wrote it (else it was stored before: an idempotent replay);
    its context window, read in the same transaction (None on a replay or when not asked);
    whether its stored passage already names its people as they are stored (else the index
    step re-encodes it); and the earlier turns of its session left without memory."""

    view: dict[str, Any]
    written: bool
    context: MessageContext | None = None
    indexed: bool = False
    pending: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.view["id"])


@dataclass(frozen=True)
class ContextPerson:
    """A person as a context window shows them: participant (or anonymous voice) id, current
    name and aliases."""

    id: str
    name: str | None = None
    aliases: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ContextMessage:
    """One turn of a context window with its speaker, addressees (ids) and image captions."""

    id: str
    idx: int
    text: str
    ts: datetime | None
    speaker: ContextPerson | None
    given: list[str] = field(default_factory=list)  # client-given addressees
    addressed: list[str] = field(default_factory=list)  # given or called by name (vocative)
    captions: list[str] = field(default_factory=list)
    vocabulary: list[str] = field(default_factory=list)  # a spoken turn's ASR hints


@dataclass(frozen=True)
class MessageContext:
    """A message and the turns before it in its session (oldest first), plus the session's
    participants: what extraction reads a turn in."""

    session: str
    started_at: datetime | None
    turns: list[ContextMessage]
    roster: list[ContextPerson]
    # the session's people who first speak or are addressed after this turn: not in its roster
    later: list[ContextPerson] = field(default_factory=list)


@dataclass
class AudioMessage:
    """A spoken turn's message as written after voice routing (``message_audio_append``)."""

    session: str
    idx: int
    id: str
    text: str
    ts: str
    duration: float
    source: str  # audio | recording
    audio_uri: str | None
    start: float | None  # offset in the recording, s
    embedding: list[float]
    speaker_id: str
    voiceprint_id: str | None
    recording_id: str | None = None
    # names the ASR was told to expect (the turn's hints): a call by a name the ASR wrote at a
    # sentence start outside this list is read as a misheard word (extractors.offline)
    vocabulary: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.embedding = list(self.embedding)


class MessageStore:
    """Reads and writes ``Message`` nodes of one database, always scoped by space."""

    def __init__(
        self, db: Database, embedder: TextEmbedder, rrf_k: int = 60, sparse: SparseEncoder | None = None
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.sparse = sparse or sparse_encoder()
        self.rrf_k = rrf_k

    # --- writes ---------------------------------------------------------------------------
    def append(self, space: str, turn: Turn) -> dict[str, Any]:
        """Store one turn; returns the message view. Idempotent on ``turn.turn_id``."""
        return self.append_turn(space, turn).view

    def append_turn(
        self, space: str, turn: Turn, window: int | None = None, pending_age_s: float | None = None
    ) -> AppendedTurn:
        """Store one turn in ONE transaction and return what the turn's next steps need.

        The transaction: the session's turns an outage left without memory (``pending_age_s``
        given: older than that, so a derivation in flight is not taken), whether the turn is
        stored already (under its legacy or namespaced id: an idempotent replay), the session
        lock, its people found or created and locked in id order, the message (returned as
        :meth:`get` shows it) and, with ``window``, its context window of that many earlier
        turns. Reading these here rather than in their own transactions afterwards is the
        per-turn route's round-trip budget (docs/scaling.md); the reads see what the
        transaction wrote, and the session lock keeps other turns of the session out.
        """
        prepared = PreparedTurn.of(turn)
        text, speaker, addressees = prepared.text, prepared.speaker, prepared.addressees
        if turn.turn_id is None:
            candidates = [new_id("msg")]
        else:  # a turn stored before the namespaced ids keeps its legacy id (see turn_message_id)
            candidates = [legacy_turn_message_id(space, turn.turn_id), turn_message_id(space, turn.turn_id)]
        message_id = candidates[-1]
        # outside the transaction: no lock held while encoding; the speaker-aware passage is what
        # the embedding and the SPLADE terms describe (voxmem.passages)
        indexed = prepared.passage
        params: dict[str, Any] = {
            "space": space,
            "session": turn.session,
            "id": message_id,
            "text": text,
            "ts": iso_timestamp(turn.ts),
            "source": turn.source,
            "passage": indexed,
            **self._encode([indexed])[indexed],  # embedding, sparse_terms, sparse_weights
        }

        def work(tx: ManagedTransaction) -> AppendedTurn:
            pending = []
            if pending_age_s is not None:
                pending = self.memory_pending_in(tx, space, turn.session, pending_age_s, PENDING_LIMIT)
            if turn.turn_id is not None:
                found = tx.run(query("message_turn_find"), space=space, ids=candidates).single()
                if found is not None:
                    return AppendedTurn(_view(found.data()), written=False, pending=pending)
            idx = self.lock_session(tx, space, turn.session, params["ts"])
            # identity step of a text turn: its people by name, locked in id order (no deadlock
            # cycle) in the same statement (voxmem.stores.participants)
            ids = ParticipantStore.named(tx, space, [speaker, *addressees.values()], lock=True)
            row = tx.run(
                self.db.vector_query("message_append"),
                idx=idx,
                speaker_id=ids[speaker.key],
                addressee_ids=[ids[k] for k in addressees],
                **params,
            ).single()
            assert row is not None  # the session and the speaker were written just before
            view = _view(row.data())
            context = None if window is None else self.context_in(tx, space, message_id, window)
            return AppendedTurn(view, True, context, _passage_of(view) == indexed, pending)

        try:
            appended = self.db.write(work)
        except ConstraintError:  # a concurrent retry of the same turn_id won the race
            if turn.turn_id is None:
                raise
            appended = AppendedTurn(self.get(space, message_id), written=False)
        if not appended.written:
            check_replay(prepared, appended.view["session"], appended.view["text"])
        return appended

    # --- batch import (voxmem.pipeline.batch) ---------------------------------------------------
    def append_many(self, space: str, turns: Sequence[Turn]) -> list[StoredTurn]:
        """Store many text turns in ONE transaction; what :meth:`append` does for each, batched:
        :meth:`prepare_many` (checks and encoding, no lock held) then :meth:`write_many`."""
        return self.write_many(self.prepare_many(space, turns))

    @staticmethod
    def validate_many(turns: Sequence[Turn]) -> list[PreparedTurn]:
        """Each turn of a batch validated, with a ``turn_id`` and none twice; raises
        :class:`InvalidInput` for the first bad one, before anything of the batch is written."""
        prepared = [PreparedTurn.of(turn, require_id=True) for turn in turns]
        seen: set[str] = set()
        for item in prepared:
            if item.turn.turn_id in seen:
                raise InvalidInput(f"turn_id {item.turn.turn_id!r} appears twice in the batch")
            seen.add(item.turn.turn_id or "")
        return prepared

    def prepare_many(self, space: str, turns: Sequence[Turn]) -> PreparedBatch:
        """Everything :meth:`write_many` needs that takes no lock: the turns validated, those
        stored already found, the others' passages encoded in one batch through each model.

        Every turn needs a ``turn_id`` (a retried batch must not store anything twice): turns
        already stored become replays with their ``memory_pending`` state. All turns are
        validated first (:meth:`validate_many`): one bad turn refuses the whole batch (422). A
        batch importer prepares its next chunk while the previous one is written
        (:mod:`voxmem.pipeline.batch`); the write checks again what is stored by then.
        """
        prepared = self.validate_many(turns)
        candidates = {
            t.turn_id: (turn_message_id(space, t.turn_id), legacy_turn_message_id(space, t.turn_id))
            for t in (p.turn for p in prepared)
            if t.turn_id is not None
        }
        stored = self.db.read(
            lambda tx: self.stored_turns_in(tx, space, [i for pair in candidates.values() for i in pair])
        )
        for item in prepared:
            fresh, legacy = candidates[item.turn.turn_id or ""]
            item.message_id = legacy if legacy in stored else fresh
            if item.message_id in stored:  # a replay: the same turn, or the whole batch is refused
                check_replay(item, stored[item.message_id]["session"], stored[item.message_id]["text"])
        found = {i: bool(row["pending"]) for i, row in stored.items()}
        todo = [p for p in prepared if p.message_id not in found]
        return PreparedBatch(space, prepared, found, self._encode([p.passage for p in todo]))

    def write_many(self, batch: PreparedBatch) -> list[StoredTurn]:
        """Write a prepared batch in ONE transaction (per session: consecutive idx, NEXT chain):
        sessions locked, people found or created by name, one ``UNWIND`` statement for the
        messages and one for the NEXT chain. Returns every turn with its message id and status."""
        space, prepared, found, encoded = batch.space, batch.turns, batch.found, batch.encoded
        todo = [p for p in prepared if p.message_id not in found]

        def work(tx: ManagedTransaction) -> set[str]:
            next_idx = {
                session: self.lock_session(tx, space, session, iso_timestamp(first.turn.ts))
                for session, first in sorted({p.turn.session: p for p in reversed(todo)}.items())
            }  # sessions locked in name order, so two batches never wait on each other crosswise
            again = self.stored_turns_in(tx, space, [p.message_id for p in todo])  # a concurrent retry
            writing = [p for p in todo if p.message_id not in again]
            people = {p.key: p for item in writing for p in (item.speaker, *item.addressees.values())}
            ids = ParticipantStore.named(tx, space, list(people.values()), lock=True) if people else {}
            rows, links, sessions = [], [], {}
            for item in writing:
                turn, idx = item.turn, next_idx[item.turn.session]
                next_idx[turn.session] = idx + 1
                ts = iso_timestamp(turn.ts)
                rows.append(
                    {
                        "session": turn.session,
                        "id": item.message_id,
                        "idx": idx,
                        "text": item.text,
                        "ts": ts,
                        "source": turn.source,
                        "passage": item.passage,
                        **encoded[item.passage],
                        "speaker_id": ids[item.speaker.key],
                        "addressee_ids": [ids[k] for k in item.addressees],
                    }
                )
                if idx > 0:
                    links.append({"session": turn.session, "idx": idx})
                sessions[turn.session] = {"session": turn.session, "n_messages": idx + 1, "last_ts": ts}
            if rows:
                tx.run(self.db.vector_query("message_batch_append"), space=space, rows=rows).consume()
                tx.run(
                    query("message_batch_link"), space=space, links=links, sessions=list(sessions.values())
                ).consume()
            return {row["id"] for row in rows}

        written = self.db.write(work) if todo else set()
        return [
            StoredTurn(
                turn_id=p.turn.turn_id or "",
                session=p.turn.session,
                id=p.message_id,
                stored=p.message_id in written,
                pending=p.message_id in written or found.get(p.message_id, False),
            )
            for p in prepared
        ]

    def _encode(self, passages: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Embedding and SPLADE fields of each distinct passage (one batch through each model)."""
        unique = list(dict.fromkeys(passages))
        if not unique:
            return {}
        return {
            row.pop("passage"): {**row, "embedding": self.db.vector(row["embedding"])}
            for row in encode_passages(self.embedder, self.sparse, unique)
        }

    @staticmethod
    def stored_turns_in(
        tx: ManagedTransaction, space: str, message_ids: Sequence[str]
    ) -> dict[str, dict[str, Any]]:
        """Which of these message ids are stored: id -> its session, text and whether its memory
        is still pending."""
        rows = tx.run(query("message_batch_existing"), space=space, ids=list(message_ids))
        return {row["id"]: row.data() for row in rows}

    def claim_pending(self, space: str, message_ids: Sequence[str], lease_s: float) -> int:
        """A batch import's claim on its stored turns still without memory, for ``lease_s``
        seconds: :meth:`memory_pending` (repair) skips claimed turns until the claim lapses."""
        rows = self.db.execute(
            query("message_batch_claim"), space=space, ids=list(message_ids), lease_s=lease_s
        )
        return int(rows[0]["claimed"]) if rows else 0

    def memory_done_many(self, space: str, message_ids: Sequence[str]) -> int:
        """Clear the pending mark of many turns whose memory is derived (one statement)."""
        rows = self.db.execute(query("message_batch_memory_done"), space=space, ids=list(message_ids))
        return int(rows[0]["done"]) if rows else 0

    # --- steps of a write, inside the caller's transaction ---------------------------------------
    @staticmethod
    def exists_in(tx: ManagedTransaction, space: str, message_id: str) -> bool:
        return tx.run(query("message_get"), space=space, id=message_id).single() is not None

    @staticmethod
    def lock_session(tx: ManagedTransaction, space: str, session: str, ts: str) -> int:
        """Take the session's lock (creating the session on first use); the next message's idx.
        Concurrent appends queue here, so idx has no duplicates and NEXT never forks."""
        row = tx.run(query("session_lock"), space=space, session=session, ts=ts).single()
        if row is None:
            raise NotFound(f"unknown space {space!r}")
        return row["next_idx"]

    @staticmethod
    def append_audio(tx: ManagedTransaction, space: str, message: AudioMessage) -> None:
        """Write a spoken turn's Message with SPOKEN_AS/SPEAKS (after :meth:`lock_session`)."""
        fields = asdict(message)
        fields.pop("recording_id")
        tx.run(query("message_audio_append"), space=space, **fields).consume()
        if message.recording_id is not None:
            tx.run(
                query("recording_mark"), space=space, id=message.id, recording_id=message.recording_id
            ).consume()

    # --- turns whose memory is not derived yet -------------------------------------------------
    def memory_pending(
        self, space: str | None, session: str | None, min_age_s: float, limit: int
    ) -> list[tuple[str, str]]:
        """(space, message id) of turns stored without their memory, oldest first: of one
        session (``space`` and ``session`` given) or of every space (both None); turns a
        running batch import claimed (:meth:`claim_pending`) are left to it."""
        if space is not None and session is not None:
            ids = self.db.read(lambda tx: self.memory_pending_in(tx, space, session, min_age_s, limit))
            return [(space, i) for i in ids]
        if space is None and session is None:
            rows = self.db.query(query("message_memory_pending"), min_age_s=min_age_s, limit=limit)
            return [(row["space"], row["id"]) for row in rows]
        raise ValueError("give both space and session, or neither")

    @staticmethod
    def memory_pending_in(
        tx: ManagedTransaction, space: str, session: str, min_age_s: float, limit: int
    ) -> list[str]:
        """:meth:`memory_pending` of one session inside the caller's transaction (a text turn's
        write reads them with its own message)."""
        rows = tx.run(
            query("message_memory_pending_session"),
            space=space,
            session=session,
            min_age_s=min_age_s,
            limit=limit,
        )
        return [row["id"] for row in rows]

    def memory_done(self, space: str, message_id: str) -> None:
        self.db.write(lambda tx: self.memory_done_in(tx, space, message_id))

    @staticmethod
    def memory_done_in(tx: ManagedTransaction, space: str, message_id: str) -> None:
        """Clear a turn's pending mark inside the caller's transaction: the memory writer's,
        so a turn's memory and its mark commit together (voxmem.memory.writer)."""
        tx.run(query("message_memory_done"), space=space, id=message_id).consume()

    # --- recordings: the messages of one whole-recording job ---------------------------------
    def recording_state(self, space: str, recording_id: str) -> dict[str, Any]:
        """``complete`` (a Recording node exists), ``n`` stored turns and their ``sessions``."""
        return self.db.query(query("recording_exists"), space=space, recording_id=recording_id)[0]

    def recording_turns(self, space: str, recording_id: str) -> list[dict[str, Any]]:
        """The stored turns of a recording (id, start, duration, speaker_id), to resume it."""
        return self.db.query(query("recording_turns"), space=space, recording_id=recording_id)

    def complete_recording(
        self, space: str, recording_id: str, session: str, turns: int, duration_s: float, resumed: int
    ) -> None:
        """The Recording node: a finished job, so posting it again is refused."""
        self.db.execute(
            query("recording_complete"),
            space=space,
            recording_id=recording_id,
            session=session,
            turns=turns,
            duration_s=duration_s,
            resumed_turns=resumed,
        )

    def session_is_new(self, space: str, session: str) -> bool:
        """No message in ``session`` yet (its first turn is about to be written)."""
        rows = self.db.query(query("session_has_messages"), space=space, session=session)
        return not (rows and rows[0]["has_messages"])

    def turn_message_id(self, space: str, turn_id: str | None) -> str:
        """The message id for a turn: namespaced (:func:`voxmem.ids.turn_message_id`), or the
        legacy ``<space>:<turn_id>`` when this space already stored the turn under it, so a
        retry of a turn stored before the change stays idempotent; a fresh id without a turn id."""
        if turn_id is None:
            return new_id("msg")
        legacy = legacy_turn_message_id(space, turn_id)
        return legacy if self.exists(space, legacy) else turn_message_id(space, turn_id)

    # --- reads ----------------------------------------------------------------------------
    def exists(self, space: str, message_id: str) -> bool:
        rows = self.db.query(query("message_get"), space=space, id=message_id)
        return bool(rows) and rows[0]["message"] is not None

    def sessions(self, space: str, limit: int = 100) -> list[dict[str, Any]]:
        """Sessions of the space, latest first, with size and span (``SessionOut``)."""
        return self.db.query(query("session_list"), space=space, limit=limit)

    def routing(self, space: str, message_id: str) -> dict[str, Any] | None:
        """How the voice router decided a spoken turn's speaker (its RoutingDecision), if any."""
        rows = self.db.query(query("routing_for_message"), space=space, message_id=message_id)
        return rows[0] if rows else None

    def get(self, space: str, message_id: str) -> dict[str, Any]:
        rows = self.db.query(query("message_get"), space=space, id=message_id)
        if not rows or rows[0]["message"] is None:
            raise NotFound(f"unknown message {message_id!r}")
        return _view(rows[0])

    def in_order(self, space: str, session: str | None = None) -> list[str]:
        """Message ids of one session (or of the whole space) in conversation order."""
        rows = self.db.query(query("memory_session_messages"), space=space, session=session)
        return [row["id"] for row in rows]

    def unmapped_speakers(self, space: str, message_ids: list[str]) -> list[str]:
        """Anonymous voices (Speaker ids) of these messages that have no speaking participant yet."""
        rows = self.db.query(query("memory_speakers_unmapped"), space=space, ids=message_ids)
        return [row["speaker_id"] for row in rows]

    def context(self, space: str, message_id: str, previous: int) -> MessageContext:
        """A stored message with up to ``previous`` earlier turns of its session, speakers with
        their current identities, and the session's participants (one read query)."""
        return self.db.read(lambda tx: self.context_in(tx, space, message_id, previous))

    @staticmethod
    def context_in(tx: ManagedTransaction, space: str, message_id: str, previous: int) -> MessageContext:
        """:meth:`context` inside the caller's transaction (a batch derivation reads a turn's
        window again after the memory of the turns before it, written in the same transaction,
        changed it)."""
        found = MessageStore.contexts_in(tx, space, [message_id], previous)
        if message_id not in found:
            raise NotFound(f"unknown message {message_id!r}")
        return found[message_id]

    @staticmethod
    def contexts_in(
        tx: ManagedTransaction, space: str, message_ids: Sequence[str], previous: int
    ) -> dict[str, MessageContext]:
        """The windows of several messages in one statement (a batch chunk's, read once),
        keyed by message id; unknown ids are missing."""
        rows = [
            r.data() for r in tx.run(query("memory_window"), space=space, ids=list(message_ids), n=previous)
        ]
        return {
            row["id"]: MessageContext(
                session=row["session"],
                started_at=native_time(row["started_at"]),
                turns=[
                    ContextMessage(
                        id=t["id"],
                        idx=t["idx"],
                        text=t["text"],
                        ts=native_time(t["ts"]),
                        speaker=_context_person(t["speaker"]) if t["speaker"] else None,
                        # sorted (and the roster by id): a batch import adds a turn's vocatives
                        # and new participants to the later windows it has already read
                        # (voxmem.pipeline.batch), in this same order
                        given=sorted(t["given"] or []),
                        addressed=sorted(t["addressed"] or []),
                        captions=list(t["captions"] or []),
                        vocabulary=list(t["vocabulary"] or []),
                    )
                    for t in row["turns"]
                ],
                roster=sorted((_context_person(p) for p in row["roster"]), key=lambda p: p.id),
                later=[_context_person(p) for p in row["later"]],
            )
            for row in rows
        }

    def list(
        self,
        space: str,
        session: str | None = None,
        speaker: str | None = None,
        addressee: str | None = None,
        skip: int = 0,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        rows = self.db.query(
            query("messages_list"),
            space=space,
            session=session,
            speaker=participant_ref(speaker),
            addressee=participant_ref(addressee),
            skip=skip,
            limit=limit,
        )
        return [_view(row) for row in rows]

    def search(self, space: str, text: str, k: int = 10) -> builtins.list[dict[str, Any]]:
        """Full-text and vector search fused by reciprocal rank fusion (RRF)."""
        text = text.strip()
        if not text:
            raise InvalidInput("search text is empty")
        fetch = max(100, 20 * k)
        lucene = lucene_query(text)
        fulltext = self.db.query(query("messages_fulltext"), space=space, lucene=lucene, fetch=fetch, k=k * 3)
        vector_in = self.embedder.embed_queries([text])[0].tolist()
        vector = self.db.query(
            query("messages_vector"), space=space, embedding=vector_in, fetch=fetch, k=k * 3
        )
        if len(vector) < k:
            vector = self.db.query(query("messages_vector_exact"), space=space, embedding=vector_in, k=k * 3)
        fused = rrf([[r["id"] for r in fulltext], [r["id"] for r in vector]], k=self.rrf_k)
        ranked = sorted(fused.items(), key=lambda item: -item[1])[:k]
        hits = []
        for message_id, score in ranked:
            view = self.get(space, message_id)
            view["score"] = round(score, 6)
            view["matched_by"] = [
                name
                for name, rows in (("fulltext", fulltext), ("vector", vector))
                if any(r["id"] == message_id for r in rows)
            ]
            hits.append(view)
        return hits


def _view(row: dict[str, Any]) -> dict[str, Any]:
    message = dict(row["message"])
    message["speaker"] = row.get("speaker")
    message["addressees"] = sorted(row.get("addressees") or [], key=lambda a: (a["name"] or "", a["id"]))
    return message


_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_WORDS = {"AND", "OR", "NOT", "TO"}


def lucene_query(text: str) -> str:
    """Turn free text into a safe Lucene OR-query: specials and operators removed, stop words dropped."""
    tokens = [w for w in _LUCENE_SPECIAL.sub(" ", text).split() if w not in _LUCENE_WORDS]
    words = [w for w in tokens if w.lower() not in SEARCH_STOP_WORDS] or tokens
    if not words:
        raise InvalidInput("search text has no searchable words")
    return " OR ".join(_bounded_terms(words))


# Lucene refuses a query of more than 1024 clauses (TooManyClauses, a 500 once), and the
# analyzer makes one clause per CJK character, so the query keeps at most this many
# characters of words: a longer search text is cut, never refused.
MAX_QUERY_CHARS = 256


def _bounded_terms(words: list[str]) -> list[str]:
    kept: list[str] = []
    used = 0
    for word in dict.fromkeys(words):  # a repeated word adds a clause and nothing else
        if used + len(word) > MAX_QUERY_CHARS:
            if not kept:
                kept.append(word[:MAX_QUERY_CHARS])
            break
        kept.append(word)
        used += len(word)
    return kept


def rrf(rankings: list[list[str]], k: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion: each list adds 1 / (k + rank) for each id it ranks (rank from 1)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def _passage_of(view: dict[str, Any]) -> str:
    """The passage of a stored message from its view, as the indexer computes it
    (``message_index_read``: the speaker's and the given addressees' stored names)."""
    speaker = view.get("speaker") or {}
    named = sorted(a["name"] for a in view["addressees"] if a.get("name"))
    return passage(view["text"], speaker.get("name"), named)


def _context_person(row: dict[str, Any]) -> ContextPerson:
    return ContextPerson(row["id"], row.get("name"), list(row.get("aliases") or []))
