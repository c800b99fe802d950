"""The interface every extractor backend implements (offline rules, LLM, graphiti).

Why a protocol: the memory pipeline picks a backend from configuration and never
branches on which one it got; benchmarks run them side by side on the same windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from voxmem.extractors.schema import ExtractionResult
from voxmem.extractors.window import Window


class Extractor(Protocol):
    name: str

    def extract(self, window: Window) -> ExtractionResult:
        """One validated record for the window's current turn."""
        ...

    def extract_many(self, windows: Sequence[Window]) -> list[ExtractionResult]:
        """Records for many windows, in order (backends may run them concurrently)."""
        ...
