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

from voxmem.errors import NotFound
from voxmem.ids import new_id
from voxmem.stores.participants import ParticipantStore
from voxmem.stores.speakers import SpeakerStore
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
        return SpeakerStore.candidate_ids(
            tx,
            space,
            self.encoder_name,
            embedding,
            self.k,
            self.fetch,
            self.indexes.speaker_index,
            self.indexes.voiceprint_index if self.policy == "knn" else None,
        )

    def candidates(self, tx: ManagedTransaction, space: str, embedding: list[float]) -> list[SpeakerState]:
        ids = self.candidate_ids(tx, space, embedding)
        if not ids:
            return []
        return [
            SpeakerState(
                r.id,
                np.asarray(r.centroid, np.float32),
                r.n_obs,
                np.asarray(r.exemplars, dtype=np.float32) if r.exemplars else None,
            )
            for r in SpeakerStore.states(tx, space, ids, self.policy == "knn", self.max_exemplars)
        ]

    # --- routing (writes) ------------------------------------------------------------------------
    def lock(self, tx: ManagedTransaction, space: str) -> None:
        if not SpeakerStore.lock(tx, space):
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
            SpeakerStore.create(tx, space, speaker_id, self.encoder_name, vector)
            participant_id: str | None = ParticipantStore.for_new_speaker(
                tx, space, speaker_id, label=f"voice {speaker_id[4:10]}", source="voice"
            )
        else:
            assert decision.speaker_id is not None  # a LINK names the speaker it links to
            speaker_id = decision.speaker_id
            centroid = decision.new_centroid.tolist() if decision.new_centroid is not None else None
            SpeakerStore.observe(tx, space, speaker_id, centroid)
            participant_id = SpeakerStore.person(tx, space, speaker_id).participant_id
        decision.speaker_id = speaker_id
        vp_id, decision_id = new_id("vp"), new_id("rd")
        SpeakerStore.add_voiceprint(
            tx,
            space,
            vp_id,
            speaker_id,
            self.encoder_name,
            vector,
            message_id,
            decision.updated,
            {
                "id": decision_id,
                "decision": decision.action,
                "score": round(decision.score, 6),
                "margin": round(decision.margin, 6),
                "policy": decision.policy,
            },
            tuple(self.indexes.speaker_labels),
            tuple(self.indexes.voiceprint_labels),
        )
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
        if known and best is not None:
            person = SpeakerStore.person(tx, space, best)
            out["participant_id"] = person.participant_id
            out["participant_name"] = person.participant_name
        return out
