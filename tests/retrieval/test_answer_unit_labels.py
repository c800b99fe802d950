"""Graph-native answers name unnamed voices honestly instead of returning no answer."""

from __future__ import annotations

from voxmem.retrieval.answer import _label, _names


def test_unnamed_voices_get_labels() -> None:
    assert _label({"id": "p_1", "name": "Tom"}) == "Tom"
    assert _label({"id": "p_2", "name": None}) == "an unnamed voice (p_2)"
    assert _label(None) == "someone unknown"
    assert (
        _names([{"id": "p_1", "name": "Tom"}, {"id": "p_2", "name": None}])
        == "Tom and an unnamed voice (p_2)"
    )
