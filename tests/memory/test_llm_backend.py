"""The LLM backend's parsing, validation, retries, concurrency and token accounting, driven by
a scripted chat model. No quality claim: these answers are written by the test."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from voxmem.config import Settings
from voxmem.extractors import build_extractor
from voxmem.extractors.llm import ExtractionError, LLMExtractor, parse_answer, render_window

from .helpers import window


class ScriptedChat(BaseChatModel):
    """Returns the scripted answers in order and records every prompt it was sent."""

    answers: list[str]
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    lock: Any = None

    def model_post_init(self, _: Any) -> None:
        self.prompts = []
        self.lock = threading.Lock()

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        with self.lock:
            self.prompts.append(list(messages))
            text = self.answers[min(len(self.prompts) - 1, len(self.answers) - 1)]
        message = AIMessage(
            text, usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


GOOD = {
    "names": [{"speaker": "S2", "name": "Tom", "kind": "addressed", "alias": False, "confidence": 0.7}],
    "addressees": [{"target": "S2", "source": "vocative", "confidence": 0.9}],
    "facts": [{"content": "Maya is vegetarian.", "subject": "S1", "slot": "diet", "value": "vegetarian"}],
    "attributes": [{"holder": "S1", "kind": "preference", "text": "Maya is vegetarian."}],
}
W = window(
    [("a", "Hi, I'm Maya."), ("b", "Welcome!"), ("a", "Thanks, Tom. I'm vegetarian.")], names={"a": "Maya"}
)


def test_valid_answer_is_parsed_and_tokens_counted():
    chat = ScriptedChat(answers=[json.dumps(GOOD)])
    ex = LLMExtractor(chat)
    result = ex.extract(W)
    assert result.extractor == "llm" and result.record.facts[0].slot == "diet"
    assert (result.tokens_in, result.tokens_out) == (100, 20)
    assert ex.tokens.as_dict() == {"calls": 1, "tokens_in": 100, "tokens_out": 20, "failures": 0}
    prompt = chat.prompts[0][1].content
    assert "CURRENT [S1] Thanks, Tom. I'm vegetarian." in prompt and "S2: name unknown" in prompt


def test_broken_json_is_retried_with_the_error_fed_back():
    chat = ScriptedChat(answers=["{not: json}", "```json\n" + json.dumps(GOOD) + "\n```"])
    ex = LLMExtractor(chat, max_wait_s=0.01)
    result = ex.extract(W)
    assert result.record.names[0].name == "Tom"
    assert len(chat.prompts) == 2 and "invalid JSON" in chat.prompts[1][-1].content
    assert ex.tokens.as_dict()["failures"] == 1 and result.tokens_in == 200


def test_schema_violation_and_unknown_labels_are_rejected():
    bad_kind = json.loads(json.dumps(GOOD))
    bad_kind["attributes"][0]["kind"] = "hobby"
    with pytest.raises(ExtractionError, match="schema violation"):
        parse_answer(json.dumps(bad_kind), W)
    ghost = json.loads(json.dumps(GOOD))
    ghost["addressees"][0]["target"] = "S9"
    with pytest.raises(ExtractionError, match="unknown speaker labels"):
        parse_answer(json.dumps(ghost), W)
    self_address = json.loads(json.dumps(GOOD))
    self_address["addressees"][0]["target"] = "S1"
    with pytest.raises(ExtractionError, match="own addressee"):
        parse_answer(json.dumps(self_address), W)


def test_gives_up_after_bounded_attempts():
    chat = ScriptedChat(answers=['{"names": [{"speaker": "Maya"}]}'])
    ex = LLMExtractor(chat, attempts=3, max_wait_s=0.01)
    with pytest.raises(ExtractionError, match="after 3 attempts"):
        ex.extract(W)
    assert len(chat.prompts) == 3 and ex.tokens.failures == 3


def test_extract_many_keeps_order_under_bounded_concurrency():
    windows = [window([("a", f"I am number {i}.")], names={"a": "Maya"}) for i in range(6)]
    for i, w in enumerate(windows):
        w.current.message_id = f"m{i}"
    chat = ScriptedChat(answers=[json.dumps({"facts": [], "names": [], "addressees": [], "attributes": []})])
    results = LLMExtractor(chat, max_concurrency=2).extract_many(windows)
    assert [r.message_id for r in results] == [f"m{i}" for i in range(6)]
    assert len(chat.prompts) == 6


def test_window_rendering_shows_captions_and_aliases():
    w = window([("a", "Look at this!")], names={"a": "Maya"})
    w.current.captions = ["a lake at sunrise"]
    w.people["S1"].aliases = ["Mom"]
    text = render_window(w)
    assert "[image: a lake at sunrise]" in text and "S1: Maya (also: Mom)" in text


def test_llm_backend_needs_configuration():
    with pytest.raises(ValueError, match="no LLM configured"):
        build_extractor(Settings(llm_provider="none"), backend="llm")
    assert build_extractor(Settings(llm_provider="none")).name == "offline"


def test_graphiti_backend_is_importable_and_maps_edges():
    """Only the mapping is exercised: graphiti needs an LLM, which CI does not have."""
    from datetime import UTC, datetime
    from types import SimpleNamespace

    from voxmem.extractors.graphiti_backend import GraphitiExtractor, records_from_edges

    edges = [
        SimpleNamespace(fact="Maya is vegetarian.", valid_at=datetime(2026, 11, 1, tzinfo=UTC)),
        SimpleNamespace(fact="", valid_at=None),
    ]
    record = records_from_edges(edges, W)
    assert [(f.content, f.subject, f.time.value) for f in record.facts] == [
        ("Maya is vegetarian.", "S1", "2026-11-01")
    ]
    with pytest.raises(ValueError, match="graphiti needs an LLM"):
        GraphitiExtractor.from_settings(Settings(llm_provider="none"))


def test_graphiti_backend_constructs_offline_with_local_embeddings(monkeypatch):
    import numpy as np

    from voxmem.extractors.graphiti_backend import GraphitiExtractor

    monkeypatch.delenv("GRAPHITI_TELEMETRY_ENABLED", raising=False)

    class Zeros:
        def embed(self, texts):
            return np.zeros((len(texts), 384), dtype="float32")

    settings = Settings(llm_provider="openai", llm_model="any", llm_base_url="http://127.0.0.1:9/v1")
    backend = GraphitiExtractor.from_settings(settings, text_embedder=Zeros(), group_id="space-1")
    assert type(backend.graphiti).__name__ == "Graphiti" and backend.name == "graphiti"
    import os

    assert os.environ["GRAPHITI_TELEMETRY_ENABLED"] == "false"
