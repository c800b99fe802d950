"""Answers are honest about who is unknown: unnamed voices get labels, unknown askers a reason."""

from __future__ import annotations

from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import _label, _names, compose
from voxmem.retrieval.question import Reading
from voxmem.retrieval.scope import AccessScope


def test_unnamed_voices_get_labels() -> None:
    assert _label({"id": "p_1", "name": "Tom"}) == "Tom"
    assert _label({"id": "p_2", "name": None}) == "an unnamed voice (p_2)"
    assert _label(None) == "someone unknown"
    assert (
        _names([{"id": "p_1", "name": "Tom"}, {"id": "p_2", "name": None}])
        == "Tom and an unnamed voice (p_2)"
    )


def test_unanswered_question_from_an_unknown_asker_says_why() -> None:
    reading = Reading(text="Who asked for pizza?", kind="general", keywords=["pizza"])
    closed = AccessScope(space="s", access_policy="participant")
    unknown = compose(AgentResult("Who asked for pizza?", closed, reading, "heuristic", [], [], {}))
    assert unknown.answer == "not in memory" and any("asker not recognised" in n for n in unknown.notes)
    known = AccessScope(
        space="s", access_policy="participant", asker="p_ana", asker_name="Ana", identified_by="id"
    )
    named = compose(AgentResult("Who asked for pizza?", known, reading, "heuristic", [], [], {}))
    assert not any("asker not recognised" in n for n in named.notes)
