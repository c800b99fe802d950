"""Bulk import: many text turns through the one turn pipeline's steps, batched.

The steps and their contract are the turn pipeline's (:mod:`voxmem.pipeline.turns`): identity
(speaker and addressees by name) and message in one transaction, stored ``memory_pending``;
then extraction → memory → index, after which the mark is cleared. What changes is the unit
of work, because a history of thousands of turns turned every per-turn cost (a model call per
turn, a transaction and ~10 round trips per turn, a space-wide caption refresh per turn) into
the whole cost:

1. **message** — all turns validated first (one bad turn refuses the batch, nothing
   written); then per chunk of :data:`WRITE_CHUNK` turns
   :meth:`voxmem.stores.messages.MessageStore.prepare_many` (turns already stored skipped:
   idempotent by ``turn_id``; passages encoded in one batch through MiniLM and SPLADE) and
   :meth:`~voxmem.stores.messages.MessageStore.write_many`: ONE transaction (sessions locked,
   people found or created by name, one ``UNWIND`` statement for the messages and one for the
   NEXT chain). A worker thread prepares the next chunk while this one is written and derived;
2. **extraction → memory** — in chunks of ``derive_chunk`` turns, ONE transaction per chunk:
   the chunk's earlier memory is cleared (a replay re-derives), the chunk's windows are read
   in ONE statement, then each turn in conversation order is extracted (pure function) and
   its identity step written. A turn's vocatives are added to the later windows that hold
   it, and people an earlier turn of the chunk named or made join the session are updated in
   them (:func:`_follow`; a merge makes the windows showing the two read again), so every turn
   sees exactly what the per-turn path shows it. The chunk's addressee edges, facts and
   attributes are staged and written together at the end
   (:meth:`voxmem.memory.writer.MemoryWriter.flush`: one candidate read, the pure rules over
   the chunk's statements in order, one ``UNWIND`` write per kind). The fact/attribute
   embeddings are looked up in a text → vector cache filled before the transaction by ONE
   model call over the texts the batch is expected to yield
   (:meth:`BatchImporter._expected_vectors`), so few are encoded while the chunk holds its
   locks;
3. **index** — passages re-read and re-encoded only where a naming changed them, then the
   chunk's ``memory_pending`` marks cleared in one statement.

Until its memory is derived, the importer *claims* each stored turn (``message_batch_claim``,
a lease of :data:`CLAIM_LEASE_S` renewed before each chunk): repair — at another process's
start-up or before another turn of the session — skips claimed turns, so it never derives an
import's later turns out of order while the importer is still on earlier chunks; if the
importer dies, the claim lapses and repair derives them.

A chunk that fails for another reason than Neo4j being down rolls back whole and its turns
are derived one by one through :meth:`voxmem.pipeline.turns.TurnPipeline.derive`; a turn
that still fails stays ``memory_pending`` (listed in the result, derived by ``repair``), so
no turn is left behind silently.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from neo4j import ManagedTransaction

from voxmem.errors import DatabaseUnavailable, InvalidInput
from voxmem.extractors.window import window_from_rows
from voxmem.memory.writer import PendingMemory, WriteSummary
from voxmem.stores.messages import (
    ContextPerson,
    MessageContext,
    MessageStore,
    PreparedBatch,
    StoredTurn,
    Turn,
)
from voxmem.stores.participants import ParticipantStore

if TYPE_CHECKING:
    from voxmem.pipeline.turns import TurnPipeline

log = logging.getLogger(__name__)

# Turns written per message transaction (and encoded per model batch). Larger batches are
# split, and the next chunk is encoded while this one is written and derived (BatchImporter.run):
# with 100, a 400-turn batch overlaps three of its four encoder passes with Neo4j work.
WRITE_CHUNK = 100
# Turns whose memory is derived per transaction.
DERIVE_CHUNK = 100
# How long the importer's claim on its not-yet-derived turns holds (renewed before each chunk,
# so a chunk may take this long): repair elsewhere leaves claimed turns alone, and takes them
# once the claim lapses (the importer died).
CLAIM_LEASE_S = 600


@dataclass
class BatchResult:
    """What one import did: every turn with its message id and status."""

    turns: list[StoredTurn] = field(default_factory=list)
    derived: int = 0
    pending: list[str] = field(default_factory=list)  # message ids whose memory is still missing
    facts: int = 0
    attributes: int = 0

    @property
    def stored(self) -> int:
        return sum(1 for t in self.turns if t.stored)

    @property
    def replayed(self) -> int:
        return sum(1 for t in self.turns if not t.stored)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stored": self.stored,
            "replayed": self.replayed,
            "derived": self.derived,
            "facts": self.facts,
            "attributes": self.attributes,
            "pending": self.pending,
            "turns": [
                {
                    "turn_id": t.turn_id,
                    "session": t.session,
                    "id": t.id,
                    "status": "stored" if t.stored else "replayed",
                }
                for t in self.turns
            ],
        }


class BatchImporter:
    """The turn pipeline's batch path (``TurnPipeline.import_turns``)."""

    def __init__(
        self, pipeline: TurnPipeline, write_chunk: int = WRITE_CHUNK, derive_chunk: int = DERIVE_CHUNK
    ) -> None:
        self.pipeline = pipeline
        self.write_chunk = write_chunk
        self.derive_chunk = derive_chunk

    def run(self, space: str, turns: Sequence[Turn]) -> BatchResult:
        """Store these turns with their memory (in order), idempotent by ``turn_id``.

        Chunk by chunk (:data:`WRITE_CHUNK` turns): the message transaction, then the memory
        transactions. The next chunk is prepared meanwhile in a worker thread: its passages
        encoded through MiniLM and SPLADE and its expected fact texts extracted and encoded
        (:meth:`_prepare`), so the encoders run while this thread waits on Neo4j. Why: the
        encoders are most of an import's CPU and Neo4j most of the rest; one after the other,
        each left a core idle (docs/scaling.md). ONNX Runtime and the driver release the GIL.
        """
        pipe = self.pipeline
        for turn in turns:
            if len(turn.text) > pipe.max_text_chars:
                raise InvalidInput(f"turn {turn.turn_id!r}: text longer than {pipe.max_text_chars} chars")
        MessageStore.validate_many(turns)  # one bad turn refuses the batch before any chunk is written
        result = BatchResult()
        # an outage may have left earlier turns of these sessions without memory: derive them
        # first, so extraction keeps conversation order (as append_text does per turn)
        for session in dict.fromkeys(t.session for t in turns):
            pipe.repair(space, session)
        if not turns:
            return result
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="voxmem-import") as ahead:
            following = ahead.submit(self._prepare, space, turns, 0)
            for start in range(0, len(turns), self.write_chunk):
                batch, known = following.result()
                if start + self.write_chunk < len(turns):
                    following = ahead.submit(self._prepare, space, turns, start + self.write_chunk)
                stored = pipe.messages.write_many(batch)
                result.turns.extend(stored)
                todo = [t.id for t in stored if t.pending]
                for first in range(0, len(todo), self.derive_chunk):
                    # ours until derived: a repair in another process must not take them
                    pipe.messages.claim_pending(space, todo[first:], CLAIM_LEASE_S)  # renewed per chunk
                    self._derive(space, todo[first : first + self.derive_chunk], result, known)
        return result

    def _prepare(
        self, space: str, turns: Sequence[Turn], start: int
    ) -> tuple[PreparedBatch, dict[str, list[float]]]:
        """The chunk of ``turns`` from ``start``, ready to write (:meth:`MessageStore.prepare_many`),
        and the vectors of the fact texts its turns are expected to yield (the batch's earlier
        turns as their context)."""
        batch = self.pipeline.messages.prepare_many(space, turns[start : start + self.write_chunk])
        pending = {turn.turn_id or "" for turn in batch.pending()}
        return batch, self._expected_vectors(space, turns[: start + self.write_chunk], pending)

    def _expected_vectors(
        self, space: str, turns: Sequence[Turn], wanted: set[str]
    ) -> dict[str, list[float]]:
        """Embeddings of the fact and attribute texts these turns are expected to yield, in ONE
        model call (a model call per turn was 65% of an import's time).

        The real extraction runs later, per turn, on the window read inside the memory
        transaction; here the same extractor runs on windows built from the batch alone (its
        speakers and given addressees, by name). A text the real run yields differently (a
        vocative or a name only the stored graph knows) is simply encoded then: this is a
        cache of text → vector, so it changes no result, only how many model calls are made.
        Only the turns in ``wanted`` (turn ids) are extracted; all of ``turns`` are context.
        """
        memory = self.pipeline.memory
        by_session: dict[str, list[Turn]] = {}
        people_of: dict[str, set[str]] = {}
        texts: list[str] = []
        for turn in turns:
            before = by_session.setdefault(turn.session, [])
            before.append(turn)
            people = people_of.setdefault(turn.session, set())
            people.update((turn.speaker, *turn.addressees))
            if turn.turn_id not in wanted:
                continue
            first = max(0, len(before) - (memory.context_turns + 1))
            rows = [
                {
                    "id": f"expected-{i}",
                    "idx": i,
                    "text": t.text.strip(),
                    "ts": t.ts,
                    "speaker": {"id": t.speaker, "name": t.speaker, "aliases": []},
                    "given": list(t.addressees),
                    "addressed": list(t.addressees),
                }
                for i, t in enumerate(before[first:], start=first)
            ]
            roster = [{"id": p, "name": p, "aliases": []} for p in sorted(people)]
            window = window_from_rows(rows, roster, turn.session, before[0].ts)
            window.space = space
            try:
                record = memory.extractor.extract(window).record
            except Exception:  # the real run will meet (and report) it; nothing to prefetch
                continue
            texts += [f.content for f in record.facts] + [a.text for a in record.attributes]
        unique = list(dict.fromkeys(texts))
        vectors = memory.embedder.embed(unique)
        return {text: vector.tolist() for text, vector in zip(unique, vectors, strict=True)}

    def _derive(
        self, space: str, ids: list[str], result: BatchResult, known: Mapping[str, list[float]]
    ) -> None:
        """Extraction → memory → index for a chunk of stored turns, then their marks cleared."""
        pipe = self.pipeline
        memory = pipe.memory

        def work(tx: ManagedTransaction) -> list[WriteSummary]:
            ParticipantStore.lock(tx, space, messages=ids)  # sessions, then people, in id order
            memory.writer.clear_in(tx, space, ids)
            windows = MessageStore.contexts_in(tx, space, ids, memory.context_turns)
            stale: set[str] = set()  # windows an earlier turn of the chunk changed: read again
            pending = PendingMemory()
            summaries = []
            for pos, message_id in enumerate(ids):
                if message_id in stale or message_id not in windows:
                    memory.writer.flush(tx, space, pending)  # the window reads the staged edges
                    window = memory.window_in(tx, space, message_id)
                else:
                    window = memory.window_of(space, windows[message_id])
                extraction = memory.extractor.extract(window)
                vectors = memory.writer.vectors(extraction, known)
                summary = memory.writer.write_in(tx, space, window, extraction, vectors, pending)
                summaries.append(summary)
                changed = sorted(summary.people_changed | summary.joined | summary.called)
                people = {
                    s.id: ContextPerson(s.id, s.name, list(s.aliases))
                    for s in (ParticipantStore.naming_states(tx, space, changed) if changed else [])
                }
                stale.update(_follow(summary, message_id, ids[pos + 1 :], windows, people))
            memory.writer.flush(tx, space, pending)
            return summaries

        try:
            memory.map_speakers(space, ids)
            summaries = pipe.db.write(work)
            memory.writer.after_write(space, summaries)
            pipe.indexer.index(space, ids)
            pipe.messages.memory_done_many(space, ids)
        except DatabaseUnavailable as exc:
            raise DatabaseUnavailable(
                f"{len(ids)} turn(s) are stored but their memory is not derived: {exc.message}; "
                "repeat the import (idempotent) once Neo4j is back to derive them"
            ) from exc
        except Exception:
            log.exception("batch derivation of %d turn(s) failed; deriving them one by one", len(ids))
            self._derive_each(space, ids, result)
            return
        result.derived += len(ids)
        result.facts += sum(s.facts for s in summaries)
        result.attributes += sum(s.attributes for s in summaries)

    def _derive_each(self, space: str, ids: list[str], result: BatchResult) -> None:
        for message_id in ids:
            try:
                summary = self.pipeline.derive(space, message_id)
            except DatabaseUnavailable:
                raise
            except Exception:
                log.exception("memory of %s could not be derived; it stays pending", message_id)
                result.pending.append(message_id)
                continue
            result.derived += 1
            result.facts += int(summary.get("facts", 0))
            result.attributes += int(summary.get("attributes", 0))


def _follow(
    summary: WriteSummary,
    message_id: str,
    later: Sequence[str],
    windows: dict[str, MessageContext],
    people: Mapping[str, ContextPerson],
) -> list[str]:
    """Bring the chunk's later windows (read before its first write) up to date with what this
    turn's write changed, as the graph now shows it; returns those that must be read again.

    A window shows its speakers and the session's roster (id, name, aliases) and its turns'
    ``addressed`` ids (given or vocative). So: people renamed or given an alias read with their
    new name (``people``: as the graph holds them now); people addressed by name who joined the
    session (a placeholder the call made, or someone the window left out because they speak only
    later: ``MessageContext.later``) enter the roster of its later windows; the vocatives this
    turn got are put into every later window that holds it (the edges are staged until the
    chunk's flush). A merge moves edges and deletes a person, and an answer re-points an earlier
    turn's edges: windows showing either are read again (rare)."""
    here = windows.get(message_id)
    vocatives = summary.vocatives
    stale = []
    for other in later:
        ctx = windows.get(other)
        if ctx is None:
            continue
        shown = {p.id for p in ctx.roster} | {t.speaker.id for t in ctx.turns if t.speaker}
        if summary.merged & shown or any(t.id in summary.readdressed for t in ctx.turns):
            stale.append(other)
            continue
        same = here is not None and ctx.session == here.session
        # present from the call on: a placeholder the call made, or someone who speaks later
        joined = summary.joined | (summary.called & {p.id for p in ctx.later}) if same else set()
        if joined - shown:
            ctx.roster.extend(people[p] for p in sorted(joined - shown) if p in people)
            ctx.roster.sort(key=lambda p: p.id)
        if people:
            ctx.roster[:] = [people.get(p.id, p) for p in ctx.roster]
        for i, row in enumerate(ctx.turns):
            if row.speaker is not None and row.speaker.id in people:
                row = ctx.turns[i] = replace(row, speaker=people[row.speaker.id])
            if row.id == message_id and not row.given:  # a turn with given addressees gets no edges
                ctx.turns[i] = replace(row, addressed=vocatives)
    return stale
