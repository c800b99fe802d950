"""The online speaker router on Neo4j: one turn's routing inside the caller's transaction.

Order inside the transaction (why): take the space's voice lock first, so concurrent turns
of one space are routed strictly one after another and see each other's speakers; find
candidates through the native vector indexes (``speaker_centroid``; ``voiceprint_embedding``
for knn), fall back to an exact scan of the space when the shared index's over-fetch leaves
too few of this space's speakers; re-score the candidates exactly with
:func:`voxmem.voice.routing.decide`; then write the Speaker (new or updated), the
Voiceprint and the RoutingDecision. Nothing here commits: the caller's transaction does,
together with the Message, or nothing is written at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from neo4j import ManagedTransaction

from voxmem.cypher import query
from voxmem.errors import NotFound
from voxmem.ids import new_id
from voxmem.stores.participants import ParticipantStore
from voxmem.voice.routing import Decision, SpeakerState, asker_match, check_routing_policy, decide
from voxmem.voice.thresholds import Thresholds


@dataclass(frozen=True)
class VoiceIndexes:
    """Where one encoder's vectors live: the vector indexes the router queries and the extra
    labels that put its new nodes into them. Why labels: Neo4j indexes one label+property at one
    dimension, so the fused encoder's 512-d vectors (``Speaker.centroid``,
    ``Voiceprint.embedding``, as for every encoder) need their own labels and indexes (migration
    0005); the 256-d indexes skip vectors of another dimension."""

    speaker_index: str = "speaker_centroid"
    voiceprint_index: str = "voiceprint_embedding"
    speaker_labels: tuple[str, ...] = ()
    voiceprint_labels: tuple[str, ...] = ()


FUSED_INDEXES = VoiceIndexes(
    "speaker_centroid_fused", "voiceprint_embedding_fused", ("FusedSpeaker",), ("FusedVoiceprint",)
)


def indexes_for(encoder: str) -> VoiceIndexes:
    """The vector indexes of an encoder (by its configured name, e.g. ``fused``)."""
    return FUSED_INDEXES if encoder == "fused" else VoiceIndexes()


@dataclass
class RoutedTurn:
    speaker_id: str
    participant_id: str | None
    voiceprint_id: str
    decision_id: str
    decision: Decision


class SpeakerRouter:
    """Routes voice embeddings of one encoder with one policy; stateless between calls."""

    def __init__(
        self,
        encoder_name: str,
        policy: str,
        thresholds: Thresholds,
        ema_weight: float = 0.1,
        k: int = 10,
        fetch: int = 200,
        max_exemplars: int = 50,
        indexes: VoiceIndexes = VoiceIndexes(),
    ) -> None:
        self.encoder_name = encoder_name
        self.indexes = indexes
        self.policy = check_routing_policy(policy)
        self.thresholds = thresholds
        self.ema_weight = ema_weight
        self.k = k
        self.fetch = fetch
        self.max_exemplars = max_exemplars

    # --- candidate look-up ---------------------------------------------------------------------
    def candidate_ids(self, tx: ManagedTransaction, space: str, embedding: list[float]) -> list[str]:
        params = {"space": space, "encoder": self.encoder_name, "embedding": embedding, "k": self.k}
        ix = self.indexes
        ids = [
            r["id"]
            for r in tx.run(query("speaker_candidates"), index=ix.speaker_index, fetch=self.fetch, **params)
        ]
        if self.policy == "knn":
            ids += [
                r["id"]
                for r in tx.run(
                    query("voiceprint_candidates"), index=ix.voiceprint_index, fetch=self.fetch, **params
                )
            ]
        if len(set(ids)) < self.k:  # index over-fetch exhausted by other spaces: exact scan of this one
            ids += [r["id"] for r in tx.run(query("speaker_candidates_exact"), **params)]
        return list(dict.fromkeys(ids))

    def candidates(self, tx: ManagedTransaction, space: str, embedding: list[float]) -> list[SpeakerState]:
        ids = self.candidate_ids(tx, space, embedding)
        if not ids:
            return []
        rows = tx.run(
            query("speaker_states"),
            space=space,
            ids=ids,
            with_exemplars=self.policy == "knn",
            max_exemplars=self.max_exemplars,
        )
        states = []
        for r in rows:
            exemplars = np.asarray(r["exemplars"], dtype=np.float32) if r["exemplars"] else None
            states.append(
                SpeakerState(r["id"], np.asarray(r["centroid"], np.float32), int(r["n_obs"]), exemplars)
            )
        return states

    # --- routing (writes) ------------------------------------------------------------------------
    def lock(self, tx: ManagedTransaction, space: str) -> None:
        if tx.run(query("speaker_lock"), space=space).single() is None:
            raise NotFound(f"unknown space {space!r}")

    def route(
        self, tx: ManagedTransaction, space: str, embedding: np.ndarray, message_id: str | None
    ) -> RoutedTurn:
        """Decide and write one observation. The caller must have called :meth:`lock` in ``tx``."""
        e = np.asarray(embedding, dtype=np.float32)
        vector = e.tolist()
        decision = decide(
            e, self.candidates(tx, space, vector), self.policy, self.thresholds, self.ema_weight
        )
        if decision.action == "CREATE":
            speaker_id = new_id("spk")
            tx.run(
                query("speaker_create"),
                space=space,
                id=speaker_id,
                encoder=self.encoder_name,
                embedding=vector,
            ).consume()
            participant_id = ParticipantStore.for_new_speaker(
                tx, space, speaker_id, label=f"voice {speaker_id[4:10]}", source="voice"
            )
        else:
            speaker_id = decision.speaker_id
            centroid = decision.new_centroid.tolist() if decision.new_centroid is not None else None
            tx.run(query("speaker_observe"), space=space, id=speaker_id, centroid=centroid).consume()
            participant_id = tx.run(query("speaker_participant"), space=space, id=speaker_id).single()[
                "participant_id"
            ]
        decision.speaker_id = speaker_id
        vp_id, decision_id = new_id("vp"), new_id("rd")
        tx.run(
            query("voiceprint_create"),
            space=space,
            vp_id=vp_id,
            speaker_id=speaker_id,
            encoder=self.encoder_name,
            embedding=vector,
            message_id=message_id,
            updated=decision.updated,
            decision={
                "id": decision_id,
                "decision": decision.action,
                "score": round(decision.score, 6),
                "margin": round(decision.margin, 6),
                "policy": decision.policy,
            },
        ).consume()
        if self.indexes.speaker_labels or self.indexes.voiceprint_labels:
            tx.run(
                query("voice_index_labels"),
                space=space,
                speaker_id=speaker_id,
                vp_id=vp_id,
                speaker_labels=list(self.indexes.speaker_labels),
                voiceprint_labels=list(self.indexes.voiceprint_labels),
            ).consume()
        return RoutedTurn(speaker_id, participant_id, vp_id, decision_id, decision)

    def identify(self, tx: ManagedTransaction, space: str, embedding: np.ndarray) -> dict:
        """Read-only asker match: best speaker and its participant, or unknown; writes nothing."""
        e = np.asarray(embedding, dtype=np.float32)
        states = self.candidates(tx, space, e.tolist())
        d = decide(e, states, self.policy, self.thresholds, self.ema_weight)
        best, score, margin, known = asker_match(
            d.scores, {st.id: st.person for st in states}, self.thresholds
        )
        out = {
            "known": known,
            "speaker_id": best if known else None,
            "participant_id": None,
            "participant_name": None,
            "score": round(score, 6),
            "margin": round(margin, 6),
            "best_candidate": best,
        }
        if known:
            row = tx.run(query("speaker_participant"), space=space, id=best).single()
            out["participant_id"] = row["participant_id"]
            out["participant_name"] = row["participant_name"]
        return out
