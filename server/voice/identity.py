"""Identity management: list voices, link a voice to a person by hand, merge / unmerge /
split voices, forget a person's voiceprints, and the post-session reconciliation.

Every change writes an AuditItem (kind ``identity_*``) with what was done and why, and
merges are reversible (:meth:`IdentityManager.unmerge`).

Reconciliation criteria (conservative, docs/voice.md): two active speakers of the same
encoder are merged only if (1) their centroid cosine is at least the encoder's calibrated
``merge`` threshold when they were heard in one session, or its lower ``merge_cross``
threshold when they never were (two people who talked together are two people; a voice back
through another channel drifts about as far as another person), (2) they are each other's
nearest eligible speaker, and (3) they are not identified as two different
*named* participants (that conflict is recorded as an AuditItem instead). The smaller
speaker (fewer observations) is merged into the larger one.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from voxmem.db import Database
from voxmem.errors import Conflict, InvalidInput, NotFound
from voxmem.ids import new_id
from voxmem.memory.fold import fold_person
from voxmem.stores.participants import ParticipantStore, Person
from voxmem.stores.speakers import SpeakerStore
from voxmem.voice.routing import MAX_RECONCILE_PASSES, normalise, reconcile_pairs
from voxmem.voice.thresholds import Thresholds


class IdentityManager:
    def __init__(
        self,
        db: Database,
        thresholds: Thresholds,
        encoder_name: str,
        follow: Callable[[str, str, str | None], None] | None = None,
    ) -> None:
        """``follow(space, participant_id, name)`` runs after a link, merge, unmerge or split
        commits, for the person whose messages it changed: the entry object passes the memory
        writer's, which renders texts with the person's name and re-indexes the "Name: text"
        passages of their messages (embeddings are computed outside the transaction); without
        it (tests of voices only) those stay as they were."""
        self.db = db
        self.thresholds = thresholds
        self.encoder_name = encoder_name
        self.speakers = SpeakerStore(db)
        self.follow = follow

    # --- reads ----------------------------------------------------------------------------------
    def list(self, space: str) -> list[dict[str, Any]]:
        return self.speakers.of_space(space)

    def _get(self, tx: ManagedTransaction, space: str, speaker_id: str) -> dict[str, Any]:
        row = SpeakerStore.get(tx, space, speaker_id)
        if row is None:
            raise NotFound(f"unknown speaker {speaker_id!r}")
        return row

    # --- link by hand ------------------------------------------------------------------------------
    def link(
        self, space: str, speaker_id: str, participant_id: str | None = None, name: str | None = None
    ) -> dict:
        """Identify a voice as a person by hand: the voice, its messages and, when nothing else is
        theirs, the person it was identified as before (usually an unnamed voice) end up on that
        person, in one transaction with an ``identity_link`` audit item naming the voice, the
        person and the person folded in. Why fold: that earlier person held what was said to and
        about the voice (ADDRESSES, facts, attributes, sessions, name evidence); left behind it was
        a second, voiceless copy of the speaker that who-said-what queries showed as someone else.
        The fold (:func:`voxmem.memory.fold.fold_person`) re-decides the slots it brought
        together in the same transaction, so the person never holds two current values of one.
        A retry (already linked by hand to that person) changes and audits nothing."""
        if (participant_id is None) == (name is None):
            raise InvalidInput("give exactly one of participant_id or name")

        def work(tx: ManagedTransaction) -> dict:
            before = self._get(tx, space, speaker_id)
            pid = participant_id
            if name is not None:
                person = Person.of(name)
                pid = ParticipantStore.named(tx, space, [person], source="manual")[person.key]
            assert pid is not None  # exactly one of participant_id and name was given
            out = SpeakerStore.identify_as(tx, space, speaker_id, pid, "manual", 1.0)
            if out is None:
                raise NotFound(f"unknown participant {pid!r}")
            previous = before["participant_id"]
            if previous == pid and before["identified_by"] == "manual":
                return {**out, "merged_participant_id": None}
            folded = previous not in (None, pid) and fold_person(tx, space, previous, pid, take_name=False)
            person_name = ParticipantStore.naming_states(tx, space, [pid])[0].name
            SpeakerStore.audit(
                tx,
                space,
                "identity_link",
                {
                    "speaker": speaker_id,
                    "participant": pid,
                    "name": person_name,
                    "previous_participant": previous,
                    "previous_name": before["participant_name"],
                    "folded": folded,
                },
            )
            return {
                **out,
                "participant_name": person_name,
                "merged_participant_id": previous if folded else None,
            }

        out = self.db.write(work)
        self._follow(space, out["participant_id"], out["participant_name"])
        return out

    def _follow(self, space: str, participant_id: str | None, name: str | None) -> None:
        if self.follow is not None and participant_id is not None:
            self.follow(space, participant_id, name)

    # --- merge / unmerge / split -----------------------------------------------------------------
    def merge(
        self, space: str, source: str, target: str, reason: str = "manual", score: float | None = None
    ) -> dict:
        if source == target:
            raise InvalidInput("cannot merge a speaker into itself")

        def work(tx: ManagedTransaction) -> dict:
            a, b = self._get(tx, space, source), self._get(tx, space, target)
            if a["merged_into"] or b["merged_into"]:
                raise Conflict("both speakers must be active (not already merged)")
            if a["centroid"] is None or b["centroid"] is None:
                raise Conflict("a forgotten speaker (voiceprints deleted) cannot be merged")
            if a["participant_key"] and b["participant_key"] and a["participant_key"] != b["participant_key"]:
                SpeakerStore.audit(
                    tx, space, "identity_conflict", {"source": source, "target": target, "reason": reason}
                )
                raise Conflict("the speakers are identified as two different named participants")
            na, nb = int(a["n_obs"]), int(b["n_obs"])
            centroid = normalise(na * np.asarray(a["centroid"]) + nb * np.asarray(b["centroid"]))
            SpeakerStore.merge(tx, space, source, target, centroid.tolist(), reason, score)
            # the surviving person: the named one if only the source is named, else the target's
            kept = a if a["participant_key"] and not b["participant_key"] else b
            survivor = kept["participant_id"]
            if survivor:
                SpeakerStore.identify_as(tx, space, target, survivor, "merge", 1.0)
            SpeakerStore.audit(
                tx,
                space,
                "identity_merge",
                {
                    "source": source,
                    "target": target,
                    "reason": reason,
                    "score": score,
                    "target_participant": survivor,
                },
            )
            return {
                "source": source,
                "target": target,
                "participant_id": survivor,
                "participant_name": kept["participant_name"],
                "reason": reason,
                "score": score,
            }

        out = self.db.write(work)  # the source's messages are the survivor's now: passages follow
        self._follow(space, out["participant_id"], out.pop("participant_name"))
        return out

    def unmerge(self, space: str, source: str) -> dict:
        def work(tx: ManagedTransaction) -> tuple[dict, str | None, str | None]:
            row = SpeakerStore.unmerge(tx, space, source)
            if row is None:
                if self._get(tx, space, source)["centroid"] is None:
                    raise Conflict(f"speaker {source!r} is a forgotten voice: its merge cannot be undone")
                raise NotFound(f"speaker {source!r} is not merged into another")
            # messages of the restored voice are spoken again by its own participant
            own = self._get(tx, space, source)
            if own["participant_id"]:
                SpeakerStore.identify_as(tx, space, source, own["participant_id"], "unmerge", 1.0)
            SpeakerStore.audit(tx, space, "identity_unmerge", {"source": source, "target": row["target"]})
            return row, own["participant_id"], own["participant_name"]

        row, own, name = self.db.write(work)
        self._follow(space, own, name)
        return row

    def split(self, space: str, speaker_id: str, message_ids: builtins.list[str]) -> dict:
        if not message_ids:
            raise InvalidInput("give the message ids that belong to another voice")

        def work(tx: ManagedTransaction) -> tuple[dict, str | None]:
            self._get(tx, space, speaker_id)
            moved = SpeakerStore.voiceprints(tx, space, speaker_id, message_ids)
            rest = SpeakerStore.voiceprints(tx, space, speaker_id, None)
            keep = [r for r in rest if r["message_id"] not in set(message_ids)]
            if not moved or not keep:
                raise InvalidInput(
                    "a split needs voiceprints on both sides (some but not all of the messages)"
                )
            new_spk = new_id("spk")
            centroid = normalise(np.mean([r["embedding"] for r in moved], axis=0))
            SpeakerStore.split(
                tx, space, speaker_id, message_ids, new_spk, centroid.tolist(), self.encoder_name
            )
            ParticipantStore.for_new_speaker(
                tx, space, new_spk, label=f"voice {new_spk[4:10]}", source="split"
            )
            remaining = normalise(np.mean([r["embedding"] for r in keep], axis=0))
            SpeakerStore.set_centroid(tx, space, speaker_id, remaining.tolist())
            new_pid = SpeakerStore.person(tx, space, new_spk).participant_id
            if new_pid:
                SpeakerStore.identify_as(tx, space, new_spk, new_pid, "split", 1.0)
            SpeakerStore.audit(
                tx,
                space,
                "identity_split",
                {"speaker": speaker_id, "new_speaker": new_spk, "messages": message_ids},
            )
            return {
                "speaker_id": speaker_id,
                "new_speaker_id": new_spk,
                "moved_voiceprints": len(moved),
            }, new_pid

        out, new_pid = self.db.write(work)
        self._follow(space, new_pid, None)  # the moved messages are an unnamed voice's again
        return out

    def forget_voice(self, space: str, participant_id: str) -> dict:
        def work(tx: ManagedTransaction) -> dict:
            row = SpeakerStore.forget_voice(tx, space, participant_id)
            if row is None or row["speakers"] == 0:
                raise NotFound(f"participant {participant_id!r} has no voice in this space")
            SpeakerStore.audit(tx, space, "identity_forget_voice", {"participant": participant_id, **row})
            return {"participant_id": participant_id, **row}

        return self.db.write(work)

    # --- reconciliation ------------------------------------------------------------------------------
    def reconcile(self, space: str, session: str | None = None, dry_run: bool = False) -> dict:
        """Merge fragments of one voice (criteria in the module docstring); returns what was merged.

        Runs passes until nothing merges (at most ``MAX_RECONCILE_PASSES``; one pass merges each
        speaker at most once, so three fragments of a voice need two), as the benchmark's
        in-memory router does; ``dry_run`` shows the first pass only."""
        out = self._reconcile_pass(space, session, dry_run)
        for _ in range(MAX_RECONCILE_PASSES - 1):
            if dry_run or not out["merged"]:
                break
            step = self._reconcile_pass(space, session, dry_run)
            if not step["merged"]:
                break
            out = {**step, "merged": out["merged"] + step["merged"]}
        return out

    def _reconcile_pass(self, space: str, session: str | None, dry_run: bool) -> dict:
        every = self.speakers.session_speakers(space, self.encoder_name)
        # the session's speakers are compared with every active speaker of the space
        rows = every if session is None else [r for r in every if session in r["sessions"]]
        if len(every) < 2:
            return {
                "merged": [],
                "conflicts": [],
                "considered": len(rows),
                "speakers": [r["id"] for r in every],
            }
        ids = [r["id"] for r in every]
        merges, pairs_in_conflict = reconcile_pairs(
            ids,
            np.stack([np.asarray(r["centroid"]) for r in every]),
            [int(r["n_obs"]) for r in every],
            self.thresholds.merge,
            keys=[r["participant_key"] for r in every],
            focus={r["id"] for r in rows},
            sessions=[set(r["sessions"]) for r in every],
            cross_threshold=self.thresholds.merge_cross_threshold,
        )
        # A manual split ("these turns are someone else") is a correction reconciliation must
        # not undo, now that it also runs automatically when a new session starts.
        split_from = {r["id"]: r.get("split_from") for r in every}
        merges = [(a, b, sc) for a, b, sc in merges if split_from.get(a) != b and split_from.get(b) != a]
        merged = []
        for source, target, score in merges:
            rounded = round(score, 4)
            entry = {"source": source, "target": target, "score": rounded}
            if not dry_run:
                self.merge(space, source, target, reason="reconciliation", score=rounded)
            merged.append(entry)
        conflicts = [{"speakers": [a, b], "score": round(sc, 4)} for a, b, sc in pairs_in_conflict]
        return {
            "merged": merged,
            "conflicts": conflicts,
            "considered": len(rows),
            "threshold": self.thresholds.merge,
            "cross_session_threshold": self.thresholds.merge_cross_threshold,
            "speakers": ids,
        }
