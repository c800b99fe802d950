"""LangChain adapters over the voxmem HTTP API: a chat-message history that writes and reads
turns (speaker, addressees), a retriever and a tool.

    from voxmem.client import VoxmemClient
    from voxmem.integrations.langchain import VoxmemRetriever, voxmem_tool

    client = VoxmemClient("http://127.0.0.1:8765", api_key="vxm_…")
    docs = VoxmemRetriever(client=client, space="household-1", asker="p_…").invoke("pizza")
    tool = voxmem_tool(client, "household-1", asker="p_…")   # give it to any tool-calling agent
    history = VoxmemChatMessageHistory(client, "household-1", "chat-1", user="Maya", ai="Assistant")

Both go through the API, so the space key and the asker's access scope apply exactly as
for any other client: the agent sees only what the asker may see.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from voxmem.api.schemas import MessageOut
from voxmem.client import VoxmemClient


def evidence_document(item: dict[str, Any], scope: dict[str, Any] | None = None) -> Document:
    """One evidence turn as a LangChain Document: text as content, who/whom/when as metadata."""
    speaker = (item.get("speaker") or {}).get("name")
    return Document(
        page_content=item["text"],
        id=item["id"],
        metadata={
            "message_id": item["id"],
            "speaker": speaker,
            "addressees": [a.get("name") for a in item.get("addressees") or []],
            "session": item.get("session"),
            "ts": item.get("ts"),
            "score": item.get("score"),
            "layers": item.get("layers"),
            "support": [s.get("text") for s in item.get("support") or []],
            "scope_policy": (scope or {}).get("policy"),
        },
    )


class VoxmemRetriever(BaseRetriever):
    """Scoped hybrid search (``POST /spaces/{space}/retrieve``) as a LangChain retriever."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: VoxmemClient
    space: str
    asker: str | None = None
    k: int = 10
    layers: list[str] | None = None
    filters: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = self.client.retrieve(
            self.space, query, asker=self.asker, k=self.k, layers=self.layers, **self.filters
        )
        return [evidence_document(item, found.get("scope")) for item in found["evidence"]]


class _AskArgs(BaseModel):
    question: str = Field(
        description="A question about past conversations (who said what to whom, facts, "
        "preferences, when things happened)."
    )


def voxmem_tool(
    client: VoxmemClient,
    space: str,
    asker: str | None = None,
    name: str = "voxmem_memory",
    max_evidence: int = 5,
) -> StructuredTool:
    """A tool that asks voxmem and returns the answer with its evidence ids, as JSON text."""

    def ask(question: str) -> str:
        answer = client.query(space, question, asker=asker, max_evidence=max_evidence)
        return json.dumps(
            {
                "answer": answer["answer"],
                "supported": answer["supported"],
                "evidence": [
                    {
                        "id": e["id"],
                        "speaker": (e.get("speaker") or {}).get("name"),
                        "to": [a.get("name") for a in e.get("addressees") or []],
                        "ts": e.get("ts"),
                        "text": e["text"],
                    }
                    for e in answer["evidence"][:max_evidence]
                ],
                "scope": answer["scope"]["rule"],
            }
        )

    return StructuredTool.from_function(
        func=ask,
        name=name,
        description=(
            "Long-term memory of spoken conversations. Ask who said something, to whom, what was "
            "decided, a person's preferences or when something happened. Returns an answer or "
            "'not in memory', with the supporting turns."
        ),
        args_schema=_AskArgs,
    )


class VoxmemChatMessageHistory(BaseChatMessageHistory):
    """A LangChain chat history kept as a voxmem session: every message is a turn with a speaker
    and addressees, so what the chat says becomes memory (facts, profiles) like any other turn.

    A human message is spoken by ``message.name`` or ``user``; an AI message by ``ai``. The
    addressees are ``additional_kwargs["addressees"]`` when given, else the other side. Reading
    returns the session's turns in order: the ``ai`` speaker's as ``AIMessage``, everyone else's
    as ``HumanMessage`` with ``name`` = speaker, and ``addressees``/``message_id``/``ts`` in
    ``additional_kwargs``. Several people can talk in one history (set ``name`` per message).
    """

    def __init__(
        self, client: VoxmemClient, space: str, session: str, user: str = "User", ai: str = "Assistant"
    ) -> None:
        self.client, self.space, self.session, self.user, self.ai = client, space, session, user, ai

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        for message in messages:
            is_ai = isinstance(message, AIMessage)
            speaker = message.name or (self.ai if is_ai else self.user)
            addressees = message.additional_kwargs.get("addressees")
            if addressees is None:
                addressees = [self.user if is_ai else self.ai]
            self.client.append_turn(
                self.space,
                self.session,
                speaker,
                message.text if hasattr(message, "text") else str(message.content),
                addressees=[a for a in addressees if a != speaker],
                turn_id=f"{self.session}-{message.id}" if message.id else None,
            )

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        turns: list[MessageOut] = []
        page = 1000
        while True:
            batch = self.client.list_messages(self.space, session=self.session, skip=len(turns), limit=page)
            turns += batch
            if len(batch) < page:
                break
        out: list[BaseMessage] = []
        for turn in turns:
            speaker = (turn.speaker.name if turn.speaker else None) or "unknown"
            extra = {
                "addressees": [a.name or a.id for a in turn.addressees],
                "message_id": turn.id,
                "ts": turn.ts,
            }
            if speaker == self.ai:
                out.append(AIMessage(content=turn.text, name=speaker, additional_kwargs=extra))
            else:
                out.append(HumanMessage(content=turn.text, name=speaker, additional_kwargs=extra))
        return out

    def clear(self) -> None:
        """Not offered: turns are memory evidence and leave only with their speaker
        (``client.delete_participant``) or their space; a chat cannot erase what people said."""
        raise NotImplementedError(
            "voxmem does not delete single sessions; delete a participant or the space instead"
        )
