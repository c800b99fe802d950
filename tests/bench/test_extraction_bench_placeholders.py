"""The hidden-name benchmark applies name evidence the way the writer does, placeholders included.

Why: a call by a name no voice bears ("Ingrid, …") makes the writer create a name-only
participant that joins the session, so the windows of later turns know the name. The benchmark
used to leave it out of its windows, which let replies after such calls vote (0.3 each) as if
the name were unknown: it measured a rule the product does not apply.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bench.extraction_bench import resolve_names
from voxmem.extractors.offline import OfflineExtractor


def test_loose_replies_after_calls_do_not_name_a_voice_through_the_calls_placeholder():
    turns = [
        ("caller", "Ingrid, the ferry leaves at six."),
        ("other", "The tent goes in the small bag."),
        ("caller", "Ingrid, the van is parked by the dock."),
        ("other", "The cooler is full of ice already."),
        ("caller", "Ingrid, the tickets are on the fridge."),
        ("other", "The map is in the glovebox."),
    ]
    names = resolve_names(OfflineExtractor(), [(turns, datetime(2026, 3, 2, tzinfo=UTC))], context=3)
    assert names == {"caller": None, "other": None}


def test_an_answered_call_still_names_the_voice_through_the_placeholder():
    turns = [
        ("caller", "Ingrid, can you drive the van tomorrow?"),
        ("other", "Sure, I will pick it up at eight."),
    ]
    names = resolve_names(OfflineExtractor(), [(turns, datetime(2026, 3, 2, tzinfo=UTC))], context=3)
    assert names == {"caller": None, "other": "Ingrid"}
