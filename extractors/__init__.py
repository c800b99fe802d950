"""Turn-level extraction: names, addressees, facts and attributes from a context window.

``voxmem.extractors.schema`` is the record, ``window`` builds the context, ``offline`` is
the deterministic default backend, ``llm`` the langchain backend and ``graphiti_backend``
the optional graphiti-core one. :func:`build_extractor` picks from configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voxmem.config import Settings
    from voxmem.extractors.base import Extractor


def build_extractor(settings: Settings, backend: str | None = None) -> Extractor:
    """The configured backend: 'offline' (default), 'llm' (needs VOXMEM_LLM_*), or 'graphiti'."""
    configured = getattr(settings, "extractor", "auto")
    choice = backend or (
        configured if configured != "auto" else ("llm" if settings.llm_enabled else "offline")
    )
    if choice == "offline":
        from voxmem.extractors.offline import OfflineExtractor

        return OfflineExtractor()
    if choice == "llm":
        from voxmem.extractors.llm import LLMExtractor

        return LLMExtractor.from_settings(settings)
    if choice == "graphiti":
        from voxmem.extractors.graphiti_backend import GraphitiExtractor

        return GraphitiExtractor.from_settings(settings)
    raise ValueError(f"unknown extractor backend {choice!r} (offline | llm | graphiti)")
