"""Evidence built in memory for the reader's pure tests: a line said by one person to others, and
the offline reader's answer over such lines. One copy for every pass's test file."""

from __future__ import annotations

from typing import Any

from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import compose
from voxmem.retrieval.fusion import fuse
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence, Hit


def said(
    people: list[dict[str, Any]],
    i: str,
    text: str,
    speaker: str,
    to: list[str],
    ts: str = "2026-05-08T10:00:00Z",
) -> Hit:
    """Turn ``i`` ("m<idx>") of session s1: ``text`` said by ``speaker`` to ``to`` (first names of
    ``people``), as one vector hit."""
    person = {p["name"].split()[0]: p for p in people}
    evidence = Evidence(
        id=i,
        session="s1",
        idx=int(i[1:]),
        text=text,
        ts=ts,
        speaker=person[speaker],
        addressees=[person[a] for a in to],
    )
    return Hit("interaction", "message_vector", i, text, 1.0, [evidence])


def answered(question: str, people: list[dict[str, Any]], hits: list[Hit]) -> str:
    """The offline reader's answer to ``question`` over ``hits``, in an open scope without asker."""
    reading = read_question(question, people)
    result = AgentResult(
        question, AccessScope("sp", "open", None, None), reading, "heuristic", fuse([hits]), [], {}
    )
    return compose(result).answer
