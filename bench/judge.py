"""LLM judge: grades an answer against the gold on the 0 / 0.25 / 0.5 / 0.75 / 1 scale.

Only runs when an LLM is configured (``VOXMEM_LLM_PROVIDER`` openai|ollama and
``VOXMEM_LLM_MODEL``); otherwise the report says the judge did not run, and the
string scores (containment, F1, exact match) stand alone. The scale matches the one the
VoxPolyMem reference reports (VoxPolyBench 0.838), so the numbers are comparable.
"""

from __future__ import annotations

import re
from typing import Any

from voxmem.config import Settings
from voxmem.llm.client import chat_model

SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)

PROMPT = """You grade answers of a memory assistant against a gold answer.
Question: {question}
Gold answer: {gold}
Assistant's answer: {answer}

Score how well the assistant's answer matches the gold answer in meaning:
1 = fully correct; 0.75 = correct but with minor omissions or extra hedging;
0.5 = partly correct; 0.25 = mostly wrong but related; 0 = wrong, or an answer where the gold
says the information was not mentioned (or the reverse).
Reply with the number only (one of 0, 0.25, 0.5, 0.75, 1)."""


def parse_grade(text: str) -> float | None:
    """The first number in the reply, snapped to the scale; None when there is none."""
    match = re.search(r"\d+(?:\.\d+)?", text or "")
    if not match:
        return None
    value = float(match.group(0))
    if value > 1.0:
        return None
    return min(SCALE, key=lambda s: abs(s - value))


class LLMJudge:
    """A langchain chat model asked once per question (temperature 0)."""

    def __init__(self, settings: Settings, model: Any = None) -> None:
        """``model``: an already built langchain chat model (tests pass a scripted one)."""
        if model is None and not settings.llm_enabled:
            raise ValueError("no LLM configured: set VOXMEM_LLM_PROVIDER and VOXMEM_LLM_MODEL")
        self.model = model if model is not None else chat_model(settings)
        self.name = f"{settings.llm_provider}:{settings.llm_model}" if model is None else type(model).__name__

    def grade(self, question: str, gold: str, answer: str) -> float | None:
        reply = self.model.invoke(PROMPT.format(question=question, gold=gold, answer=answer or "(no answer)"))
        return parse_grade(getattr(reply, "content", str(reply)))


def maybe_judge(settings: Settings) -> LLMJudge | None:
    """A judge when an LLM is configured, else None (the runner records 'judge: not run')."""
    return LLMJudge(settings) if settings.llm_enabled else None
