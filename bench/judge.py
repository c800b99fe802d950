"""LLM judge: grades an answer against the gold on the 0 / 0.25 / 0.5 / 0.75 / 1 scale.

Runs when an LLM is configured (``VOXMEM_LLM_PROVIDER`` openai|ollama and ``VOXMEM_LLM_MODEL``)
or when a benchmark hands it a chat model (``bench.llm_bench --judge`` uses the local llama.cpp
model); otherwise the report says the judge did not run, and the string scores (containment,
F1, exact match) stand alone. The scale matches the one the VoxPolyMem reference reports
(VoxPolyBench 0.838), so the numbers are comparable. The instructions are the system message
and come first, so a llama.cpp server reuses their evaluated prefix across questions; the reply
is constrained to the scale (a grammar on the local server), so one call is a few tokens.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from voxmem.config import Settings
from voxmem.llm.client import Endpoint, chat_model, constrain, resolve

SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)

SYSTEM = """You grade answers of a memory assistant against a gold answer.
Score how well the assistant's answer matches the gold answer in meaning:
1 = fully correct; 0.75 = correct but with minor omissions or extra hedging;
0.5 = partly correct; 0.25 = mostly wrong but related; 0 = wrong, or an answer where the gold
says the information was not mentioned (or the reverse). A longer answer that contains the
gold's meaning is correct.
Reply with JSON: {"score": <one of 0, 0.25, 0.5, 0.75, 1>}"""

PROMPT = """Question: {question}
Gold answer: {gold}
Assistant's answer: {answer}"""

SCHEMA = {"type": "object", "properties": {"score": {"enum": list(SCALE)}}, "required": ["score"]}


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

    def __init__(
        self, settings: Settings, model: Any = None, name: str | None = None, endpoint: Endpoint | None = None
    ) -> None:
        """``model``: an already built langchain chat model (the local one, or a scripted one in
        tests) served at ``endpoint``; ``name`` says which model graded, for the report."""
        if model is None and not settings.llm_enabled:
            raise ValueError("no LLM configured: set VOXMEM_LLM_PROVIDER and VOXMEM_LLM_MODEL")
        if model is None:
            endpoint = resolve(settings)
            model = chat_model(settings, endpoint=endpoint)
        self.model = constrain(model, endpoint, SCHEMA, max_tokens=12) if endpoint else model
        self.name = name or (endpoint.describe() if endpoint else type(model).__name__)

    def grade(self, question: str, gold: str, answer: str) -> float | None:
        messages = [
            SystemMessage(SYSTEM),
            HumanMessage(PROMPT.format(question=question, gold=gold, answer=answer or "(no answer)")),
        ]
        reply = self.model.invoke(messages)
        return parse_grade(getattr(reply, "content", str(reply)))


def maybe_judge(settings: Settings) -> LLMJudge | None:
    """A judge when an LLM is configured, else None (the runner records 'judge: not run')."""
    return LLMJudge(settings) if settings.llm_enabled else None
