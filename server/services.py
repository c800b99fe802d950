"""The long-lived objects one server process shares: database, models and stores.

Built once at start-up (migrations applied, embedder warmed) and closed at shutdown, so
request handlers only read ``app.state.services``. Tests build their own with their own
settings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from voxmem.config import Settings
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder
from voxmem.errors import DatabaseUnavailable
from voxmem.extractors import build_extractor
from voxmem.graph_schema import migrate, schema_version
from voxmem.llm.client import describe as llm_describe
from voxmem.memory.pipeline import MemoryPipeline
from voxmem.messages import MessageStore
from voxmem.spaces import SpaceStore

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: TextEmbedder
    spaces: SpaceStore
    messages: MessageStore
    schema_version: int | None = None
    offline: dict[str, str] = field(default_factory=dict)
    memory: MemoryPipeline | None = None

    @classmethod
    def build(cls, settings: Settings) -> Services:
        db = Database(settings)
        embedder = TextEmbedder(settings)
        return cls(
            settings=settings,
            db=db,
            embedder=embedder,
            spaces=SpaceStore(db),
            messages=MessageStore(db, embedder, rrf_k=settings.rrf_k),
            memory=MemoryPipeline(db, embedder, build_extractor(settings), settings.context_turns),
            offline={
                "text_embedding": "local sentence-transformers model (no network)",
                **llm_describe(settings),  # which answerer runs: the LLM (and which) or extractive
            },
        )

    def start(self, warm_models: bool = True) -> None:
        """Apply migrations (failing loudly on a mismatch) and load the text model."""
        self.schema_version = migrate(self.db, self.settings)
        if warm_models:
            self.embedder.warm_up()

    def current_schema_version(self) -> int | None:
        try:
            return schema_version(self.db)
        except DatabaseUnavailable:
            return None

    def close(self) -> None:
        self.db.close()
