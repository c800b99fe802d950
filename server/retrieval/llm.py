"""The optional LLM side of retrieval: the LLM planner.

Only used when an LLM is configured for every role (``VOXMEM_LLM_PROVIDER`` local, openai or
ollama; the chat model comes from ``voxmem.llm.client``); everything else runs offline. The
planner asks for JSON actions and validates them against the tool registry's catalogue; anything it
cannot parse falls back to the heuristic planner for that round, and the trace says so. No
quality is claimed for it here: it is tested for parsing only.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from voxmem.retrieval.agent import Action, AgentState, HeuristicPlanner
from voxmem.retrieval.answer import parse_json_object
from voxmem.retrieval.tools import LAYERS, Filters, catalogue

log = logging.getLogger(__name__)


class LLMPlanner:
    """Asks a chat model for the next round's actions as JSON; falls back to the heuristic planner."""

    name = "llm"

    def __init__(self, chat_model: Any, max_actions: int = 6) -> None:
        self.chat_model = chat_model
        self.max_actions = max_actions
        self.fallback = HeuristicPlanner()
        self.fallbacks = 0

    def prompt(self, state: AgentState) -> list[tuple[str, str]]:
        tools = "\n".join(f"- {name} (layer {layer}): {doc}" for name, (layer, doc) in catalogue().items())
        evidence = "\n".join(
            f"[{e.id}] {(e.evidence.speaker or {}).get('name', '?')}: {e.evidence.text[:200]}"
            for e in state.evidence()[:8]
        )
        history = json.dumps([a.as_dict() for a in state.history])
        people = ", ".join(p["name"] for p in state.participants[:50] if p.get("name"))
        system = (
            "You plan memory retrieval for a question about past multi-party conversations. "
            "Choose tools, rewrite the query, and set speaker/addressee/about filters (participant names). "
            'Reply with JSON only: {"stop": bool, "actions": [{"layer": str, "tool": str, "query": str, '
            '"speaker": str|null, "addressee": str|null, "about": str|null, "current_only": bool}]}. '
            "Set stop to true when the evidence already answers the question."
        )
        user = (
            f"Question: {state.query}\nAsker: {state.scope.asker_name or 'unknown'}\n"
            f"Participants: {people}\nRound {state.round} of {state.max_rounds}, budget "
            f"{state.remaining_budget}\nTools:\n{tools}\nActions so far: {history}\n"
            f"Evidence so far:\n{evidence}"
        )
        return [("system", system), ("human", user)]

    def parse(self, text: str, state: AgentState) -> list[Action] | None:
        """Validated actions from a model reply; [] means stop; None means unusable."""
        parsed = parse_json_object(text)
        if parsed is None:
            return None
        if parsed.get("stop") is True:
            return []
        raw = parsed.get("actions")
        if not isinstance(raw, list):
            return None
        names = {p["name"].lower(): p["id"] for p in state.participants if p.get("name")}
        if state.scope.asker:
            for word in ("i", "me", "asker", "myself"):
                names[word] = state.scope.asker

        def person(value: Any) -> str | None:
            if not isinstance(value, str) or not value.strip():
                return None
            return names.get(value.strip().lower(), value.strip())

        known = catalogue()
        actions = []
        for item in raw[: self.max_actions]:
            if not isinstance(item, dict) or item.get("tool") not in known:
                continue
            tool = item["tool"]
            layer = item["layer"] if item.get("layer") in LAYERS else known[tool][0]
            query = item.get("query") if isinstance(item.get("query"), str) else state.query
            filters = Filters(
                speaker=person(item.get("speaker")),
                addressee=person(item.get("addressee")),
                about=person(item.get("about")),
                participant=person(item.get("about")) if layer == "profile" else None,
                current_only=bool(item.get("current_only", False)),
            )
            actions.append(Action(layer, tool, query or state.query, filters, why="llm"))
        return actions or None

    def plan(self, state: AgentState) -> list[Action]:
        try:
            reply = self.chat_model.invoke(self.prompt(state))
            content = getattr(reply, "content", reply)
            actions = self.parse(content if isinstance(content, str) else str(content), state)
        except Exception as exc:  # an unreachable model must not fail the query
            log.warning("LLM planner failed, heuristic used: %s", exc)
            actions = None
        if actions is None:
            self.fallbacks += 1
            return [
                Action(a.layer, a.tool, a.query, a.filters, a.k, "heuristic fallback: " + a.why)
                for a in self.fallback.plan(state)
            ]
        return actions
