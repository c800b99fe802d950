"""The lead action (issue 12, thirteenth session): an action may trust its ranking over the round's
fusion (``Action.lead``), and the learned policy's state shows how the last round's rankings agree
(``learned.agreement``). Hand-made rankings, no Neo4j."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from voxmem.retrieval import learned as L
from voxmem.retrieval.agent import Action, Agent, AgentState, HeuristicPlanner
from voxmem.retrieval.fusion import fuse, merge_into, ranked
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence, Filters, Hit

PEOPLE = [{"id": "p_maya", "name": "Maya"}, {"id": "p_tom", "name": "Tom"}]


def _hit(tool: str, turn: str, score: float = 1.0, speaker: str | None = None) -> Hit:
    who = {"id": speaker, "name": speaker} if speaker else None
    ev = Evidence(id=turn, session="s", idx=int(turn.strip("gx") or 0), text=turn, ts=None, speaker=who)
    return Hit("interaction", tool, turn, turn, score, [ev])


def _crowd(tool: str) -> list[Hit]:
    return [_hit(tool, f"x{i}") for i in range(12)]


def _state(question: str = "What did Maya say about the pizza?") -> AgentState:
    return AgentState(
        query=question,
        scope=AccessScope(space="s", access_policy="open"),
        reading=read_question(question, PEOPLE, None),
        participants=PEOPLE,
        budgets=[3, 2, 2],
        max_rounds=3,
        layers={"interaction"},
    )


def test_a_lead_ranking_is_selected_first_and_put_ahead_of_the_fusion() -> None:
    """Two rankings agree on x0..x11, a third holds the gold g first: fused, g (one ranking) loses
    to every x (two), so a budget of 3 never retains it; trusted, it is retained and ranked first."""
    rankings = [_crowd("a"), _crowd("b"), [_hit("c", "g"), _hit("c", "x5")]]
    plain: dict[str, Any] = {}
    merge_into(plain, fuse(rankings), budget=3, round_no=1)
    assert "g" not in plain
    led: dict[str, Any] = {}
    gained = merge_into(led, fuse(rankings), budget=3, round_no=1, lead=["g", "x5"])
    assert [e.id for e in gained] == ["g", "x5", "x0"]  # the trusted turns first, then RRF order
    assert [e.id for e in ranked(led)] == ["g", "x5", "x0"]
    # a later round still adds to a led turn's score (a prior, not a lock): found by four more
    # rankings, x0 climbs past the led turns, which keep their order between them
    merge_into(led, fuse([[_hit(t, "x0")] for t in "defghijk"]), budget=2, round_no=2)
    assert [e.id for e in ranked(led)] == ["x0", "g", "x5"]


class _Fixed:
    """A tool returning a fixed ranking whatever the query."""

    layer, needs = "interaction", "query"

    def __init__(self, name: str, hits: list[Hit]) -> None:
        self.name, self.hits = name, hits

    def search(self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10) -> list:
        return self.hits[:k]


def test_the_agent_trusts_an_actions_ranking_only_when_it_is_a_lead() -> None:
    tools = {
        "message_vector": _Fixed("message_vector", _crowd("message_vector")),
        "message_fulltext": _Fixed("message_fulltext", _crowd("message_fulltext")),
        "message_sparse": _Fixed("message_sparse", [_hit("message_sparse", "g")]),
    }
    agent = Agent(tools, lambda space: PEOPLE, budgets=(3, 2, 2))  # type: ignore[arg-type]
    q = "What did Maya say about the pizza?"
    plan = [Action("interaction", name, q) for name in tools]
    fused = _state()
    agent.step(fused, plan, "test")
    assert "g" not in fused.retained
    trusted = _state()
    lead = Action("interaction", "message_sparse", q, lead=True)
    trace, _ = agent.step(trusted, [*plan[:2], lead], "test")
    assert trusted.evidence()[0].id == "g" and trace.actions[-1]["lead"] is True
    # trusting a ranking fused earlier is a new action, not one already tried
    assert not fused.tried(lead) and fused.tried(plan[2])


def test_agreement_shows_how_the_last_rounds_rankings_agree() -> None:
    state = _state()
    assert L.agreement(state) == [0.0] * L.N_AGREEMENT  # before round 1: nothing ran
    agent = Agent(
        {
            "message_sparse": _Fixed(
                "message_sparse",
                [_hit("message_sparse", f"g{i}", 10.0 - 5 * (i == 1), "p_maya") for i in range(5)],
            ),
            "message_vector": _Fixed(
                "message_vector", [_hit("message_vector", f"x{i}", 0.8) for i in range(5)]
            ),
        },  # type: ignore[dict-item]
        lambda space: PEOPLE,
        budgets=(10, 2, 2),
    )
    q = state.query
    agent.step(
        state, [Action("interaction", "message_sparse", q), Action("interaction", "message_vector", q)], "t"
    )
    got = dict(zip(_agreement_names(), L.agreement(state), strict=True))
    assert got["message_fulltext ran"] == 0.0 and got["message_sparse ran"] == 1.0
    # both rankings' top 5 are all in the retained top 10 (5 + 5 turns)
    assert got["message_sparse top5 in top10"] == 1.0 and got["message_vector top5 in top10"] == 1.0
    assert got["message_sparse margin"] == pytest.approx(0.5)  # 10 → 5
    assert got["message_vector margin"] == 0.0  # a flat ranking
    assert got["overlap"] == 0.0  # disjoint top 5s
    assert got["speaker share"] == pytest.approx(0.5)  # Maya said the five g turns
    assert got["agreeing share"] == 0.0
    # the first named person's turn leads the fused top exactly when a g turn is first
    assert got["speaker leads"] == float(state.evidence()[0].id.startswith("g"))


def _agreement_names() -> list[str]:
    per = [f"{t} {n}" for t in L.LEAD_TOOLS for n in ("ran", "top5 in top10", "top1 in top3", "margin")]
    return [*per, "overlap", "speaker share", "speaker leads", "agreeing share"]


def test_the_learned_action_space_holds_lead_variants_of_the_message_search_tools() -> None:
    specs = L.tool_specs()
    leads = [t for t in specs if t.lead]
    assert sorted(t.name for t in leads) == sorted(L.LEAD_TOOLS)
    space = L.ActionSpace(specs)
    c = space.candidates(_state())
    actions = [space.action(c, combo) for combo in space.combos(c)]
    led = [a for a in actions if a.lead]
    assert {a.tool for a in led} == set(L.LEAD_TOOLS)
    assert any(a.filters.speaker == "p_maya" for a in led)  # the same rewrites and filters as the tool
    # the heuristic planner never trusts one ranking: its behaviour is unchanged
    assert not any(a.lead for a in HeuristicPlanner().plan(_state()))


def test_a_format_2_policy_file_has_no_lead_tools_and_reads_no_agreement(tmp_path: Any) -> None:
    """The shipped policy (format 2, run H) plans as before: its tools are its file's (no lead
    variant) and its features stop before the agreement block."""
    import torch

    tools = [t for t in L.tool_specs() if not t.lead]
    n_in = 384 + L.N_SCALARS
    net = L.build_net(n_in, 8, len(tools))
    meta = {
        "format": 2,
        "filters": list(L.FILTERS),
        "tools": [{"name": t.name, "layer": t.layer, "needs": t.needs} for t in tools],
        "hidden": 8,
        "n_features": n_in,
        "embedding_dim": 384,
    }
    torch.save({"meta": meta, "state_dict": net.state_dict()}, tmp_path / "v2.pt")
    policy = L.LearnedPolicy.load(tmp_path / "v2.pt")
    assert not policy.agree and not any(t.lead for t in policy.space.tools)
    state = _state()
    vec = np.zeros(384, dtype=np.float32)
    state.embed = lambda _q: vec  # type: ignore[assignment,return-value]
    assert policy.plan(state) and not any(a.lead for a in policy.plan(state))
