"""Speakers (anonymous voices), their voiceprints and routing decisions: the only code that
runs Cypher for them.

The voice router (``voxmem.voice.router``) and identity management (``voxmem.voice.identity``)
decide; this store reads and writes. Almost every step runs inside the caller's transaction
(routing locks the space's voices first), so the methods take it; the unnamed person a new
voice is identified as is created by :class:`voxmem.stores.participants.ParticipantStore`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.ids import new_id


@dataclass(frozen=True)
class StoredSpeaker:
    """A routing candidate: centroid, observation count and (knn only) its exemplars."""

    id: str
    centroid: list[float]
    n_obs: int
    exemplars: list[list[float]] | None


@dataclass(frozen=True)
class SpeakerPerson:
    """The participant a voice is identified as."""

    participant_id: str | None
    participant_name: str | None


class SpeakerStore:
    """Reads and writes ``Speaker``/``Voiceprint``/``RoutingDecision`` nodes, scoped by space."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- routing --------------------------------------------------------------------------------
    @staticmethod
    def lock(tx: ManagedTransaction, space: str) -> bool:
        """Take the space's voice lock (routing decisions of one space queue); False: no space."""
        return tx.run(query("speaker_lock"), space=space).single() is not None

    @staticmethod
    def candidate_ids(
        tx: ManagedTransaction,
        space: str,
        encoder: str,
        embedding: list[float],
        k: int,
        fetch: int,
        speaker_index: str,
        voiceprint_index: str | None = None,
    ) -> list[str]:
        """Nearest voices by the vector indexes (centroids; exemplars too with a voiceprint
        index), then an exact scan of the space when the over-fetch found fewer than ``k``."""
        params: dict[str, Any] = {"space": space, "encoder": encoder, "embedding": embedding, "k": k}
        ids = [
            r["id"] for r in tx.run(query("speaker_candidates"), index=speaker_index, fetch=fetch, **params)
        ]
        if voiceprint_index is not None:
            ids += [
                r["id"]
                for r in tx.run(query("voiceprint_candidates"), index=voiceprint_index, fetch=fetch, **params)
            ]
        if len(set(ids)) < k:  # index over-fetch exhausted by other spaces: exact scan of this one
            ids += [r["id"] for r in tx.run(query("speaker_candidates_exact"), **params)]
        return list(dict.fromkeys(ids))

    @staticmethod
    def states(
        tx: ManagedTransaction, space: str, ids: list[str], with_exemplars: bool, max_exemplars: int
    ) -> list[StoredSpeaker]:
        rows = tx.run(
            query("speaker_states"),
            space=space,
            ids=ids,
            with_exemplars=with_exemplars,
            max_exemplars=max_exemplars,
        )
        return [StoredSpeaker(r["id"], r["centroid"], int(r["n_obs"]), r["exemplars"] or None) for r in rows]

    @staticmethod
    def create(
        tx: ManagedTransaction, space: str, speaker_id: str, encoder: str, embedding: list[float]
    ) -> None:
        tx.run(
            query("speaker_create"), space=space, id=speaker_id, encoder=encoder, embedding=embedding
        ).consume()

    @staticmethod
    def observe(tx: ManagedTransaction, space: str, speaker_id: str, centroid: list[float] | None) -> None:
        """One more observation of a voice; ``centroid`` None leaves it where it is."""
        tx.run(query("speaker_observe"), space=space, id=speaker_id, centroid=centroid).consume()

    @staticmethod
    def person(tx: ManagedTransaction, space: str, speaker_id: str) -> SpeakerPerson:
        row = tx.run(query("speaker_participant"), space=space, id=speaker_id).single()
        if row is None:
            return SpeakerPerson(None, None)
        return SpeakerPerson(row["participant_id"], row["participant_name"])

    @staticmethod
    def add_voiceprint(
        tx: ManagedTransaction,
        space: str,
        vp_id: str,
        speaker_id: str,
        encoder: str,
        embedding: list[float],
        message_id: str | None,
        updated: bool,
        decision: dict[str, Any],
        speaker_labels: tuple[str, ...] = (),
        voiceprint_labels: tuple[str, ...] = (),
    ) -> None:
        """The observation's Voiceprint and the RoutingDecision that placed it; the extra labels
        put both into an encoder's own vector indexes."""
        tx.run(
            query("voiceprint_create"),
            space=space,
            vp_id=vp_id,
            speaker_id=speaker_id,
            encoder=encoder,
            embedding=embedding,
            message_id=message_id,
            updated=updated,
            decision=decision,
        ).consume()
        if speaker_labels or voiceprint_labels:
            tx.run(
                query("voice_index_labels"),
                space=space,
                speaker_id=speaker_id,
                vp_id=vp_id,
                speaker_labels=list(speaker_labels),
                voiceprint_labels=list(voiceprint_labels),
            ).consume()

    # --- identity management ------------------------------------------------------------------
    def of_space(self, space: str) -> list[dict[str, Any]]:
        return self.db.query(query("speaker_list"), space=space)

    def session_speakers(self, space: str, encoder: str) -> list[dict[str, Any]]:
        """Active speakers of one encoder with their centroids and sessions (reconciliation)."""
        return self.db.query(query("speaker_session_speakers"), space=space, encoder=encoder)

    @staticmethod
    def get(tx: ManagedTransaction, space: str, speaker_id: str) -> dict[str, Any] | None:
        row = tx.run(query("speaker_get"), space=space, id=speaker_id).single()
        return None if row is None else row.data()

    @staticmethod
    def audit(tx: ManagedTransaction, space: str, kind: str, detail: dict[str, Any]) -> None:
        """An AuditItem for an identity change (kind ``identity_*``)."""
        tx.run(
            query("speaker_audit"), space=space, id=new_id("audit"), kind=kind, detail=json.dumps(detail)
        ).consume()

    @staticmethod
    def identify_as(
        tx: ManagedTransaction,
        space: str,
        speaker_id: str,
        participant_id: str,
        source: str,
        confidence: float,
    ) -> dict[str, Any] | None:
        row = tx.run(
            query("speaker_identify_as"),
            space=space,
            id=speaker_id,
            participant_id=participant_id,
            source=source,
            confidence=confidence,
        ).single()
        return None if row is None else row.data()

    @staticmethod
    def merge(
        tx: ManagedTransaction,
        space: str,
        source: str,
        target: str,
        centroid: list[float],
        reason: str,
        score: float | None,
    ) -> None:
        tx.run(
            query("speaker_merge"),
            space=space,
            source=source,
            target=target,
            centroid=centroid,
            reason=reason,
            score=score,
        ).consume()

    @staticmethod
    def unmerge(tx: ManagedTransaction, space: str, source: str) -> dict[str, Any] | None:
        row = tx.run(query("speaker_unmerge"), space=space, source=source).single()
        return None if row is None else row.data()

    @staticmethod
    def voiceprints(
        tx: ManagedTransaction, space: str, speaker_id: str, message_ids: list[str] | None
    ) -> list[dict[str, Any]]:
        """A voice's voiceprint embeddings (with their message ids), of these messages or all."""
        return tx.run(
            query("voiceprint_embeddings"), space=space, id=speaker_id, message_ids=message_ids
        ).data()

    @staticmethod
    def split(
        tx: ManagedTransaction,
        space: str,
        speaker_id: str,
        message_ids: list[str],
        new_id_: str,
        centroid: list[float],
        encoder: str,
    ) -> None:
        tx.run(
            query("speaker_split"),
            space=space,
            id=speaker_id,
            message_ids=message_ids,
            new_id=new_id_,
            centroid=centroid,
            encoder=encoder,
        ).consume()

    @staticmethod
    def set_centroid(tx: ManagedTransaction, space: str, speaker_id: str, centroid: list[float]) -> None:
        tx.run(query("speaker_set_centroid"), space=space, id=speaker_id, centroid=centroid).consume()

    @staticmethod
    def forget_voice(tx: ManagedTransaction, space: str, participant_id: str) -> dict[str, Any] | None:
        """Delete a person's voiceprints (their voices keep no centroid); counts, or None."""
        row = tx.run(
            query("voiceprint_delete_for_participant"), space=space, participant_id=participant_id
        ).single()
        return None if row is None else row.data()
