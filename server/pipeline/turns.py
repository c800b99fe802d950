"""The one turn pipeline: identity → message → extraction → memory → index, for every kind of turn.

A text turn, a spoken turn and each turn of a whole recording go through the same steps:

1. **identity** — who spoke: a text turn names its speaker (found or created by name key in
   the message transaction); a spoken turn or recording piece is routed by voice
   (``voxmem.voice.router``: a ``Speaker`` linked or created, its ``Voiceprint``);
2. **message** — the ``Message`` with ``SPEAKS``/``SPOKEN_AS``/``NEXT``, written in ONE
   transaction with the identity step (``voxmem.stores.messages`` for text,
   :meth:`TurnPipeline._write_audio_message` and ``voxmem.pipeline.recording`` for audio);
3. **extraction → memory** — :meth:`TurnPipeline.derive`: the turn in its window is
   extracted and its names, ``ADDRESSES`` edges, facts and attributes written
   (``voxmem.memory.pipeline``), idempotent on a replay; the message is stored marked
   ``memory_pending`` and the mark cleared here, so a turn an outage left without memory is
   found and derived later (:meth:`TurnPipeline.repair`);
4. **index** — the same step: the turn's speaker-aware passage, embedding and SPLADE terms
   (``voxmem.passages.MessageIndexer``), so spoken turns are searchable like text turns.

Routes and the MCP server translate their input into one call here (through
:class:`voxmem.core.Voxmem`); nothing else assembles a turn. Models run before any
transaction, so no lock is held while encoding.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from voxmem.asr.transcriber import clean_vocabulary, is_speech_text, with_known_names
from voxmem.audio import AudioError, AudioLimits, decode_audio, validate_audio
from voxmem.audio.decode import Audio, other_readings
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder
from voxmem.errors import DatabaseUnavailable, InvalidInput
from voxmem.ids import is_valid_id, iso_timestamp
from voxmem.memory.pipeline import MemoryPipeline
from voxmem.passages import MessageIndexer
from voxmem.pipeline.jobs import JobRegistry, Progress
from voxmem.pipeline.sessions import reconcile_before_new_session
from voxmem.stores.jobs import Job
from voxmem.stores.messages import AudioMessage, MessageContext, MessageStore, Turn
from voxmem.stores.participants import ParticipantStore
from voxmem.voice.routing import ROUTING_POLICIES

if TYPE_CHECKING:
    from voxmem.pipeline.batch import BatchResult
    from voxmem.pipeline.recording import RecordingIngestor
    from voxmem.voice.identity import IdentityManager
    from voxmem.voice.service import VoiceService

log = logging.getLogger(__name__)

# A turn still marked memory_pending this long after it was stored is taken as left behind by
# an outage (a derivation in flight takes well under this on 2 cores).
PENDING_MIN_AGE_S = 30.0

ID_RULE = "1-128 characters of letters, digits, '_', '.', ':' or '-'"


@dataclass
class AudioTurn:
    """One pre-segmented spoken turn as the API receives it."""

    session: str
    audio: bytes | Audio
    ts: datetime | None = None
    turn_id: str | None = None
    audio_uri: str | None = None
    policy: str | None = None
    vocabulary: tuple[str, ...] = ()  # names/words the ASR should expect (voxmem.asr hotwords)


def routing_policy_override(policy: str | None) -> str | None:
    """A caller's voice-routing policy override: None (the configured one) or a known name."""
    if policy is not None and policy not in ROUTING_POLICIES:
        raise InvalidInput(f"policy must be one of {', '.join(ROUTING_POLICIES)}")
    return policy


class TurnPipeline:
    """Text turns, spoken turns and recordings → identity → message → extraction → memory → index."""

    def __init__(
        self,
        db: Database,
        embedder: TextEmbedder,
        sparse: SparseEncoder,
        messages: MessageStore,
        memory: MemoryPipeline,
        jobs: JobRegistry,
        voice: Callable[[], VoiceService],
        identity: Callable[[], IdentityManager],
        max_text_chars: int,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.messages = messages
        self.memory = memory
        self.jobs = jobs
        self.indexer = MessageIndexer(db, embedder, sparse)
        self.participants = ParticipantStore(db)
        self._voice = voice  # speech models load on the first audio turn (voxmem.core.Voxmem.voice)
        self._identity = identity
        self.max_text_chars = max_text_chars
        self._recordings: RecordingIngestor | None = None

    # --- the steps every turn shares -----------------------------------------------------------
    def derive(
        self, space: str, message_id: str, context: MessageContext | None = None, indexed: bool = False
    ) -> dict[str, Any]:
        """Extraction → memory → index for one stored turn; idempotent, so a replay re-derives.

        ``context``: the window the turn's write transaction read (a text turn); ``indexed``:
        its stored passage is current, so there is nothing to index and the pending mark is
        cleared inside the memory transaction (unless the turn names someone: then back-fill,
        re-index and the mark follow the commit, as for every other turn).

        The turn is already stored (its own transaction), so if Neo4j goes away now a bare 503
        would hide that: the error names the stored id and that its memory is missing;
        repeating the request with the same turn_id is an idempotent replay that derives it.
        """
        done = (lambda tx: MessageStore.memory_done_in(tx, space, message_id)) if indexed else None
        try:
            summary = self.memory.derive_turn(space, message_id, context, done)
            if not summary.done:
                self.indexer.index(space, [message_id])
                self.messages.memory_done(space, message_id)
        except DatabaseUnavailable as exc:
            raise DatabaseUnavailable(
                f"the turn is stored as {message_id!r} but its memory is not derived: {exc.message}; "
                "repeat the request with the same turn_id once Neo4j is back (idempotent) to derive it"
            ) from exc
        return summary.as_dict()

    def repair(
        self,
        space: str | None = None,
        session: str | None = None,
        min_age_s: float = PENDING_MIN_AGE_S,
        limit: int = 100,
    ) -> list[str]:
        """Derive the memory of turns stored without it; returns their ids.

        A turn's message and its memory are two transactions (the message must be stored before
        extraction can read its window). Every message is written ``memory_pending`` and
        :meth:`derive` clears the mark, so a Neo4j outage between the two leaves a marked turn;
        this runs before the next turn of its session is derived (a text turn finds them in
        its own write transaction, a spoken turn before it is written; so extraction keeps
        conversation order) and at start-up (``Voxmem.start``). Turns younger than
        ``min_age_s`` are left alone: another request may be deriving them right now. A turn
        whose extraction fails for another reason stays marked and is logged.
        """
        return self._derive_pending(self.messages.memory_pending(space, session, min_age_s, limit))

    def _derive_pending(self, found: Sequence[tuple[str, str]]) -> list[str]:
        """:meth:`repair`'s derivations, in the order found; returns the ids derived."""
        repaired = []
        for found_space, message_id in found:
            try:
                self.derive(found_space, message_id)
            except DatabaseUnavailable:
                raise
            except Exception:
                log.exception("memory of %s could not be derived; it stays pending", message_id)
                continue
            repaired.append(message_id)
        if repaired:
            log.info("derived the missing memory of %d turn(s): %s", len(repaired), repaired)
        return repaired

    # --- text turns ----------------------------------------------------------------------------
    def append_text(self, space: str, turn: Turn) -> dict[str, Any]:
        """A text turn: its speaker by name and the message (one transaction), then its memory."""
        if len(turn.text) > self.max_text_chars:
            raise InvalidInput(f"turn text longer than {self.max_text_chars} characters")
        if self.jobs.queue is not None:  # queue mode: a worker derives the session's turns in order
            message = self.messages.append(space, turn)
            self.jobs.enqueue_derive(space, turn.session, message["id"])
            return message
        # one transaction: the session's turns an outage left without memory (repaired next, so
        # extraction keeps conversation order), the message and its window
        stored = self.messages.append_turn(
            space, turn, window=self.memory.context_turns, pending_age_s=PENDING_MIN_AGE_S
        )
        repaired = self._derive_pending([(space, i) for i in stored.pending])
        if stored.id not in repaired:
            # a repair changed what the window shows (its turns' vocatives): read it again
            context = None if repaired else stored.context
            self.derive(space, stored.id, context, indexed=stored.indexed and stored.written)
        return stored.view

    def import_turns(self, space: str, turns: Sequence[Turn]) -> BatchResult:
        """Many text turns (a history), batched: the same steps as :meth:`append_text` for each,
        idempotent by ``turn_id`` (``voxmem.pipeline.batch``); memory is derived in-process."""
        from voxmem.pipeline.batch import BatchImporter

        return BatchImporter(self).run(space, turns)

    # --- spoken turns --------------------------------------------------------------------------
    @property
    def voice(self) -> VoiceService:
        return self._voice()

    def prepare(self, audio: bytes | Audio) -> Audio:
        """Decode and validate one spoken turn or question (a bad file is a 422)."""
        limits = AudioLimits.from_settings(self.voice.settings)
        decoded = audio if isinstance(audio, Audio) else decode_audio(audio, limits.max_seconds)
        return validate_audio(decoded, limits)

    def append_audio(self, space: str, turn: AudioTurn) -> dict[str, Any]:
        """A spoken turn: voice routing and the message (one transaction), then its memory."""
        routing_policy_override(turn.policy)
        # The first turn of a new session ends the earlier ones: merge their voice fragments
        # first, so this turn routes to the merged voice (docs/voice.md, "implicit session end").
        reconcile_before_new_session(self.messages, self._identity(), space, turn.session)
        self.repair(space, turn.session)  # an outage may have left earlier turns without memory
        stored = self._write_audio_message(space, turn)
        self.derive(space, stored["id"])
        fresh = self.messages.get(space, stored["id"])
        return {**stored, "speaker": fresh["speaker"], "addressees": fresh["addressees"]}

    def _write_audio_message(self, space: str, turn: AudioTurn) -> dict[str, Any]:
        """Identity and message of a spoken turn in ONE transaction (idempotent on turn_id).

        Models run first; the transaction then checks the turn id, takes the space's voice
        lock, routes the voice, takes the session lock and appends the message with its
        SPOKEN_AS/SPEAKS edges. Any failure rolls everything back: no speaker without its
        message, no message without its speaker.
        """
        if not is_valid_id(turn.session):
            raise InvalidInput(f"session id must be {ID_RULE}")
        if turn.turn_id is not None and not is_valid_id(turn.turn_id):
            raise InvalidInput(f"turn_id must be {ID_RULE}")
        vocabulary = clean_vocabulary(turn.vocabulary)
        message_id = self.messages.turn_message_id(space, turn.turn_id)
        if turn.turn_id and self.messages.exists(space, message_id):
            return self._audio_view(space, message_id, None)
        audio = self.prepare(turn.audio)
        voice = self.voice
        # Noise, a tone, a hum: no turn and no speaker. The VAD decides first (Whisper makes
        # "You" of a square wave), then the transcript must be speech (the rule recordings use too).
        if not voice.vad.regions(audio):
            raise self._no_speech(turn.audio, "no speech detected in the audio (voice activity detection)")
        embedding = voice.embed(audio)
        # the caller's hints, then (VOXMEM_ASR_SPACE_NAMES) the names the space gives people
        known = self.participants.known_names(space) if voice.settings.asr_space_names else []
        hints = with_known_names(vocabulary, known)
        transcript = voice.asr.transcribe(audio.samples, vocabulary=hints)
        text = transcript.text
        if not is_speech_text(text):
            raise self._no_speech(turn.audio, f"no words recognised in the audio (ASR gave {text[:20]!r})")
        # Words decoded only as a guess may be speech under a lying WAV header (half-speed
        # speech under an 8 kHz header gave "That's it."): refused when another reading of the
        # same samples is heard confidently; a real but unclear voice is stored as before.
        if not transcript.confident and (hint := self._header_hint(turn.audio)):
            raise AudioError("corrupt", f"the ASR heard only a low-confidence guess ({text[:40]!r}) {hint}")
        text_vec = self.embedder.embed_one(text or " ")
        router = voice.router(turn.policy)
        ts = iso_timestamp(turn.ts)

        def work(tx: ManagedTransaction):
            if self.messages.exists_in(tx, space, message_id):
                return None
            router.lock(tx, space)
            routed = router.route(tx, space, embedding, message_id)
            message = AudioMessage(
                session=turn.session,
                idx=self.messages.lock_session(tx, space, turn.session, ts),
                id=message_id,
                text=text,
                ts=ts,
                duration=round(audio.duration, 3),
                source="audio",
                audio_uri=turn.audio_uri,
                start=None,
                embedding=text_vec,
                speaker_id=routed.speaker_id,
                voiceprint_id=routed.voiceprint_id,
                vocabulary=hints,
            )
            self.messages.append_audio(tx, space, message)
            return routed

        try:
            routed = self.db.write(work)
        except ConstraintError:  # a concurrent retry of the same turn_id won the race
            if turn.turn_id is None:
                raise
            routed = None
        return self._audio_view(space, message_id, routed)

    def _no_speech(self, raw: bytes | Audio, reason: str) -> AudioError:
        """The 422 of a spoken turn without speech, naming a lying WAV header when there is one
        (:meth:`_header_hint`): the caller's file is then what needs fixing, not the microphone."""
        hint = self._header_hint(raw)
        return AudioError("no_speech", f"{reason} {hint}" if hint else reason)

    def _header_hint(self, raw: bytes | Audio | None) -> str | None:
        """Why audio without speech may be a WAV with a lying header: the same samples, read at
        another common rate or channel count, hold speech the ASR hears as words
        (``decode.other_readings``, at most three ASR tries) confidently. Runs only on a path
        that failed: no speech, or words heard only as a low-confidence guess."""
        if not isinstance(raw, bytes):
            return None
        vad, asr = self.voice.vad, self.voice.asr
        readings = other_readings(raw, lambda a: sum(r.duration for r in vad.regions(a)))
        for reading in islice(readings, 3):
            heard = asr.transcribe(reading.audio.samples)
            if heard.confident and is_speech_text(heard.text):
                return reading.hint()
        return None

    def _audio_view(self, space: str, message_id: str, routed: Any) -> dict[str, Any]:
        view = self.messages.get(space, message_id)
        view["routing"] = self.messages.routing(space, message_id)
        view["idempotent_replay"] = routed is None
        return view

    def recognise(self, space: str, audio: bytes, policy: str | None = None) -> tuple[Audio, dict[str, Any]]:
        """Who is speaking in this clip (read-only voice match): the clip and the match."""
        clip = self.prepare(audio)
        embedding = self.voice.embed(clip)
        router = self.voice.router(routing_policy_override(policy))
        return clip, self.db.read(lambda tx: router.identify(tx, space, embedding))

    # --- recordings ----------------------------------------------------------------------------
    @property
    def recordings(self) -> RecordingIngestor:
        if self._recordings is None:
            from voxmem.pipeline.recording import RecordingIngestor

            self._recordings = RecordingIngestor(
                self.db, self.embedder, self.voice, self.messages, identity=self._identity()
            )
        return self._recordings

    def submit_recording(
        self,
        space: str,
        session: str,
        recording_id: str,
        audio: bytes | Audio,
        started_at: datetime | None = None,
        policy: str | None = None,
        audio_uri: str | None = None,
    ) -> Job:
        """A whole recording as a background job; each of its turns, once stored, goes through
        :meth:`derive` (extraction → memory → index) in conversation order. In queue mode the
        job and its audio go to the Redis Stream and a ``voxmem worker`` runs
        :meth:`run_recording`."""
        recordings = self.recordings
        recordings.check_new(space, session, recording_id)
        decoded = recordings.prepare(audio)  # bad audio is a 422 now, before any job exists
        policy = routing_policy_override(policy)
        if self.jobs.queue is not None:
            from voxmem.pipeline.queue import audio_bytes

            when = None if started_at is None else started_at.isoformat()
            payload = {"session": session, "recording_id": recording_id, "started_at": when}
            payload |= {"policy": policy, "audio_uri": audio_uri}
            return self.jobs.enqueue(space, "recording", payload, audio_bytes(audio))
        return self.jobs.submit(
            space,
            "recording",
            lambda progress: self.run_recording(
                space, session, recording_id, decoded, started_at, policy, progress, audio_uri, raw=audio
            ),
        )

    def run_recording(
        self,
        space: str,
        session: str,
        recording_id: str,
        audio: bytes | Audio,
        started_at: datetime | None,
        policy: str | None,
        progress: Progress,
        audio_uri: str | None = None,
        raw: bytes | Audio | None = None,
    ) -> dict[str, Any]:
        """A recording job's ingestion, in-process or in a worker (voxmem.pipeline.worker),
        resuming from the turns an earlier run stored. ``audio`` may already be decoded (the
        in-process job): checking it again is cheap and cannot fail then. ``raw``: the uploaded
        bytes when ``audio`` is decoded. A recording that gives no turn (no speech found, or no
        words heard in it) finishes with a ``warning`` naming a lying WAV header when there is
        one, as a spoken turn's 422 does: a job 'done' with 0 turns and no word why sent the
        caller to the microphone."""
        recordings = self.recordings
        decoded = recordings.prepare(audio)
        result = recordings.ingest(
            space, session, recording_id, decoded, started_at, policy, progress, audio_uri, derive=self.derive
        )
        if (
            not result.get("turns")
            and not result.get("resumed_turns")
            and (hint := self._header_hint(raw or audio))
        ):
            result["warning"] = f"no speech detected in the recording {hint}"
        return result
