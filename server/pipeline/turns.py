"""One pre-segmented audio turn → speaker routing + ASR → one Message, in ONE transaction.

Models run before the transaction (no lock held while encoding); the transaction then
checks the turn id (idempotent retries), takes the space's voice lock, routes the voice,
takes the session lock and appends the message with SPOKEN_AS/SPEAKS edges. Any failure
rolls everything back: no speaker without its message, no message without its speaker.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from voxmem.asr.transcriber import has_words
from voxmem.audio import AudioError, AudioLimits, decode_audio, validate_audio
from voxmem.audio.decode import Audio
from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder
from voxmem.errors import DatabaseUnavailable, InvalidInput, NotFound
from voxmem.ids import is_valid_id
from voxmem.stores.messages import MessageStore, _iso
from voxmem.voice.service import VoiceService


@dataclass
class AudioTurn:
    session: str
    audio: bytes | Audio
    ts: datetime | None = None
    turn_id: str | None = None
    audio_uri: str | None = None
    policy: str | None = None


class AudioTurnWriter:
    """Sibling of :class:`MessageStore` for audio turns; reads go through the MessageStore."""

    def __init__(
        self, db: Database, embedder: TextEmbedder, voice: VoiceService, messages: MessageStore
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.voice = voice
        self.messages = messages

    def prepare(self, audio: bytes | Audio) -> Audio:
        limits = AudioLimits.from_settings(self.voice.settings)
        decoded = audio if isinstance(audio, Audio) else decode_audio(audio, limits.max_seconds)
        return validate_audio(decoded, limits)

    def append(self, space: str, turn: AudioTurn) -> dict[str, Any]:
        if not is_valid_id(turn.session):
            raise InvalidInput("session id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        if turn.turn_id is not None and not is_valid_id(turn.turn_id):
            raise InvalidInput("turn_id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        message_id = self.messages.turn_message_id(space, turn.turn_id)
        if turn.turn_id and self._exists(space, message_id):
            return self._view(space, message_id, None)
        audio = self.prepare(turn.audio)
        # Noise, a tone, a hum: no turn and no speaker. The VAD decides first (Whisper makes
        # "You" of a square wave), then the transcript must hold a word.
        if not self.voice.vad.regions(audio):
            raise AudioError("no_speech", "no speech detected in the audio (voice activity detection)")
        embedding = self.voice.embed(audio)
        text = self.voice.asr.transcribe(audio.samples).text
        if not has_words(text):
            raise AudioError("no_speech", f"no words recognised in the audio (ASR gave {text[:20]!r})")
        text_vec = self.embedder.embed_one(text or " ")
        router = self.voice.router(turn.policy)
        ts = _iso(turn.ts)

        def work(tx: ManagedTransaction):
            if tx.run(query("message_get"), space=space, id=message_id).single() is not None:
                return None
            router.lock(tx, space)
            routed = router.route(tx, space, embedding, message_id)
            row = tx.run(query("session_lock"), space=space, session=turn.session, ts=ts).single()
            if row is None:
                raise NotFound(f"unknown space {space!r}")
            tx.run(
                query("message_audio_append"),
                space=space,
                session=turn.session,
                idx=row["next_idx"],
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
            ).consume()
            return routed

        try:
            routed = self.db.write(work)
        except ConstraintError:
            if turn.turn_id is None:
                raise
            routed = None
        return self._view(space, message_id, routed)

    def _exists(self, space: str, message_id: str) -> bool:
        rows = self.db.query(query("message_get"), space=space, id=message_id)
        return bool(rows) and rows[0]["message"] is not None

    def _view(self, space: str, message_id: str, routed) -> dict[str, Any]:
        view = self.messages.get(space, message_id)
        rows = self.db.query(query("routing_for_message"), space=space, message_id=message_id)
        view["routing"] = rows[0] if rows else None
        view["idempotent_replay"] = routed is None
        return view


def derive_memory(memory: Any, space: str, message_id: str) -> None:
    """Run extraction for a stored turn; if Neo4j goes away now, say so truthfully.

    The turn is already stored (its own transaction), so a bare 503 would hide that. The
    answer names the stored id and that the memory is missing; repeating the request with
    the same turn_id is an idempotent replay that derives the memory.
    """
    try:
        memory.process_message(space, message_id)
    except DatabaseUnavailable as exc:
        raise DatabaseUnavailable(
            f"the turn is stored as {message_id!r} but its memory is not derived: {exc.message}; "
            "repeat the request with the same turn_id once Neo4j is back (idempotent) to derive it"
        ) from exc
