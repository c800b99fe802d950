"""All voice-identity objects of one server, built once per :class:`voxmem.services.Services`.

Why not fields of Services: the voice stack loads speech models lazily and text-only
deployments never need it; :func:`voice_stack` attaches it to the services object on first
use (thread-safe), so routes and tests share one instance.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from voxmem.ingest.jobs import JobRegistry
from voxmem.ingest.recording import RecordingIngestor
from voxmem.ingest.turns import AudioTurnWriter
from voxmem.voice.identity import IdentityManager
from voxmem.voice.service import VoiceService

_LOCK = threading.Lock()


@dataclass
class VoiceStack:
    voice: VoiceService
    turns: AudioTurnWriter
    recordings: RecordingIngestor
    identity: IdentityManager
    jobs: JobRegistry


def voice_stack(services) -> VoiceStack:
    with _LOCK:
        stack = getattr(services, "_voice_stack", None)
        if stack is None:
            voice = VoiceService(services.settings)
            identity = IdentityManager(services.db, voice.thresholds, voice.tag)
            stack = VoiceStack(
                voice=voice,
                turns=AudioTurnWriter(services.db, services.embedder, voice, services.messages),
                recordings=RecordingIngestor(services.db, services.embedder, voice, identity=identity),
                identity=identity,
                jobs=JobRegistry(services.db, workers=1),
            )
            services._voice_stack = stack
    return stack
