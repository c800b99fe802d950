"""The retrieval service one server process shares: scope → agent → answer, plus search and profile.

Built lazily by :class:`voxmem.core.Voxmem` (its ``retrieval`` attribute); settings pick the
default policy, the per-round budgets and the LLM (when configured).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from voxmem.config import Settings
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder
from voxmem.errors import InvalidInput, NotFound
from voxmem.llm import client as llm_client
from voxmem.retrieval.agent import POLICIES, Agent, Neighbours, Policy
from voxmem.retrieval.answer import Answer, compose
from voxmem.retrieval.fusion import FUSION_DEPTH, fuse, neighbour_anchors, with_neighbours
from voxmem.retrieval.llm import LLMPlanner
from voxmem.retrieval.llm_reader import LLMReader
from voxmem.retrieval.scope import AccessScope, resolve_scope
from voxmem.retrieval.tools import (
    LAYERS,
    ContextRetriever,
    EmbeddingCache,
    Evidence,
    Filters,
    Hit,
    LeanEvidence,
    ParticipantDirectory,
    Retriever,
    build_tools,
    layers_present,
    search_tools,
)

DEFAULT_BUDGETS = (30, 8, 5)


def parse_budgets(value: str | None) -> tuple[int, ...]:
    """'30,8,5' → (30, 8, 5); each budget a positive integer."""
    if not value:
        return DEFAULT_BUDGETS
    try:
        budgets = tuple(int(part) for part in value.split(","))
    except ValueError as exc:
        raise InvalidInput(f"budgets must be comma-separated integers, got {value!r}") from exc
    if not budgets or any(b < 1 or b > 200 for b in budgets):
        raise InvalidInput("each budget must be between 1 and 200")
    return budgets


class RetrievalService:
    def __init__(
        self, settings: Settings, db: Database, embedder: TextEmbedder, chat_model: Any | None = None
    ) -> None:
        self.settings = settings
        self.db = db
        self.tools = build_tools(db, embedder)
        embed = self.tools["message_vector"].embed
        if embed is None:  # build_tools gives every vector tool the shared query-embedding cache
            raise RuntimeError("the message_vector tool was built without a text embedder")
        self.embed = embed
        context = self.tools["context"]
        if not isinstance(context, ContextRetriever):
            raise RuntimeError("the context tool is not a ContextRetriever")
        self.context = context  # the fused round's rows and neighbours (fuse_round)
        # tool calls of one round run concurrently: Neo4j does the work, Python waits on sockets
        self.executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="voxmem-retrieval")
        self.directory = ParticipantDirectory(db)
        # A chat model handed in (tests, embedding apps) is used as given; otherwise the endpoint
        # is resolved per question, so a local LLM started after the API is picked up (auto).
        self.given_chat_model = chat_model
        self._endpoint_models: dict[llm_client.Endpoint, Any] = {}
        self.budgets = parse_budgets(settings.retrieval_budgets)
        self.max_rounds = min(settings.retrieval_max_rounds, len(self.budgets))
        # The LLM plans only when configured for every role; an auto-detected local LLM only
        # answers (one call per question is what 2 cores afford).
        plans = chat_model is not None or settings.llm_enabled
        self.default_policy = settings.retrieval_policy or (
            "llm" if plans and self.chat_model is not None else "heuristic"
        )

    @property
    def chat_model(self) -> Any | None:
        """The chat model in use now: the one handed in, else the configured/auto-detected one."""
        if self.given_chat_model is not None:
            return self.given_chat_model
        endpoint = llm_client.resolve(self.settings)
        if endpoint is None:
            return None
        if endpoint not in self._endpoint_models:
            self._endpoint_models[endpoint] = llm_client.chat_model(
                self.settings, endpoint=endpoint, max_tokens=128
            )
        return self._endpoint_models[endpoint]

    def reader(self) -> LLMReader | None:
        """The LLM reader for this question, or None offline."""
        model = self.chat_model
        if model is None:
            return None
        endpoint = None if self.given_chat_model is not None else llm_client.resolve(self.settings)
        return LLMReader(model, endpoint)

    @property
    def policies(self) -> list[str]:
        names = list(POLICIES)
        if self.chat_model is not None:
            names.append("llm")
        return names

    def policy(self, name: str | None) -> Policy:
        name = name or self.default_policy
        if name == "llm":
            if self.chat_model is None:
                raise InvalidInput(
                    "the llm policy needs an LLM: set VOXMEM_LLM_PROVIDER and VOXMEM_LLM_MODEL"
                )
            return LLMPlanner(self.chat_model)
        if name not in POLICIES:
            raise InvalidInput(f"unknown policy {name!r}; choose one of {', '.join(self.policies)}")
        return POLICIES[name]()

    def agent(
        self,
        budgets: tuple[int, ...] | None = None,
        max_rounds: int | None = None,
        *,
        tools: Mapping[str, Retriever] | None = None,
        embed: EmbeddingCache | None = None,
        layers: Callable[[str], set[str]] | None = None,
        neighbours: Neighbours | None = None,
    ) -> Agent:
        """The agent ``ask`` runs. ``tools``, ``embed``, ``layers`` and ``neighbours`` replace where
        the service gets the same answers (the policy trainer's environment, bench/train_policy.py:
        its cache of these tools' outputs, its memoised query vectors); how the agent is built —
        the RRF k, round 1's depth and neighbour step, the budgets — stays this one method's. Why:
        the trainer's own copy of this construction kept the agent from before the fused round
        (RRF k 60, no neighbours), so the learned policy was trained and compared in an
        environment the product no longer ran (docs/retrieval.md "Learned policy in the fused
        round's agent")."""
        budgets = budgets or self.budgets
        return Agent(
            dict(tools) if tools is not None else self.tools,
            self.directory.list,
            budgets=budgets,
            max_rounds=min(max_rounds or self.max_rounds, len(budgets)),
            # one fusion design: every round fused with /retrieve's RRF k, round 1 also at its
            # depth and with its neighbour step (docs/retrieval.md "The agent's evidence and the
            # fused round")
            rrf_k=self.settings.fusion_rrf_k,
            executor=self.executor,
            embed=embed if embed is not None else self.embed,
            layers=layers if layers is not None else (lambda space: layers_present(self.db, space)),
            neighbours=neighbours if neighbours is not None else self.neighbours,
        )

    def neighbours(self, scope: AccessScope, anchors: list[str]) -> dict[str, list[Evidence]]:
        """The visible turns one position before and after each anchor, in one scoped query."""
        return self.context.turns(scope, anchors, anchors, window=1)[1]

    def scope(self, space: str, asker: str | None, identified_by: str = "id") -> AccessScope:
        return resolve_scope(self.db, space, asker, identified_by)

    def ask(
        self,
        scope: AccessScope,
        question: str,
        policy: str | None = None,
        budgets: tuple[int, ...] | None = None,
        max_rounds: int | None = None,
        use_llm: bool = True,
        max_evidence: int = 10,
    ) -> Answer:
        """Run the agent inside ``scope`` and answer from what it retained."""
        result = self.agent(budgets, max_rounds).run(question, scope, self.policy(policy))
        llm = self.reader() if use_llm else None
        return compose(result, llm=llm, max_evidence=max_evidence, embed=self.embed)

    def search(
        self,
        scope: AccessScope,
        text: str,
        layers: list[str] | None = None,
        filters: Filters | None = None,
        k: int = 10,
    ) -> list[dict[str, Any]]:
        """One round, no planning: the chosen layers' vector + full-text (+ SPLADE) tools fused by RRF."""
        layers = layers or list(LAYERS)
        unknown = [layer for layer in layers if layer not in LAYERS]
        if unknown:
            raise InvalidInput(f"unknown layer(s) {unknown}; choose from interaction, fact, profile")
        if not text.strip():
            raise InvalidInput("search text is empty")
        self.embed.prime([text])
        depth = max(k, FUSION_DEPTH)  # each tool ranks deeper than k: fusion promotes from below k

        def run(name: str) -> list[Hit]:  # the message tools' rankings are lean (Retriever.ranking)
            return self.tools[name].ranking(scope, text, filters or Filters(), k=depth)

        # Only the derived layers holding anything get their tools. The scope read them with the
        # access policy (retrieve_scope, before the round: no query of the round's own, which had
        # run beside the channels on the two cores; docs/retrieval.md "Latency, twelfth pass"); a
        # scope built without them has them asked beside the message tools, not before (a
        # sequential round trip on every /retrieve: "Latency, fourth pass").
        derived = [layer for layer in layers if layer != "interaction"]
        asked = None
        if derived and scope.layers is None:
            asked = self.executor.submit(layers_present, self.db, scope.space)
        first = search_tools(["interaction"]) if "interaction" in layers else []
        running = {t.name: self.executor.submit(run, t.name) for t in first}
        present: set[str] | frozenset[str] = set()
        if scope.layers is not None:
            present = scope.layers
        elif asked is not None:
            present = asked.result()
        after = [t for t in search_tools(derived) if t.layer in present]
        running |= {t.name: self.executor.submit(run, t.name) for t in after}
        calls = [t.name for layer in layers for t in search_tools([layer]) if t.name in running]
        return self.fuse_round(scope, [running[name].result() for name in calls], filters, k)

    def fuse_round(
        self, scope: AccessScope, rankings: list[list[Hit]], filters: Filters | None = None, k: int = 10
    ) -> list[dict[str, Any]]:
        """The fused round's second half, given the tools' rankings (each at depth FUSION_DEPTH):
        RRF; then ONE scoped query (:meth:`ContextRetriever.turns`) for the rows of the top k turns
        a ranking knew only by id (lean rows, :meth:`Retriever.ranking`) and the neighbours of the
        top NEXT_TOP (unless the search was filtered); the neighbour step; the rows.

        Why one query suffices: a neighbour's score only grows and every other turn's stays, so
        the final top k lie among the fused top k and the top NEXT_TOP's neighbours, whose rows
        that query returns. It checks the access rule on every turn again (each channel query
        already did, on every hit), and a lean turn it returns no row for is left out rather than
        returned unread. A turn a search tool found keeps the search tools' row form
        (:meth:`Evidence.as_search_row`), a turn only the neighbour step found the context tool's,
        as before late materialisation (docs/retrieval.md "Latency, eleventh pass").
        Public so a benchmark that already holds the rankings measures exactly this code."""
        fused = fuse(rankings, k=self.settings.fusion_rrf_k)
        expand = filters is None or not filters.as_dict()  # a filtered search keeps to what it asked for
        anchors = neighbour_anchors(fused) if expand else []
        lean = [e.id for e in fused[:k] if isinstance(e.evidence, LeanEvidence)]
        ids = list(dict.fromkeys([*anchors, *lean]))
        rows, around = self.context.turns(scope, ids, anchors, window=1)
        if expand:
            fused = with_neighbours(fused, around)
        read = {e.id: e for near in around.values() for e in near} | rows
        out = []
        for entry in fused[:k]:
            if isinstance(entry.evidence, LeanEvidence):
                row = read.get(entry.id)
                if row is None:
                    continue
                entry.evidence = row.as_search_row()
            out.append(entry.as_dict())
        return out

    def profile(self, scope: AccessScope, participant: str, current_only: bool = False) -> dict[str, Any]:
        found = self.tools["profile"].profile(scope, participant, current_only)  # type: ignore[attr-defined]
        if found is None:
            raise NotFound(f"unknown participant {participant!r} in space {scope.space!r}")
        return {**found, "scope": scope.describe()}
