"""``Voxmem``: the one entry object of a voxmem process, built once, shared by every caller.

The HTTP API, the MCP server, the CLI, the demo, benchmarks and tests all hold one
``Voxmem``: ``Voxmem.build(settings)``, ``.start()`` (migrations, text model), ``.close()``.
It owns the database, the models, the stores, the turn pipeline, the retrieval service and
the background-job registry, so nothing else builds them and nothing attaches attributes to
it later. Speech models are declared lazy (``voice``, ``identity``): text-only deployments
never load them, and the first audio request loads them once, under a lock.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from voxmem.config import Settings
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder, sparse_encoder
from voxmem.errors import DatabaseUnavailable
from voxmem.extractors import build_extractor
from voxmem.graph_schema import migrate, schema_version
from voxmem.llm.client import describe as llm_describe
from voxmem.memory.pipeline import MemoryPipeline
from voxmem.pipeline.jobs import JobRegistry
from voxmem.pipeline.queue import job_queue
from voxmem.pipeline.turns import TurnPipeline
from voxmem.stores.facts import FactStore
from voxmem.stores.jobs import JobStore
from voxmem.stores.messages import MessageStore
from voxmem.stores.participants import ParticipantStore
from voxmem.stores.spaces import SpaceStore

if TYPE_CHECKING:  # the speech and retrieval stacks are imported when first used
    from voxmem.retrieval.service import RetrievalService
    from voxmem.voice.identity import IdentityManager
    from voxmem.voice.service import VoiceService

log = logging.getLogger(__name__)


class Voxmem:
    """Database, models, stores, turn pipeline, retrieval and jobs of one process."""

    def __init__(
        self, settings: Settings, db: Database, embedder: TextEmbedder, sparse: SparseEncoder
    ) -> None:
        self.settings = settings
        self.db = db
        self.embedder = embedder
        self.sparse = sparse
        self.spaces = SpaceStore(db)
        self.messages = MessageStore(db, embedder, rrf_k=settings.rrf_k, sparse=sparse)
        self.participants = ParticipantStore(db)
        self.facts = FactStore(db)
        self.memory = MemoryPipeline(
            db,
            embedder,
            build_extractor(settings),
            settings.context_turns,
            messages=self.messages,
            facts=self.facts,
            participants=self.participants,
        )
        self.jobs = JobRegistry(JobStore(db), workers=1, queue=job_queue(settings))  # queue: voxmem worker
        self.pipeline = TurnPipeline(
            db,
            embedder,
            sparse,
            self.messages,
            self.memory,
            self.jobs,
            voice=lambda: self.voice,
            identity=lambda: self.identity,
            max_text_chars=settings.max_text_chars,
        )
        self.schema_version: int | None = None
        self.offline: dict[str, str] = {
            "text_embedding": embedder.describe(),
            **llm_describe(settings),  # which answerer runs: the LLM (and which) or extractive
        }
        self._lock = threading.RLock()
        self._voice: VoiceService | None = None
        self._identity: IdentityManager | None = None
        self._retrieval: RetrievalService | None = None

    @classmethod
    def build(cls, settings: Settings) -> Voxmem:
        return cls(settings, Database(settings), TextEmbedder(settings), sparse_encoder())

    def start(self, warm_models: bool = True) -> None:
        """Apply migrations (failing loudly on a mismatch), load the text model, and derive the
        memory of turns stored without it."""
        self.schema_version = migrate(self.db, self.settings)
        if warm_models:
            self.embedder.warm_up()
        # turns an outage (or a crash) left stored without their memory get it now
        self.pipeline.repair(limit=10_000)

    def current_schema_version(self) -> int | None:
        try:
            return schema_version(self.db)
        except DatabaseUnavailable:
            return None

    def close(self) -> None:
        self.jobs.shutdown()
        self.db.close()

    # --- lazy parts: loaded on first use, once -------------------------------------------------
    @property
    def voice(self) -> VoiceService:
        """Speech models (VAD, speaker encoder, ASR) and the speaker router's settings."""
        with self._lock:
            if self._voice is None:
                from voxmem.voice.service import VoiceService

                self._voice = VoiceService(self.settings)
            return self._voice

    @property
    def identity(self) -> IdentityManager:
        """Identity management of voices: link, merge, unmerge, split, reconcile, forget."""
        with self._lock:
            if self._identity is None:
                from voxmem.voice.identity import IdentityManager

                self._identity = IdentityManager(
                    self.db, self.voice.thresholds, self.voice.tag, follow=self.memory.writer.follow_person
                )
            return self._identity

    @property
    def retrieval(self) -> RetrievalService:
        """Scoped retrieval and answers (built on first question)."""
        with self._lock:
            if self._retrieval is None:
                from voxmem.retrieval.service import RetrievalService

                self._retrieval = RetrievalService(self.settings, self.db, self.embedder)
            return self._retrieval
