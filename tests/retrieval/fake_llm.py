"""A scripted langchain chat model: replies by which prompt it gets (planner or answerer).

Stands in for an LLM endpoint so the LLM planner's and answerer's parsing run for real
through langchain's ``invoke`` path; it claims nothing about answer quality.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class ScriptedChat(BaseChatModel):
    """``planner(prompt_text)`` and ``answerer(prompt_text)`` return the reply text."""

    planner: Callable[[str], str]
    answerer: Callable[[str], str]
    calls: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.calls.append(prompt)
        reply = self.planner(prompt) if "plan memory retrieval" in prompt else self.answerer(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])
