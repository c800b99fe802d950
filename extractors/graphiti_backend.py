"""Optional third fact backend: graphiti-core, behind the same Extractor interface.

Why keep it: graphiti extracts entities and temporal edges ("valid_at"/"invalid_at") with an
LLM and maintains its own bi-temporal graph; comparing it with our extractors on the same
windows is the point. Each window becomes one graphiti *episode* (the window text, the
turn's timestamp as reference time) written into the same Neo4j with the space as its
``group_id``; the episode's new entity edges are mapped to our ``FactRecord``s, which the
memory writer stores as ``Fact`` nodes (``extractor: 'graphiti'``) with ``DERIVED_FROM``
provenance to the turn. graphiti's own ``Entity``/``Episodic`` nodes carry ``group_id``
(= space), not ``space``: they live beside our model, untouched by our queries.

It needs an LLM (OpenAI-compatible or Ollama's OpenAI-compatible /v1 endpoint); text
embeddings come from our local sentence-transformers model, so nothing else is fetched.
It cannot be exercised in this repository's CI (no LLM); importing and constructing it is
tested, extraction quality is not claimed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from voxmem.extractors.llm import TokenCounter, render_window
from voxmem.extractors.schema import ExtractionResult, FactRecord, TimeRef, TurnExtraction
from voxmem.extractors.window import Window


def _embedder_client(text_embedder: Any) -> Any:
    """graphiti EmbedderClient backed by our offline sentence-transformers model."""
    from graphiti_core.embedder.client import EmbedderClient

    class LocalEmbedder(EmbedderClient):
        async def create(
            self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
        ) -> list[float]:
            text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
            return text_embedder.embed([text])[0].tolist()

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [v.tolist() for v in text_embedder.embed(input_data_list)]

    return LocalEmbedder()


class GraphitiExtractor:
    """Facts from graphiti episodes; names and addressees are left to the other backends."""

    name = "graphiti"

    def __init__(self, graphiti: Any, group_id: str | None = None) -> None:
        self.graphiti = graphiti
        self.group_id = group_id
        self.tokens = TokenCounter()
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls, settings: Any, text_embedder: Any | None = None, group_id: str | None = None
    ) -> GraphitiExtractor:
        if not settings.llm_enabled:
            raise ValueError("graphiti needs an LLM: set VOXMEM_LLM_PROVIDER and VOXMEM_LLM_MODEL")
        os.environ.setdefault(
            "GRAPHITI_TELEMETRY_ENABLED", "false"
        )  # no analytics calls from a memory server
        from graphiti_core import Graphiti
        from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
        from graphiti_core.llm_client.config import LLMConfig
        from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

        from voxmem.embeddings import TextEmbedder
        from voxmem.llm.client import resolve

        endpoint = resolve(settings)  # the one place that says which LLM is in use
        if endpoint is None:
            raise ValueError("graphiti needs an LLM: set VOXMEM_LLM_PROVIDER and VOXMEM_LLM_MODEL")
        base_url = endpoint.base_url
        if endpoint.provider == "ollama":  # graphiti speaks Ollama's OpenAI-compatible /v1 API
            base_url = (base_url or "http://127.0.0.1:11434").rstrip("/") + "/v1"
        config = LLMConfig(
            api_key=settings.llm_api_key.get_secret_value(),
            model=endpoint.model,
            base_url=base_url,
            small_model=endpoint.model,
        )
        graphiti = Graphiti(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password.get_secret_value(),
            llm_client=OpenAIGenericClient(config=config),
            embedder=_embedder_client(text_embedder or TextEmbedder(settings)),
            cross_encoder=OpenAIRerankerClient(config=config),
            max_coroutines=settings.llm_max_concurrency,
        )
        return cls(graphiti, group_id)

    def _run(self, coro: Any) -> Any:
        with self._lock:
            return self._loop.run_until_complete(coro)

    def episode(self, window: Window, group_id: str) -> Any:
        from graphiti_core.nodes import EpisodeType

        return self._run(
            self.graphiti.add_episode(
                name=window.current.message_id,
                episode_body=render_window(window),
                source_description="voxmem context window (current turn marked CURRENT)",
                reference_time=window.reference_time,
                source=EpisodeType.message,
                group_id=group_id,
            )
        )

    def extract(self, window: Window) -> ExtractionResult:
        result = self.episode(window, self.group_id or window.space or window.session)
        return ExtractionResult(
            message_id=window.current.message_id,
            extractor="graphiti",
            record=records_from_edges(result.edges, window),
        )

    def extract_many(self, windows: Sequence[Window]) -> list[ExtractionResult]:
        return [self.extract(w) for w in windows]  # episodes are order-dependent: sequential


def records_from_edges(edges: Iterable[Any], window: Window) -> TurnExtraction:
    """graphiti EntityEdges → our facts: the edge's fact sentence, its validity as time."""
    facts = []
    speaker = window.current.speaker
    for edge in edges:
        text = (getattr(edge, "fact", "") or "").strip()
        if len(text) < 3:
            continue
        when = getattr(edge, "valid_at", None)
        time = TimeRef(text="valid_at", value=when.date().isoformat()) if when is not None else None
        facts.append(FactRecord(content=text[:600], subject=speaker, time=time, confidence=0.7))
    return TurnExtraction(facts=facts)
