"""A whole multi-speaker recording → speaker turns → Messages (diarization by identification).

Pipeline: decode + validate → silero VAD speech regions (long regions cut into ≤ 6 s
pieces so a speaker change without a pause can still be seen) → one speaker embedding per
piece → online routing, in time order, against the space's known voices → adjacent pieces
of one speaker (gap ≤ ``join_gap_s``) joined into one turn → faster-whisper over the speech
only, packed into ≤ 30 s chunks decoded as one batch with word timings (Whisper pads
every call to 30 s, so per-piece calls would cost 3-4× more), words assigned to turns by their
midpoint → Messages.

After the last turn, the conservative reconciliation (voxmem.voice.identity) merges
fragments of one voice heard in this recording; the result lists the merges.
Each *turn* is written in one transaction (voice lock, routing of each of its pieces,
session lock, message), so a crash mid-recording leaves whole turns only. Pieces too short
or too quiet to embed reliably are not routed: they join the neighbouring turn if close
enough, otherwise they are skipped and listed in the job result with the reason. Pieces whose
transcript is not speech (noise, a tone, "[Music]", Whisper's stock "Thank you.") are skipped
as ``no_speech`` before routing: they create no turn and no speaker.
Routing decides per piece inside the turn's transaction; a piece whose speaker differs
from the turn's first piece closes the turn (the rest become the next turn).

A job cut short (Neo4j restart, process crash) leaves its whole turns stored; posting the same
recording again *resumes* it: VAD and embeddings are deterministic, so the pieces the stored
turns cover (by their span in the recording) keep their stored speaker and are not routed or
written again, the stored turns' memory is rebuilt (idempotent) and the rest is ingested as
usual. A finished job writes a ``Recording`` node; re-posting a finished recording is refused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from voxmem.asr.transcriber import Word, is_speech_text
from voxmem.audio import AudioLimits, decode_audio, validate_audio
from voxmem.audio.decode import Audio
from voxmem.audio.vad import Region
from voxmem.audio.validate import loudest_window_dbfs
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder
from voxmem.errors import Conflict, InvalidInput
from voxmem.ids import is_valid_id, recording_message_id
from voxmem.pipeline.jobs import Progress
from voxmem.stores.messages import AudioMessage, MessageStore
from voxmem.voice.routing import decide, follow_merges
from voxmem.voice.service import VoiceService

log = logging.getLogger(__name__)


@dataclass
class Piece:
    index: int
    start: float
    end: float
    embedding: np.ndarray | None = None
    skipped: str | None = None
    speaker_id: str | None = None
    decision: str | None = None
    score: float | None = None


@dataclass
class Turn:
    pieces: list[Piece] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.pieces[0].start

    @property
    def end(self) -> float:
        return self.pieces[-1].end


def cut_regions(regions: list[Region], max_piece_s: float) -> list[tuple[float, float]]:
    """Split long speech regions into equal pieces no longer than ``max_piece_s``."""
    out = []
    for r in regions:
        n = max(1, int(np.ceil(r.duration / max_piece_s)))
        step = r.duration / n
        out += [(r.start + i * step, r.start + (i + 1) * step) for i in range(n)]
    return out


class RecordingIngestor:
    def __init__(
        self,
        db: Database,
        embedder: TextEmbedder,
        voice: VoiceService,
        messages: MessageStore,
        max_piece_s: float = 6.0,
        min_piece_s: float = 0.7,
        join_gap_s: float = 1.5,
        identity=None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.voice = voice
        self.messages = messages
        self.max_piece_s = max_piece_s
        self.min_piece_s = min_piece_s
        self.join_gap_s = join_gap_s
        self.identity = identity  # IdentityManager: post-recording reconciliation when given

    def prepare(self, raw: bytes | Audio) -> Audio:
        """Decode and validate up front, so a bad file is a 4xx before any job starts."""
        limits = AudioLimits.from_settings(
            self.voice.settings, self.voice.settings.audio_max_recording_seconds
        )
        audio = raw if isinstance(raw, Audio) else decode_audio(raw, limits.max_seconds)
        return validate_audio(audio, limits)

    def check_new(self, space: str, session: str, recording_id: str) -> None:
        """Refuse a finished recording (409), or a cut-short one posted into another session
        than the one holding its stored turns (409); anything else may start or resume."""
        if not is_valid_id(session) or not is_valid_id(recording_id):
            raise InvalidInput(
                "session and recording ids must be 1-128 letters, digits, '_', '.', ':' or '-'"
            )
        row = self.messages.recording_state(space, recording_id)
        if row["complete"]:
            raise Conflict(f"recording {recording_id!r} was already ingested into this space")
        if row["n"] and session not in row["sessions"]:
            raise Conflict(
                f"recording {recording_id!r} was partly ingested into session {row['sessions'][0]!r}: "
                "post it there to resume"
            )

    def _resume(self, space: str, recording_id: str, pieces: list[Piece]) -> list[tuple[str, Turn]]:
        """The turns a cut-short job stored, as (message id, Turn over the pieces its span
        covers); those pieces get the stored speaker and decision ``STORED`` and are not routed
        again."""
        stored = []
        for row in self.messages.recording_turns(space, recording_id):
            start, end = row["start"], row["start"] + (row["duration"] or 0.0)
            covered = [p for p in pieces if p.start >= start - 0.05 and p.end <= end + 0.05]
            for p in covered:
                p.speaker_id, p.decision = row["speaker_id"], "STORED"
            routed = [p for p in covered if p.embedding is not None]
            if routed:
                stored.append((row["id"], Turn(routed)))
        return stored

    # --- the job ---------------------------------------------------------------------------------
    def ingest(
        self,
        space: str,
        session: str,
        recording_id: str,
        audio: Audio,
        started_at: datetime | None = None,
        policy: str | None = None,
        progress: Progress | None = None,
        audio_uri: str | None = None,
        derive: Callable[[str, str], Any] | None = None,
    ) -> dict[str, Any]:
        """Route, transcribe and store the recording turn by turn; with ``derive`` (the turn
        pipeline's extraction → memory → index step, :meth:`voxmem.pipeline.turns.TurnPipeline.derive`)
        each turn's memory is written right after that turn's own transaction, in conversation
        order, as for a single spoken turn."""
        progress_cb = progress or (lambda stage, fraction: None)
        stages: dict[str, float] = {}
        current: list[str] = []  # the stage running now (none before the first report)
        since = [time.perf_counter()]

        def report(stage: str, fraction: float) -> None:
            """Progress for the poller, and wall time per stage for the result."""
            now = time.perf_counter()
            if current:
                stages[current[0]] = stages.get(current[0], 0.0) + now - since[0]
            current[:], since[0] = [stage], now
            progress_cb(stage, fraction)

        t0 = datetime.now(UTC)
        started_at = started_at or t0
        if started_at.tzinfo is None:
            started_at = started_at.replace(tzinfo=UTC)
        report("vad", 0.02)
        regions = self.voice.vad.regions(audio)
        pieces = [Piece(i, s, e) for i, (s, e) in enumerate(cut_regions(regions, self.max_piece_s))]
        report("embedding", 0.1)
        silence = self.voice.settings.audio_silence_dbfs
        for n, p in enumerate(pieces):
            clip = audio.slice(p.start, p.end)
            if clip.duration < self.min_piece_s:
                p.skipped = "too_short"
            elif loudest_window_dbfs(clip.samples, clip.sample_rate) < silence:
                p.skipped = "silent"
            else:
                try:
                    p.embedding, mixed = self.voice.embed_piece(clip)
                    if mixed:  # overlap or a speaker change: kept out of enrolment and updates
                        p.embedding, p.skipped = None, "overlap"
                except ValueError as exc:
                    p.skipped = f"embedding_failed: {exc}"
            report("embedding", 0.1 + 0.3 * (n + 1) / max(1, len(pieces)))
        report("asr", 0.4)
        asr = self.voice.asr
        speech = [(p.start, p.end) for p in pieces]
        if hasattr(asr, "transcribe_regions"):
            words = asr.transcribe_regions(audio.samples, speech).words
        else:
            words = asr.transcribe(audio.samples, word_timestamps=True).words if pieces else []
        words = self._drop_non_speech(audio, pieces, words)
        report("routing", 0.7)
        router = self.voice.router(policy)
        memory_errors: list[dict[str, str]] = []
        resumed = self._resume(space, recording_id, pieces)
        turns: list[Turn] = [turn for _, turn in resumed]
        for message_id, _ in resumed:
            if derive is not None:
                self._derive(derive, space, message_id, memory_errors)  # a crash may have cut it short
        routed = [p for p in pieces if p.embedding is not None and p.decision != "STORED"]
        i = 0
        while i < len(routed):
            first = routed[i].index
            i = self._write_turn(
                space, session, recording_id, routed, i, words, pieces, started_at, router, audio_uri, turns
            )
            if derive is not None:
                self._derive(derive, space, recording_message_id(space, recording_id, first), memory_errors)
            report("routing", 0.7 + 0.3 * i / len(routed))
        merges: dict[str, str] = {}
        if self.identity is not None and turns:
            report("reconciliation", 0.99)
            for m in self.identity.reconcile(space, session)["merged"]:
                merges[m["source"]] = m["target"]

        for p in pieces:
            p.speaker_id = follow_merges(p.speaker_id, merges)
        skipped = [
            {"start": round(p.start, 3), "end": round(p.end, 3), "reason": p.skipped}
            for p in pieces
            if p.embedding is None and not any(p in t.pieces for t in turns)
        ]
        self.messages.complete_recording(
            space, recording_id, session, len(turns), round(audio.duration, 3), len(resumed)
        )
        report("done", 1.0)
        elapsed = (datetime.now(UTC) - t0).total_seconds()
        return {
            "recording_id": recording_id,
            "session": session,
            "duration_s": round(audio.duration, 3),
            "speech_regions": len(regions),
            "pieces": len(pieces),
            "turns": len(turns),
            "resumed_turns": len(resumed),
            "speakers": sorted({follow_merges(t.pieces[0].speaker_id, merges) for t in turns}),
            "reconciled": [{"source": a, "target": b} for a, b in merges.items()],
            "segments": [
                {
                    "start": round(p.start, 3),
                    "end": round(p.end, 3),
                    "speaker_id": p.speaker_id,
                    "decision": p.decision,
                    "score": p.score,
                }
                for p in pieces
                if p.speaker_id
            ],
            "skipped": skipped,
            "memory": "none" if derive is None else ("errors" if memory_errors else "written"),
            "memory_errors": memory_errors,
            "processing_s": round(elapsed, 3),
            "stage_seconds": {k: round(v, 3) for k, v in stages.items()},
            "real_time_factor": round(elapsed / audio.duration, 4) if audio.duration else None,
        }

    def _drop_non_speech(self, audio: Audio, pieces: list[Piece], words: list[Word]) -> list[Word]:
        """Pieces whose transcript is not speech are skipped as ``no_speech`` before routing, so
        noise, a tone or Whisper's stock phrase never becomes a turn or a speaker (the rule is
        :func:`voxmem.asr.transcriber.is_speech_text`, the one the single spoken turn uses).

        A piece the batched pass left without speech is first transcribed on its own: the
        batched decoder can stop at a noise burst and drop the words of the speech after it
        (seen: speech, white noise, a square wave, speech gave the last turn the text "").
        This costs one extra decode per such piece, only for pieces that passed the VAD.
        Returns the words, without those of skipped pieces and with those recovered.
        """
        kept = list(words)
        for p in pieces:
            if p.embedding is None:
                continue
            own = [w for w in kept if p.start <= (w.start + w.end) / 2 <= p.end]
            if is_speech_text(" ".join(w.text for w in own)):
                continue
            kept = [w for w in kept if w not in own]
            clip = audio.slice(p.start, p.end)
            alone = self.voice.asr.transcribe(clip.samples, word_timestamps=True)
            if is_speech_text(alone.text):
                kept += [Word(p.start + w.start, p.start + w.end, w.text) for w in alone.words]
            else:
                p.embedding, p.skipped = None, "no_speech"
        return sorted(kept, key=lambda w: w.start)

    @staticmethod
    def _derive(
        derive: Callable[[str, str], Any], space: str, message_id: str, errors: list[dict[str, str]]
    ) -> None:
        """Memory of one stored turn; a failure is reported in the job result, never lost
        silently (the turn is stored; /memory/reprocess can rebuild it)."""
        try:
            derive(space, message_id)
        except Exception as exc:
            log.exception("memory for %s failed", message_id)
            errors.append({"message_id": message_id, "error": f"{type(exc).__name__}: {exc}"})

    def _write_turn(
        self, space, session, recording_id, routed, i, words, pieces, started_at, router, audio_uri, turns
    ) -> int:
        """Route pieces from ``routed[i]`` on in one transaction until the speaker changes; write the turn."""
        first = routed[i]

        def work(tx: ManagedTransaction) -> tuple[int, Turn]:
            router.lock(tx, space)
            turn = Turn()
            j = i
            while j < len(routed):
                piece = routed[j]
                if turn.pieces and piece.start - turn.end > self.join_gap_s:
                    break
                # Decide without writing first: a piece of another speaker ends this turn and is
                # routed (and written) by the next turn's transaction instead.
                if turn.pieces:
                    states = router.candidates(tx, space, piece.embedding.tolist())
                    peek = decide(
                        piece.embedding, states, router.policy, router.thresholds, router.ema_weight
                    )
                    if peek.action != "LINK" or peek.speaker_id != turn.pieces[0].speaker_id:
                        break
                message_id = recording_message_id(space, recording_id, first.index)
                r = router.route(tx, space, piece.embedding, message_id)
                piece.speaker_id, piece.decision, piece.score = (
                    r.speaker_id,
                    r.decision.action,
                    r.decision.score,
                )
                turn.pieces.append(piece)
                j += 1
            # short unrouted pieces inside or right after the turn join it
            extra = [
                p
                for p in pieces
                if p.embedding is None
                and turn.start - self.join_gap_s <= p.start
                and p.end <= turn.end + self.join_gap_s
                and p.speaker_id is None
                and p.skipped != "no_speech"  # noise joins no turn (it holds no words anyway)
            ]
            for p in extra:
                p.speaker_id, p.decision = turn.pieces[0].speaker_id, "JOINED"
            span = (min([turn.start, *[p.start for p in extra]]), max([turn.end, *[p.end for p in extra]]))
            text = " ".join(
                w.text for w in words if span[0] - 0.25 <= (w.start + w.end) / 2 <= span[1] + 0.25
            )
            ts = (started_at + timedelta(seconds=span[0])).isoformat()
            message = AudioMessage(
                session=session,
                idx=self.messages.lock_session(tx, space, session, ts),
                id=recording_message_id(space, recording_id, first.index),
                text=text.strip(),
                ts=ts,
                duration=round(span[1] - span[0], 3),
                source="recording",
                audio_uri=audio_uri,
                start=round(span[0], 3),
                embedding=self.embedder.embed_one(text.strip() or " "),
                speaker_id=str(turn.pieces[0].speaker_id),  # routed just above in this transaction
                voiceprint_id=None,
                recording_id=recording_id,
            )
            self.messages.append_audio(tx, space, message)
            return j, turn

        j, turn = self.db.write(work)
        turns.append(turn)
        return j
