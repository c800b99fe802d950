"""LangChain chat history, retriever and tool, and the LangGraph store, against the real server
(the typed client over FastAPI's TestClient)."""

from __future__ import annotations

import json
from typing import TypedDict

import pytest
from fastapi.testclient import TestClient
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from voxmem.client import VoxmemClient
from voxmem.core import Voxmem
from voxmem.integrations.langchain import VoxmemChatMessageHistory, VoxmemRetriever, voxmem_tool
from voxmem.integrations.langgraph import STORE_SESSION, VoxmemStore


@pytest.fixture
def client(app_client: TestClient, space_key: str) -> VoxmemClient:
    return VoxmemClient(http=app_client, api_key=space_key)


def test_chat_history_writes_turns_with_addressees_and_reads_them_back(
    client: VoxmemClient, space: str
) -> None:
    history = VoxmemChatMessageHistory(client, space, "chat-1", user="Maya", ai="Assistant")
    history.add_messages(
        [
            HumanMessage("Remind me: Tom's birthday is on March 3.", id="m1"),
            AIMessage("Noted, Maya.", id="m2"),
            HumanMessage(
                "Tom, did you hear that?", name="Lena", id="m3", additional_kwargs={"addressees": ["Tom"]}
            ),
        ]
    )
    history.add_messages([HumanMessage("Remind me: Tom's birthday is on March 3.", id="m1")])  # retry
    read = history.messages
    assert [type(m).__name__ for m in read] == ["HumanMessage", "AIMessage", "HumanMessage"]
    assert [m.name for m in read] == ["Maya", "Assistant", "Lena"]
    assert [m.additional_kwargs["addressees"] for m in read] == [["Assistant"], ["Maya"], ["Tom"]]
    assert read[0].content == "Remind me: Tom's birthday is on March 3."
    stored = client.list_messages(space, session="chat-1")
    assert [m.speaker.name for m in stored] == ["Maya", "Assistant", "Lena"]
    with pytest.raises(NotImplementedError):
        history.clear()


def test_retriever_and_tool_read_in_the_askers_scope(
    client: VoxmemClient, space: str, services: Voxmem
) -> None:
    services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = 'private'", space=space)
    client.append_turn(space, "k", "Maya", "Tom, the garage door code is 4417.", addressees=["Tom"])
    client.append_turn(space, "k", "Lena", "I water the plants on Sundays.")
    docs = VoxmemRetriever(client=client, space=space, asker="Tom", k=5).invoke("garage door code")
    assert docs and docs[0].page_content == "Tom, the garage door code is 4417."
    assert docs[0].metadata["speaker"] == "Maya" and docs[0].metadata["addressees"] == ["Tom"]
    hidden = VoxmemRetriever(client=client, space=space, asker="Lena", k=5).invoke("garage door code")
    assert all("4417" not in d.page_content for d in hidden)
    out = json.loads(
        voxmem_tool(client, space, asker="Tom").invoke({"question": "What is the garage door code?"})
    )
    assert any("4417" in e["text"] for e in out["evidence"])


def test_langgraph_store_over_facts_with_history_and_scope(client: VoxmemClient, space: str) -> None:
    store = VoxmemStore(client, space)
    store.put(("Lena", "facts"), "lena-1", {"text": "I moved to Lisbon last spring."})
    store.put(("Lena", "facts"), "lena-1", {"text": "I moved to Lisbon last spring."})  # stored once
    # a new value under the same key is a new statement (it was a replay of the first, dropped);
    # a key may hold characters a turn id may not
    store.put(("Lena", "facts"), "lena-1", {"text": "Actually I moved to Porto in May."})
    store.put(("Ana", "facts"), "ana/notes 1", {"text": "I am allergic to peanuts.", "session": "ana-notes"})
    said = [m.text for m in client.list_messages(space, session=STORE_SESSION)]
    assert said == ["I moved to Lisbon last spring.", "Actually I moved to Porto in May."]

    lena = store.search(("Lena", "facts"))
    by_text = {i.value["content"]: i for i in lena}
    assert by_text["Lena moved to Lisbon last spring."].value["current"] is False  # superseded, kept
    assert by_text["Actually Lena moved to Porto in May."].value["current"] is True
    assert all(i.value["sources"] for i in lena)  # provenance: the source turns
    key = by_text["Actually Lena moved to Porto in May."].key
    assert store.get(("Lena", "facts"), key).value["slot"] == "residence"
    assert store.get(("Lena", "facts"), "fact_nope") is None
    assert ("Ana", "facts") in store.list_namespaces() and ("Lena", "attributes") in store.list_namespaces()
    assert store.search(("Lena", "facts"), filter={"current": True})[0].key == key

    # with an asker, reads go through /retrieve in their scope ('participant' policy: sessions they were in)
    as_lena = VoxmemStore(client, space, asker="Lena").search(("Lena", "facts"), query="where does Lena live")
    assert {i.value["text"] for i in as_lena} >= {"Actually Lena moved to Porto in May."}
    as_ana = VoxmemStore(client, space, asker="Ana").search(("Lena", "facts"), query="where does Lena live")
    assert as_ana == []  # Ana was not in the session where Lena said it
    with pytest.raises(NotImplementedError):
        store.delete(("Lena", "facts"), key)


def test_a_langgraph_graph_reads_memory_through_the_store(client: VoxmemClient, space: str) -> None:
    store = VoxmemStore(client, space)
    store.put(("Ana", "facts"), "ana-1", {"text": "I am allergic to peanuts.", "session": "ana-notes"})

    class State(TypedDict):
        person: str
        facts: list[str]

    def recall(state: State, *, store: BaseStore) -> dict:
        return {"facts": [i.value["content"] for i in store.search((state["person"], "facts"))]}

    graph = StateGraph(State)
    graph.add_node("recall", recall)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", END)
    out = graph.compile(store=store).invoke({"person": "Ana", "facts": []})
    assert out["facts"] == ["Ana is allergic to peanuts."]
