"""The LLM extraction backend: langchain chat models with JSON-schema structured output.

Why parse ourselves instead of trusting the provider: the provider is told the JSON
schema of :class:`TurnExtraction` (OpenAI-compatible ``response_format`` json_schema,
Ollama ``format``), but small local models still return broken or off-schema JSON, or
refer to speakers who are not in the window. Every answer is therefore parsed and
validated here (pydantic + window check) and a bad one is retried with tenacity, with
the error fed back to the model. Calls run with bounded concurrency
(``VOXMEM_LLM_MAX_CONCURRENCY``) and every call's token use is counted.

No quality claim is made for this backend without a real model; the tests drive it with
a scripted fake chat model to check parsing, validation and retries only.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import ValidationError
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from voxmem.extractors.offline import OfflineExtractor
from voxmem.extractors.schema import GROUP, ExtractionResult, TurnExtraction, is_label
from voxmem.extractors.window import Window
from voxmem.llm.client import chat_model

_RULES = OfflineExtractor()  # rules the model is not asked for (answered calls)

log = logging.getLogger(__name__)

SYSTEM = """You are a careful note-taker for a multi-party spoken conversation.
Read the context window and extract memory from the CURRENT turn only, as JSON matching the schema.
People: refer to speakers by their window label (S1, S2, ...); people who are only mentioned by name
go by that name. Use "group" as an addressee target when the turn addresses everyone.
- names: names or aliases the window gives a speaker (self-introductions "I'm Maya", "call me Kate",
  corrections, being thanked or called by name, kinship/role terms like "Dad" -> alias=true).
- addressees: to whom the CURRENT turn is said; source is one of vocative|reply|turn_taking|group|llm.
  If unknown, leave the list empty (never guess wildly).
- facts: self-contained third-person sentences; replace I/me/my/you/your with names (or the label
  in braces, e.g. {S2}, when the name is unknown); set slot+value for updatable things (checkout_time,
  room, diet, drink, music, seat, temperature, residence, job, favourite_<thing>) and time.value as
  an ISO date/month/year/week normalised against the session date.
- attributes: background | preference | relationship of a person, third person.
Return only JSON."""


class ExtractionError(Exception):
    """The model's answer could not be parsed or does not fit the window."""


@dataclass
class TokenCounter:
    """Thread-safe running totals of LLM token use and calls."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failures: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, tokens_in: int, tokens_out: int) -> None:
        with self._lock:
            self.calls += 1
            self.tokens_in += tokens_in
            self.tokens_out += tokens_out

    def fail(self) -> None:
        with self._lock:
            self.failures += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "failures": self.failures,
        }


def render_window(window: Window) -> str:
    """The window as plain text for the model: date, people, turns (current one marked)."""
    lines = [f"Session date: {window.reference_time.date().isoformat()}", "People:"]
    for label, person in window.people.items():
        aka = f" (also: {', '.join(person.aliases)})" if person.aliases else ""
        lines.append(f"  {label}: {person.name or 'name unknown'}{aka}")
    lines.append("Turns:")
    for turn in window.turns:
        mark = "CURRENT " if turn is window.current else ""
        extra = "".join(f" [image: {c}]" for c in turn.captions)
        lines.append(f"  {mark}[{turn.speaker}] {turn.text}{extra}")
    return "\n".join(lines)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_answer(text: str, window: Window) -> TurnExtraction:
    """Parse and validate one model answer; raises ExtractionError with a reason to feed back."""
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ExtractionError("the answer holds no JSON object")
    try:
        data = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ExtractionError(f"invalid JSON: {exc}") from exc
    try:
        record = TurnExtraction.model_validate(data)
    except ValidationError as exc:
        raise ExtractionError(f"schema violation: {exc.errors(include_url=False)[:3]}") from exc
    check_labels(record, window)
    return record


def check_labels(record: TurnExtraction, window: Window) -> None:
    """Every window label the record uses must exist; a speaker cannot address themself."""
    refs = [n.speaker for n in record.names] + [a.target for a in record.addressees]
    refs += [f.subject for f in record.facts] + [x for f in record.facts for x in f.about]
    refs += [a.holder for a in record.attributes]
    unknown = sorted({r for r in refs if is_label(r) and r not in window.people})
    if unknown:
        raise ExtractionError(f"unknown speaker labels {unknown}; the window has {sorted(window.people)}")
    if any(a.target == window.current.speaker for a in record.addressees):
        raise ExtractionError("the current speaker cannot be their own addressee")
    if any(a.target == GROUP and len(window.people) < 2 for a in record.addressees):
        raise ExtractionError("group address with nobody else present")


def _usage(message: BaseMessage) -> tuple[int, int]:
    usage = getattr(message, "usage_metadata", None) or {}
    return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))


class LLMExtractor:
    """One chat call per window, JSON-schema constrained, validated, retried, counted."""

    name = "llm"

    def __init__(
        self, model: BaseChatModel, max_concurrency: int = 4, attempts: int = 3, max_wait_s: float = 8.0
    ) -> None:
        self.model = model
        self.max_concurrency = max(1, max_concurrency)
        self.attempts = attempts
        self.max_wait_s = max_wait_s
        self.tokens = TokenCounter()
        self._slots = threading.BoundedSemaphore(self.max_concurrency)

    @classmethod
    def from_settings(cls, settings: Any) -> LLMExtractor:
        return cls(
            chat_model(settings, json_schema=TurnExtraction.model_json_schema()),
            max_concurrency=settings.llm_max_concurrency,
        )

    def extract(self, window: Window) -> ExtractionResult:
        messages: list[BaseMessage] = [SystemMessage(SYSTEM), HumanMessage(render_window(window))]
        used_in = used_out = 0
        try:
            for attempt in Retrying(
                retry=retry_if_exception_type(ExtractionError),
                stop=stop_after_attempt(self.attempts),
                wait=wait_exponential(multiplier=0.2, max=self.max_wait_s),
                reraise=False,
            ):
                with attempt:
                    with self._slots:
                        answer = self.model.invoke(messages)
                    t_in, t_out = _usage(answer)
                    used_in, used_out = used_in + t_in, used_out + t_out
                    self.tokens.add(t_in, t_out)
                    text = answer.content if isinstance(answer.content, str) else json.dumps(answer.content)
                    try:
                        record = parse_answer(text, window)
                    except ExtractionError as exc:
                        self.tokens.fail()
                        messages = [
                            *messages[:2],
                            AIMessage(text),
                            HumanMessage(f"That answer was rejected: {exc}. Reply with corrected JSON only."),
                        ]
                        raise
        except RetryError as exc:
            raise ExtractionError(
                f"no valid extraction after {self.attempts} attempts: {exc.last_attempt.exception()}"
            ) from exc
        # the backward step is a rule over the window, not asked of the model (see TurnExtraction)
        record.answered = _RULES.answered_calls(window)
        return ExtractionResult(
            message_id=window.current.message_id,
            extractor="llm",
            record=record,
            tokens_in=used_in,
            tokens_out=used_out,
        )

    def extract_many(self, windows: Sequence[Window]) -> list[ExtractionResult]:
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            return list(pool.map(self.extract, windows))
