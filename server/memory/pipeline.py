"""The memory pipeline: after a turn is stored, extract from its window and write memory.

Why here and not in MessageStore: data flows one way (messages → extraction → memory), so
the message store never imports memory code; the API route (and the audio ingest path)
call :meth:`MemoryPipeline.process_message` right after the append. Reprocessing and
participant deletion live here too because both must replay or undo exactly what this
pipeline derives.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from neo4j import ManagedTransaction
from tqdm import tqdm

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder
from voxmem.errors import NotFound
from voxmem.extractors.base import Extractor
from voxmem.extractors.window import Window, window_from_rows
from voxmem.ids import name_as_word, name_key
from voxmem.memory.writer import MemoryWriter, WriteSummary
from voxmem.stores.facts import FactStore
from voxmem.stores.messages import MessageContext, MessageStore
from voxmem.stores.participants import ParticipantStore

log = logging.getLogger(__name__)

CLEAR_BATCH = 200


class MemoryPipeline:
    def __init__(
        self,
        db: Database,
        embedder: TextEmbedder,
        extractor: Extractor,
        context_turns: int,
        *,
        messages: MessageStore,
        facts: FactStore,
        participants: ParticipantStore,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.extractor = extractor
        self.messages = messages  # the entry object's stores (voxmem.core.Voxmem owns them)
        self.facts = facts
        self.participants = participants
        self.context_turns = context_turns
        self.writer = MemoryWriter(db, embedder, facts)

    # --- per turn --------------------------------------------------------------------------
    def map_speakers(self, space: str, message_ids: list[str]) -> int:
        """Give every anonymous voice of these messages a Participant (identity mapping)."""
        speakers = self.messages.unmapped_speakers(space, message_ids)
        for speaker_id in speakers:
            self.participants.ensure_for_speaker(space, speaker_id)
        return len(speakers)

    def process_message(self, space: str, message_id: str) -> dict[str, Any]:
        """Extract and write memory for one stored turn (idempotent: re-running replaces)."""
        return self.derive_turn(space, message_id).as_dict()

    def derive_turn(
        self,
        space: str,
        message_id: str,
        context: MessageContext | None = None,
        done: Callable[[ManagedTransaction], None] | None = None,
    ) -> WriteSummary:
        """:meth:`process_message` for the turn pipeline. ``context``: the turn's window as its
        own write transaction read it (a text turn, whose speaker is a participant already, so
        no voice to map and no second read); ``done`` runs in the memory transaction
        (:meth:`MemoryWriter.write`)."""
        if context is None:
            self.map_speakers(space, [message_id])
            window = self.window(space, message_id)
        else:
            window = self.window_of(space, context)
        result = self.extractor.extract(window)
        return self.writer.write(space, window, result, done=done)

    def window(self, space: str, message_id: str) -> Window:
        """The stored turn in its context window (the message store reads it; extractors only
        ever see the window)."""
        return self.db.read(lambda tx: self.window_in(tx, space, message_id))

    def window_in(self, tx: ManagedTransaction, space: str, message_id: str) -> Window:
        """:meth:`window` inside the caller's transaction (a batch sees its own earlier memory)."""
        return self.window_of(space, MessageStore.context_in(tx, space, message_id, self.context_turns))

    def window_of(self, space: str, context: MessageContext) -> Window:
        """The extractor's window of a stored turn's context (a fresh object: writers change it)."""
        rows = asdict(context)
        window = window_from_rows(rows["turns"], rows["roster"], rows["session"], rows["started_at"])
        window.space = space
        return window

    # --- reprocessing ----------------------------------------------------------------------
    def reprocess(self, space: str, session: str | None = None, progress: bool = False) -> dict[str, Any]:
        """Re-run extraction for a session (or the whole space): derived memory is cleared
        and rebuilt in conversation order; messages, participants' voices, names given by
        hand and given addressees are untouched. Learned names, aliases and placeholders that
        only the cleared turns supported are undone first (``ParticipantStore.forget_learned``):
        otherwise the replay would start from what the first pass learned (a name already
        known, no placeholder to merge) and a second reprocess would not give the same memory."""
        ids = self.messages.in_order(space, session)
        if session is not None and not ids:
            raise NotFound(f"session {session!r} has no messages in space {space!r}")
        for start in range(0, len(ids), CLEAR_BATCH):
            self.db.execute(query("memory_clear_messages"), space=space, ids=ids[start : start + CLEAR_BATCH])
        forgotten = self.participants.forget_learned(space)
        totals: dict[str, int] = {
            "messages": len(ids),
            "facts": 0,
            "attributes": 0,
            "superseded": 0,
            "conflicts": 0,
            "addressees": 0,
        }
        for message_id in tqdm(ids, desc="reprocess", disable=not progress):
            summary = self.process_message(space, message_id)
            for key in ("facts", "attributes", "superseded", "conflicts"):
                totals[key] += summary[key]
            totals["addressees"] += len(summary["addressees"])
        for pid in forgotten:  # re-named by the replay or not: passages carry the current name
            self.writer.passages.reindex_participant(space, pid)
        self.writer.refresh_display(space)
        return {**totals, "extractor": self.extractor.name}

    # --- deletion --------------------------------------------------------------------------
    def delete_participant(self, space: str, participant_id: str) -> dict[str, Any]:
        """Delete a person: their messages and what was derived only from them, their
        profile, voices and audit items (those listing them and identity items quoting their id
        or voices), and the copies of their name the system made on what stays: the passages of
        others' turns given as addressed to them (passage, embedding and SPLADE terms removed in
        the transaction, re-indexed after the commit; ``voxmem index`` redoes what an outage
        left), their name among spoken turns' ASR hints (:func:`hints_without`) and in facts
        where the system wrote it for "you" (:func:`text_without_name`); then prove nothing
        orphaned or leaking remains. What other people said stays as they said it (their text,
        the facts they stated naming the person), as does what a reprocess of their turns
        would make of it again."""
        scope = self.db.query(query("participant_delete_scope"), space=space, id=participant_id)
        if not scope:
            raise NotFound(f"unknown participant {participant_id!r}")
        messages, speakers = scope[0]["messages"], scope[0]["speakers"]
        rewrites = self._texts_without_name(space, participant_id, messages)

        def work(tx: Any) -> dict[str, Any]:
            report: dict[str, Any] = {"participant": participant_id, "messages": len(messages)}
            for start in range(0, max(1, len(messages)), CLEAR_BATCH):
                tx.run(
                    query("memory_clear_messages"), space=space, ids=messages[start : start + CLEAR_BATCH]
                ).consume()
            report["attributes"] = tx.run(
                query("participant_delete_profile"), space=space, id=participant_id
            ).single()["deleted"]
            voices = tx.run(query("participant_delete_voices"), space=space, speakers=speakers).single()
            report["voiceprints"] = voices["voiceprints"] if voices else 0
            report["speakers"] = voices["speakers"] if voices else 0
            gone = tx.run(query("participant_delete_messages"), space=space, ids=messages).single()
            if gone and gone["sessions"]:
                tx.run(query("participant_relink_next"), space=space, sessions=gone["sessions"]).consume()
            report["reindex"] = tx.run(
                query("participant_delete_passages"), space=space, id=participant_id
            ).single()["ids"]
            report["hints"] = _forget_hints(tx, space, participant_id)
            report["texts"] = 0
            if rewrites:
                statement = self.db.vector_query("participant_delete_texts_set")
                report["texts"] = tx.run(statement, space=space, rows=rewrites).single()["updated"]
            report["audit_items"] = tx.run(
                query("participant_delete_node"), space=space, id=participant_id, speakers=speakers
            ).single()["audit_items"]
            return report

        report = self.db.write(work)
        report["reindexed"] = self.writer.passages.index(space, report.pop("reindex"))
        report["check"] = self.check(space, participant_id, messages, speakers)
        report["clean"] = all(v == 0 for v in report["check"].values())
        return report

    def _texts_without_name(
        self, space: str, participant_id: str, messages: list[str]
    ) -> list[dict[str, Any]]:
        """Rows for ``participant_delete_texts_set``: the facts and attributes that outlive the
        deletion and hold the person's name only because the system wrote it
        (:func:`text_without_name`), with the new text, caption and embedding. Embedded here,
        before the deletion's transaction, so the transaction writes them with everything else."""
        rows = self.db.query(
            query("participant_delete_named_texts"), space=space, id=participant_id, messages=messages
        )
        changed = []
        for row in rows:
            text = text_without_name(row["text"], row["names"], row["sources"])
            if text is not None:
                display = text_without_name(row["display"] or text, row["names"], row["sources"])
                changed.append(
                    {"id": row["id"], "old": row["text"], "text": text, "display": display or text}
                )
        if not changed:
            return []
        vectors = self.embedder.embed([c["text"] for c in changed])
        return [{**c, "embedding": self.db.vector(v)} for c, v in zip(changed, vectors, strict=True)]

    def check(
        self,
        space: str,
        participant_id: str | None = None,
        messages: list[str] | None = None,
        speakers: list[str] | None = None,
    ) -> dict[str, int]:
        """Counts of orphaned or leaking nodes in a space; all zero means clean."""
        rows = self.db.query(
            query("memory_check"),
            space=space,
            pid=participant_id,
            messages=messages or [],
            speakers=speakers or [],
        )
        return {k: int(v) for k, v in rows[0].items()}


SOMEONE = "someone"


def text_without_name(text: str, names: list[str], sources: list[str]) -> str | None:
    """A fact's or attribute's ``text`` with each of a deleted person's ``names`` that no
    supporting message says (``sources``: their texts and image captions) read as "someone";
    None when nothing was replaced. ``names``: their name, aliases, their ``{p_…}`` placeholder
    and its caption ("unnamed voice …"), the forms a text or a caption can hold them in.

    Why: a name in a remaining fact is either the speaker's own word ("Maya, your room is 412."
    -> "Maya's room is 412."), which is their memory and stays as they said it (a reprocess of
    their turns would write it again), or one the system wrote when it read "you" or an
    addressee as the person ("Your room is 412." said to Dave -> "Dave's room is 412."; to an
    unnamed voice -> "{p_…}'s room is 412.", a deleted id): a copy of the person that their
    existence alone put there. The fact itself stays (the speaker said it); "someone" keeps it
    readable without naming anybody. A source says the name in any case (the ASR may write
    "dave"); the text is rewritten only where it holds the name as stored (the system writes it
    so), so a person called May leaves "may" the verb alone."""
    out = text
    for name in sorted(set(names), key=len, reverse=True):
        said = name_as_word(name, re.IGNORECASE)
        if not any(said.search(source) for source in sources):
            out = name_as_word(name).sub(lambda m: SOMEONE.capitalize() if m.start() == 0 else SOMEONE, out)
    return out if out != text else None


def hints_without(hints: list[str], gone: set[str], kept: set[str]) -> list[str]:
    """A spoken turn's ASR hints without the names of a deleted person (``gone``: the name keys
    of their name and aliases) that no remaining person of the space bears (``kept``).

    Why every such hint goes, the client's own too: the stored list mixes the caller's hints
    with names the space gave (``with_known_names``) and does not say which is which; it has
    done its work (the transcript is written) and only serves the extractor re-reading the turn,
    where a deleted person's name would make a call to them ("Dave, ...") count as expected and
    bring back a placeholder of the person just deleted. A client that still wants the hint
    sends it with its next turn (hints are per turn). Why a remaining person's name stays: the
    hint is as much theirs, and removing it would change how their turns are re-read. Part of
    a multi-word name ("Dave" of "Dave Smith") is not the person's name key and stays: it may
    be anyone's."""
    return [word for word in hints if name_key(word) not in gone - kept]


def _forget_hints(tx: ManagedTransaction, space: str, participant_id: str) -> int:
    """Take a person about to be deleted out of the space's stored ASR hints (in the deletion's
    transaction, so no commit leaves their name behind); returns how many turns changed."""
    row = tx.run(query("participant_delete_hints"), space=space, id=participant_id).single()
    if row is None:
        return 0
    gone, kept = set(row["keys"]), set(row["kept"])
    rows = []
    for turn in row["hints"]:
        left = hints_without(list(turn["vocabulary"]), gone, kept)
        if left != list(turn["vocabulary"]):
            rows.append({"id": turn["id"], "vocabulary": left})
    if rows:
        tx.run(query("participant_delete_hints_set"), space=space, rows=rows).consume()
    return len(rows)
