"""The agent's round 1 is fused as /retrieve's one round (``fusion.py``): each action ranked
FUSION_DEPTH deep, the neighbours of the top turns joining; the service's agent fuses every round
with /retrieve's RRF k (docs/retrieval.md "The agent's evidence and the fused round").

No database: the tools are fakes with fixed rankings that record the depth asked of them, and
the neighbour fetch is a fake that records its anchors. The neighbour query's scope check is
``ContextRetriever.turns`` (tests/retrieval/test_late_rows.py); the agent's evidence under every
scope is checked against Neo4j in test_scope_adversarial.py."""

from __future__ import annotations

from typing import Any

import pytest

from voxmem.retrieval.agent import Action, Agent, AgentState
from voxmem.retrieval.fusion import FUSION_DEPTH, NEXT_FACTOR, NEXT_TOP
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence, Filters, Hit

OPEN = AccessScope("sp", "open")


def _ev(mid: str) -> Evidence:
    return Evidence(mid, "s1", int(mid[1:]), f"turn {mid}", "2026-11-02T18:00:00+00:00", None, [])


class Ranked:
    """A message tool returning a fixed ranking of turn ids; records the k it was asked for."""

    layer, needs = "interaction", "query"

    def __init__(self, name: str, ranking: list[str], asked: list[tuple[str, int]]) -> None:
        self.name, self.ranking, self.asked = name, ranking, asked

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        self.asked.append((self.name, k))
        return [Hit("interaction", self.name, m, m, 1.0, [_ev(m)]) for m in self.ranking[:k]]


def _fillers(n: int, start: int) -> list[str]:
    return [f"m{i}" for i in range(start, start + n)]


# "m1" is one tool's first hit; "m2" sits at ranks 20 and 25 of the two others. RRF k = 60 puts
# m2 first (1/80 + 1/85 > 1/61), k = 10 puts m1 first (1/11 > 1/30 + 1/35): the flattening the
# fusion study found (docs/retrieval.md "Fusion study")
RANKINGS = {
    "message_sparse": ["m1", *_fillers(30, 100)],
    "message_vector": [*_fillers(19, 200), "m2", *_fillers(10, 300)],
    "message_fulltext": [*_fillers(24, 400), "m2", *_fillers(5, 500)],
}


class TwoRounds:
    """Round 1: the three channels; round 2: one channel again (its depth is the budget's)."""

    name = "two-rounds"

    def plan(self, state: AgentState) -> list[Action]:
        if state.round > 2:
            return []
        names = list(RANKINGS) if state.round == 1 else ["message_sparse"]
        return [Action("interaction", n, state.query + ("" if state.round == 1 else " again")) for n in names]


class OneChannel(TwoRounds):
    """Round 1: the sparse channel alone (m1 first); round 2 as TwoRounds."""

    def plan(self, state: AgentState) -> list[Action]:
        actions = super().plan(state)
        return actions[:1] if state.round == 1 else actions


def _agent(asked: list[tuple[str, int]], anchors: list[list[str]], fused: bool) -> Agent:
    tools: dict[str, Any] = {n: Ranked(n, r, asked) for n, r in RANKINGS.items()}

    def neighbours(scope: AccessScope, ids: list[str]) -> dict[str, list[Evidence]]:
        assert scope is OPEN
        anchors.append(ids)
        return {a: [_ev("m999")] if a == ids[0] else [] for a in ids}  # the top turn's reply

    extra: dict[str, Any] = {"rrf_k": 10, "neighbours": neighbours} if fused else {"rrf_k": 60}
    return Agent(tools, lambda space: [], budgets=(30, 8, 5), max_rounds=2, **extra)


def test_round_one_is_fused_with_the_fused_rounds_k_and_depth():
    asked: list[tuple[str, int]] = []
    result = _agent(asked, [], fused=True).run("what was said", OPEN, TwoRounds())
    assert result.evidence[0].id == "m1"  # k = 10: one channel's first hit beats two deep ones
    round_one = [k for _, k in asked[:3]]
    assert round_one == [FUSION_DEPTH] * 3  # the channels rank as deep as /retrieve's
    assert asked[3] == ("message_sparse", 8)  # round 2 keeps its budget depth


def test_the_old_round_one_flattened_ranks_and_fetched_its_budget():
    asked: list[tuple[str, int]] = []
    result = _agent(asked, [], fused=False).run("what was said", OPEN, TwoRounds())
    assert result.evidence[0].id == "m2"  # k = 60 over each tool's top 30
    assert [k for _, k in asked[:3]] == [30, 30, 30]


def test_the_neighbours_of_the_top_turns_join_round_one():
    asked: list[tuple[str, int]] = []
    anchors: list[list[str]] = []
    result = _agent(asked, anchors, fused=True).run("what was said", OPEN, OneChannel())
    assert len(anchors) == 1 and len(anchors[0]) == NEXT_TOP and anchors[0][0] == "m1"  # round 1 only
    reply = next(e for e in result.evidence if e.id == "m999")  # the reply no channel found
    assert reply.score == pytest.approx(NEXT_FACTOR / (10 + 1))  # at its parent's RRF score × factor
    assert reply.round == 1 and reply.tools == ["context"]
    old = _agent([], [], fused=False).run("what was said", OPEN, OneChannel())
    assert "m999" not in [e.id for e in old.evidence]


def test_the_service_agent_fuses_round_one_as_retrieve_does(retrieval, households):
    """RetrievalService.agent hands the agent /retrieve's RRF k and its scoped neighbour query,
    which finds a household turn's neighbours inside the asker's scope."""
    agent = retrieval.agent()
    assert agent.rrf_k == retrieval.settings.fusion_rrf_k
    house = households["open"]
    scope = retrieval.scope(house.space, None)
    anchor = house.mid("car-2")
    around = agent.neighbours(scope, [anchor])
    assert {e.id for e in around[anchor]} == {house.mid("car-1"), house.mid("car-3")}
