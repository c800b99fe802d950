"""The hidden-name benchmark builds windows the way the writer does, placeholders included.

Why: a call by a name no voice bears ("Ingrid, …") makes the writer create a name-only
participant that joins the session, so the windows of later turns know the name (and the
rules treat it as a person without a voice). The benchmark used to leave it out of its
windows, which measured rules the product does not apply (docs/memory.md, "Naming,
2026-12-02 pass").
"""

from __future__ import annotations

from datetime import UTC, datetime

from bench.extraction_bench import resolve_names
from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.schema import ExtractionResult
from voxmem.extractors.window import Window


class _Recording(OfflineExtractor):
    """The offline extractor, keeping every window it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: list[Window] = []

    def extract(self, window: Window) -> ExtractionResult:
        self.windows.append(window)
        return super().extract(window)


def _names_in(window: Window) -> list[str]:
    return sorted((p.name or "") for p in window.people.values())


def test_a_called_name_is_a_person_of_later_windows_until_a_voice_takes_it():
    turns = [
        ("caller", "Ingrid, can you drive the van tomorrow?"),
        ("other", "Sure, I will pick it up at eight."),
        ("caller", "Good, the keys are on the hook."),
    ]
    ex = _Recording()
    names = resolve_names(ex, [(turns, datetime(2026, 3, 2, tzinfo=UTC))], context=3)
    assert names == {"caller": None, "other": "Ingrid"}
    assert _names_in(ex.windows[0]) == [""]  # only the caller's voice, unnamed
    assert _names_in(ex.windows[1]) == ["", "", "Ingrid"]  # the caller, the answering voice, the placeholder
    assert _names_in(ex.windows[2]) == ["", "Ingrid"]  # folded into the voice that answered
