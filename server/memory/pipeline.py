"""The memory pipeline: after a turn is stored, extract from its window and write memory.

Why here and not in MessageStore: data flows one way (messages → extraction → memory), so
the message store never imports memory code; the API route (and the audio ingest path)
call :meth:`MemoryPipeline.process_message` right after the append. Reprocessing and
participant deletion live here too because both must replay or undo exactly what this
pipeline derives.
"""

from __future__ import annotations

import logging
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
        profile, voices and audit items; then prove nothing orphaned or leaking remains."""
        scope = self.db.query(query("participant_delete_scope"), space=space, id=participant_id)
        if not scope:
            raise NotFound(f"unknown participant {participant_id!r}")
        messages, speakers = scope[0]["messages"], scope[0]["speakers"]

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
            report["audit_items"] = tx.run(
                query("participant_delete_node"), space=space, id=participant_id
            ).single()["audit_items"]
            return report

        report = self.db.write(work)
        report["check"] = self.check(space, participant_id, messages, speakers)
        report["clean"] = all(v == 0 for v in report["check"].values())
        return report

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
