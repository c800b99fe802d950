"""LangChain adapters: a retriever and a tool over the voxmem HTTP API.

    from voxmem.client import VoxmemClient
    from voxmem.integrations.langchain import VoxmemRetriever, voxmem_tool

    client = VoxmemClient("http://127.0.0.1:8765", api_key="vxm_…")
    docs = VoxmemRetriever(client=client, space="household-1", asker="p_…").invoke("pizza")
    tool = voxmem_tool(client, "household-1", asker="p_…")   # give it to any tool-calling agent

Both go through the API, so the space key and the asker's access scope apply exactly as
for any other client: the agent sees only what the asker may see.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, Field

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
