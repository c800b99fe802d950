"""The retrieval agent: at most three rounds of (plan → run tools → fuse → retain → stop?).

State: the query, the asker's scope, the retained evidence, the action history and the
remaining budget. An action names a memory layer, a tool, a (rewritten) query and
speaker/addressee filters. Policies sit behind one interface (:class:`Policy`), so the
fixed baseline, the question-reading heuristic planner, the LLM planner and a future
learned policy (VoxPolyMem trains one with Evidence-Gain GRPO: reward = newly retained
supporting evidence per round, which every round's trace records as ``gained``) are
interchangeable. The loop itself never widens the scope: every tool call carries it.

After the rounds, whatever the policy, a question asking for one person's things or a judgement
of them is searched once more among that person's own turns (:meth:`Agent.deepen`), with the
same scoped tools, and what it finds joins the retained evidence.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from voxmem.errors import DatabaseUnavailable, InvalidInput, VoxmemError
from voxmem.retrieval.fusion import (
    FUSION_DEPTH,
    FusedEvidence,
    fuse,
    merge_into,
    neighbour_anchors,
    ranked,
    with_neighbours,
)
from voxmem.retrieval.question import Reading, asked_about, asks_for_list, read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.spans import wanted_shape, wants_list
from voxmem.retrieval.text import content_words
from voxmem.retrieval.tools import EmbeddingCache, Evidence, Filters, Hit, Retriever, search_tools

log = logging.getLogger(__name__)

# the visible turns next to each of some anchor turns, inside the scope (ContextRetriever.turns)
Neighbours = Callable[[AccessScope, list[str]], dict[str, list[Evidence]]]


@dataclass
class Action:
    """One tool call chosen by a policy."""

    layer: str
    tool: str
    query: str
    filters: Filters = field(default_factory=Filters)
    k: int | None = None
    why: str = ""

    def key(self) -> tuple:
        return (self.tool, self.query, tuple(sorted(self.filters.as_dict().items())))

    def as_dict(self) -> dict[str, Any]:
        out = {"layer": self.layer, "tool": self.tool, "query": self.query, "filters": self.filters.as_dict()}
        if self.why:
            out["why"] = self.why
        return out


@dataclass
class RoundTrace:
    round: int
    policy: str
    actions: list[dict[str, Any]]
    hits: list[int]
    gained: list[str]
    retained: int
    ms: float
    stop: str | None = None
    skipped: list[str] = field(default_factory=list)


@dataclass
class AgentState:
    """Everything a policy may read when choosing the next round's actions."""

    query: str
    scope: AccessScope
    reading: Reading
    participants: list[dict[str, Any]]
    budgets: list[int]
    max_rounds: int
    retained: dict[str, FusedEvidence] = field(default_factory=dict)
    history: list[Action] = field(default_factory=list)
    rounds: list[RoundTrace] = field(default_factory=list)
    last_hits: dict[str, list[Hit]] = field(default_factory=dict)
    # the query encoder the tools use (a learned policy reads the question's embedding through it)
    embed: Callable[[str], list[float]] | None = None
    # the memory layers that hold anything in the space (None: not known, every layer may)
    layers: set[str] | None = None

    @property
    def round(self) -> int:
        """The number of the next round (1-based)."""
        return len(self.rounds) + 1

    @property
    def remaining_budget(self) -> list[int]:
        return self.budgets[len(self.rounds) : self.max_rounds]

    def evidence(self) -> list[FusedEvidence]:
        return ranked(self.retained)

    def tried(self, action: Action) -> bool:
        return any(a.key() == action.key() for a in self.history)


class Policy(Protocol):
    """Chooses the next round's actions; an empty list means stop."""

    name: str

    def plan(self, state: AgentState) -> list[Action]: ...


# --- stop rule ------------------------------------------------------------------------------
def coverage(state: AgentState, top: int = 5) -> float:
    """Share of the question's content words found in the top retained evidence (and its support)."""
    wanted = set(state.reading.keywords) - {
        name.lower() for p in state.reading.people for name in (p.get("name") or "").split()
    }
    if not wanted:
        return 1.0 if state.retained else 0.0
    found: set[str] = set()
    for entry in state.evidence()[:top]:
        text = entry.evidence.text + " " + " ".join(s.get("text", "") for s in entry.support)
        found |= set(content_words(text))
    return len(wanted & found) / len(wanted)


def sufficient(state: AgentState, threshold: float = 0.8) -> str | None:
    """Why the evidence suffices (a short reason), or None to keep going."""
    if not state.retained:
        return None
    evidence = state.evidence()
    if state.reading.kind == "who_said" and evidence and evidence[0].evidence.speaker is not None:
        quote = set(content_words(state.reading.quote or ""))
        if quote and quote <= set(content_words(evidence[0].evidence.text)):
            return "quote found with its speaker"
    addressed = any(e.evidence.addressees for e in evidence[:3])
    if state.reading.kind == "addressee" and addressed and coverage(state, top=3) >= threshold:
        return "addressed turn found"
    if coverage(state) >= threshold and len(evidence) >= 3:
        agreeing = sum(1 for e in evidence[:3] if len(e.tools) > 1)
        if agreeing >= 1:
            return f"coverage {coverage(state):.2f} with agreeing tools"
    return None


# --- policies -------------------------------------------------------------------------------
class FixedPolicy:
    """Baseline: every search tool once with the question as asked, one round."""

    name = "fixed"

    def plan(self, state: AgentState) -> list[Action]:
        if state.rounds:
            return []
        return [Action(t.layer, t.name, state.query, why="fixed: all tools once") for t in search_tools()]


def _ref(person: dict[str, Any] | None) -> str | None:
    return person.get("id") if person else None


class HeuristicPlanner:
    """Reads the question (who/whom/when/I/my, quotes, names) and rewrites it round by round."""

    name = "heuristic"

    def plan(self, state: AgentState) -> list[Action]:
        if state.round == 1:
            return self._first(state)
        if state.round == 2:
            return self._second(state)
        return self._third(state)

    def _first(self, state: AgentState) -> list[Action]:
        r = state.reading
        q = " ".join(r.keywords) or state.query
        actions: list[Action] = []
        me = state.scope.asker if r.first_person else None
        if r.kind == "who_said" and r.quote:
            actions.append(Action("interaction", "who_said", r.quote, Filters(), why="who said: the quote"))
            if r.addressee:
                actions.append(
                    Action(
                        "interaction",
                        "message_vector",
                        r.quote,
                        Filters(addressee=_ref(r.addressee)),
                        why="quote said to the named person",
                    )
                )
        if r.kind == "said_to":
            actions.append(
                Action(
                    "interaction",
                    "said_to",
                    q,
                    Filters(speaker=_ref(r.speaker), addressee=_ref(r.addressee)),
                    why="what A said to B",
                )
            )
        if r.kind == "requests" and r.speaker:
            actions.append(
                Action(
                    "interaction",
                    "message_vector",
                    "Can we have this? Could you get me that? I would like it, please.",
                    Filters(speaker=_ref(r.speaker)),
                    why="the requester's turns that sound like requests",
                )
            )
        if r.kind == "addressee" and r.speaker:
            actions.append(
                Action(
                    "interaction",
                    "message_vector",
                    state.query,
                    Filters(speaker=_ref(r.speaker)),
                    why="the speaker's turns on the topic",
                )
            )
        actions += [
            Action("interaction", "message_sparse", state.query, why="learned sparse: question as asked"),
            Action("interaction", "message_vector", state.query, why="question as asked"),
            Action("interaction", "message_fulltext", q, why="keywords"),
            Action("fact", "fact_vector", state.query, Filters(current_only=not r.temporal), why="facts"),
            Action("fact", "fact_fulltext", q, why="fact keywords"),
        ]
        if me:
            actions.append(
                Action(
                    "interaction",
                    "message_vector",
                    state.query,
                    Filters(speaker=me),
                    why="first person: the asker's own turns",
                )
            )
            actions.append(
                Action(
                    "profile",
                    "attribute_vector",
                    state.query,
                    Filters(participant=me),
                    why="first person: the asker's profile",
                )
            )
        for person in r.people[:2]:
            if r.kind in ("general",) and person is not r.speaker:
                actions.append(
                    Action(
                        "interaction",
                        "message_fulltext",
                        q,
                        Filters(speaker=_ref(person)),
                        why=f"turns by {person.get('name')}",
                    )
                )
        if r.preference or r.people or me:
            actions.append(Action("profile", "attribute_fulltext", q, why="profile keywords"))
        if r.temporal:
            actions.append(Action("fact", "timeline", q, why="when: facts with validity"))
        return actions

    def _second(self, state: AgentState) -> list[Action]:
        """Round 2: follow the graph from the best evidence and query what is still missing."""
        r = state.reading
        evidence = state.evidence()
        actions: list[Action] = []
        if r.kind == "addressee":
            for entry in evidence[:2]:
                actions.append(Action("interaction", "addressees", entry.id, why="to whom was this said"))
        for entry in evidence[:2]:
            actions.append(Action("interaction", "context", entry.id, why="turns around the best evidence"))
        missing = _missing_words(state)
        if missing:
            rewritten = " ".join(missing + [w for w in r.keywords if w not in missing])
            actions.append(Action("interaction", "message_fulltext", " ".join(missing), why="missing words"))
            actions.append(Action("interaction", "message_vector", rewritten, why="rewritten: missing first"))
            actions.append(Action("interaction", "message_sparse", rewritten, why="sparse, rewritten"))
        return [a for a in actions if not state.tried(a)]

    def _third(self, state: AgentState) -> list[Action]:
        """Round 3: drop the filters and reach the other layers with the missing words."""
        missing = _missing_words(state)
        if not missing:
            return []
        q = " ".join(missing)
        actions = [
            Action("fact", "fact_vector", q, why="missing words in facts"),
            Action("profile", "attribute_vector", q, why="missing words in profiles"),
            Action("interaction", "message_vector", q, why="missing words alone"),
        ]
        return [a for a in actions if not state.tried(a)]


def _missing_words(state: AgentState) -> list[str]:
    names = {n.lower() for p in state.reading.people for n in (p.get("name") or "").split()}
    found: set[str] = set()
    for entry in state.evidence()[:5]:
        found |= set(content_words(entry.evidence.text))
    return [w for w in state.reading.keywords if w not in found and w not in names]


def _learned() -> Policy:
    """The EG-GRPO-trained policy (``learned.py``); its network loads on first use, not at import."""
    from voxmem.retrieval.learned import learned_policy

    return learned_policy()


POLICIES: dict[str, Callable[..., Policy]] = {
    "fixed": FixedPolicy,
    "heuristic": HeuristicPlanner,
    "learned": _learned,
}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Make a policy (e.g. a learned one) selectable by name in settings and the API."""
    POLICIES[name] = factory


# --- deeper for the asked person ----------------------------------------------------------
PERSON_DEPTH = 20  # each speaker-filtered channel ranks this many of the person's turns
PERSON_KEEP = 10  # … of which at most this many join the pool that were not retained yet
# "Would Ana enjoy a week of camping?", "What fields would Ana likely pursue?": a judgement of the
# person from what they said of themselves anywhere, not from one turn sharing the question's words
_JUDGED = re.compile(r"\b(?:would|might|likely)\b", re.I)


def person_to_deepen(reading: Reading, scope: AccessScope) -> dict[str, Any] | None:
    """The one person whose own turns the agent searches once more, across all sessions, after
    its rounds (:meth:`Agent.deepen`), or None.

    Which questions: a plain question (no attribution, no first hop) about exactly one person
    (``asked_about``: named, or the asker for "my …") that asks for several things of one kind
    (``asks_for_list``, ``wants_list``: "What does Ana do to destress?", "What do Ana's kids
    like?") or asks to judge them ("Would Ana …", "… likely …"), and wants no date, time, number
    or place. Why: their answers are the person's own statements spread over sessions, and the
    rounds retain the 30 turns best matching the whole question, which for LoCoMo dev's list
    questions held few of the items ("Running, pottery": 1 of Melanie's turns among the 30, the
    pottery turns not retrieved; docs/retrieval.md "Tenth LLM pass")."""
    if reading.kind != "general" or reading.hop is not None:
        return None
    if wanted_shape(reading.text) in ("date", "time", "number", "place"):
        return None
    people = [p for p in asked_about(reading, scope.asker, scope.asker_name) if p.get("id")]
    if len({p["id"] for p in people}) != 1:
        return None
    text = reading.text
    return people[0] if asks_for_list(text) or wants_list(text) or _JUDGED.search(text) else None


# --- the loop -------------------------------------------------------------------------------
@dataclass
class AgentResult:
    query: str
    scope: AccessScope
    reading: Reading
    policy: str
    evidence: list[FusedEvidence]
    trace: list[RoundTrace]
    hits: dict[str, list[Hit]]

    def trace_dicts(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.trace]


def _recorded(
    state: AgentState,
    policy: str,
    actions: list[Action],
    results: list[list[Hit]],
    gained: Sequence[FusedEvidence],
    skipped: list[str],
    started: float,
) -> RoundTrace:
    """Record a round that ran ``actions`` (a policy's round or the person step): each tool's
    hits under its history index, the actions in ``state.history``, and the round's trace in
    ``state.rounds``, which the agent's result and the learned policy's reward read."""
    for action, hits in zip(actions, results, strict=True):
        state.last_hits[f"{state.round}:{action.tool}:{len(state.history)}"] = hits
        state.history.append(action)
    trace = RoundTrace(
        round=state.round,
        policy=policy,
        actions=[a.as_dict() for a in actions],
        hits=[len(hits) for hits in results],
        gained=[g.id for g in gained],
        retained=len(state.retained),
        ms=round((time.perf_counter() - started) * 1000, 1),
        skipped=skipped,
    )
    state.rounds.append(trace)
    return trace


class Agent:
    """Runs a policy for at most ``max_rounds`` rounds with per-round budgets (30/8/5 by default)."""

    def __init__(
        self,
        tools: dict[str, Retriever],
        participants: Callable[[str], list[dict[str, Any]]],
        budgets: Sequence[int] = (30, 8, 5),
        max_rounds: int = 3,
        rrf_k: int = 60,
        per_tool_k: int | None = None,
        max_actions: int = 12,
        executor: Executor | None = None,
        embed: EmbeddingCache | None = None,
        layers: Callable[[str], set[str]] | None = None,
        neighbours: Neighbours | None = None,
    ) -> None:
        if max_rounds < 1 or max_rounds > len(budgets):
            raise InvalidInput("max_rounds must be between 1 and the number of budgets")
        self.tools = tools
        self.participants = participants
        self.budgets = list(budgets)
        self.max_rounds = max_rounds
        self.rrf_k = rrf_k
        self.per_tool_k = per_tool_k
        self.max_actions = max_actions
        self.executor = executor
        self.embed = embed
        self.layers = layers
        # given: round 1 is the fused round (its depth and neighbour step, fusion.py)
        self.neighbours = neighbours

    def run(self, question: str, scope: AccessScope, policy: Policy) -> AgentResult:
        question = question.strip()
        if not question:
            raise InvalidInput("question is empty")
        # which layers hold anything is asked beside the participant list, not after it (one
        # sequential round trip fewer before round 1: docs/retrieval.md "Latency, fourth pass")
        asked = None
        if self.layers is not None and self.executor is not None and not scope.sees_nothing:
            asked = self.executor.submit(self.layers, scope.space)
        people = self.participants(scope.space)
        asker = {"id": scope.asker, "name": scope.asker_name} if scope.asker else None
        state = AgentState(
            query=question,
            scope=scope,
            reading=read_question(question, people, asker),
            participants=people,
            budgets=self.budgets,
            max_rounds=self.max_rounds,
            embed=self.embed,
        )
        present = None
        if self.layers is not None and not scope.sees_nothing:
            present = asked.result() if asked is not None else self.layers(scope.space)
        state.layers = present
        while state.round <= self.max_rounds:
            planned = policy.plan(state)
            if not [a for a in planned if a.tool in self.tools]:
                if state.rounds:
                    state.rounds[-1].stop = state.rounds[-1].stop or "policy chose to stop"
                break
            trace, _ = self.step(state, planned, policy.name, present)
            if trace.stop:
                break
        person = person_to_deepen(state.reading, scope)
        if person is not None and not scope.sees_nothing:
            self.deepen(state, person)
        return AgentResult(
            query=question,
            scope=scope,
            reading=state.reading,
            policy=policy.name,
            evidence=state.evidence(),
            trace=state.rounds,
            hits=state.last_hits,
        )

    def step(
        self, state: AgentState, planned: list[Action], policy: str, present: set[str] | None = None
    ) -> tuple[RoundTrace, list[list[Hit]]]:
        """One round: run the planned actions, fuse them by RRF, de-duplicate and select context
        into ``state.retained``, then apply the stop rule. Returns the round's trace and the
        tool rankings; training the learned policy steps branches of an episode through this
        same method, so its reward sees exactly what the running agent retains."""
        started = time.perf_counter()
        budget = self.budgets[state.round - 1]
        planned = [a for a in planned if a.tool in self.tools][: self.max_actions]
        actions = [a for a in planned if present is None or a.layer in present]
        skipped = [f"{a.tool}: {a.layer} layer empty" for a in planned if a not in actions]
        first = state.round == 1 and self.neighbours is not None
        results, failed = self._run_actions(
            actions, state.scope, max(budget, FUSION_DEPTH) if first else budget
        )
        fused = self._fused_round(state.scope, results) if first else fuse(results, k=self.rrf_k)
        gained = merge_into(state.retained, fused, budget, state.round)
        trace = _recorded(state, policy, actions, results, gained, skipped + failed, started)
        state.history += [a for a in planned if a not in actions]
        reason = sufficient(state)
        if reason:
            trace.stop = f"evidence suffices: {reason}"
        elif state.round > self.max_rounds:
            trace.stop = "round limit"
        return trace, results

    def _fused_round(self, scope: AccessScope, results: list[list[Hit]]) -> list[FusedEvidence]:
        """Round 1 fused as /retrieve fuses its one round (``fusion.py``): each action's ranking
        FUSION_DEPTH deep (``step``), RRF, then the neighbour step on the top turns, their
        neighbours fetched in one scoped query (``neighbours``). Why: /retrieve's round has
        recall@10 0.72 on the 1,345 LoCoMo dev questions and the agent's evidence, which the
        readers answer from, had 0.67 (RRF k = 60 over each tool's top 30, no neighbours); with
        this round 1 and the service's RRF k = ``fusion_rrf_k`` in every round, 0.72 on the tune
        conversations (docs/retrieval.md "The agent's evidence and the fused round")."""
        fused = fuse(results, k=self.rrf_k)
        if self.neighbours is None or not fused:
            return fused
        return with_neighbours(fused, self.neighbours(scope, neighbour_anchors(fused)))

    def deepen(self, state: AgentState, person: dict[str, Any]) -> RoundTrace:
        """After the rounds, whatever the policy: the person's own turns, searched by the question
        (semantic) and by its words without their name (keywords) with ``Filters(speaker=…)``,
        across all sessions. The same scoped tools as every round, so the access rule is the
        one in their Cypher: a turn the asker may not read is never found. Fused by RRF; at most
        ``PERSON_KEEP`` turns not retained yet join the pool at their fused score, so both readers
        (offline and LLM) see them in ``AgentResult.evidence``; a retained turn keeps its score.
        Why not add the score to retained turns, as a round does (:func:`merge_into`): on LoCoMo
        dev (160 questions, 19 deepened) that reordered the offline reader's top turns, which then
        answered an adversarial question from the person's unrelated "Adoption sounds awesome" and
        lost Jon's plan turn (offline 0.444 -> 0.438); added without it, no answer is lost (0.444,
        list items found 0.296 -> 0.305). Traced as a round of policy "person"."""
        started = time.perf_counter()
        names = set(content_words(person.get("name") or ""))
        words = [w for w in state.reading.keywords if w not in names]
        only = Filters(speaker=person["id"])
        who = person.get("name") or person["id"]
        actions = [
            Action("interaction", "message_vector", state.query, only, PERSON_DEPTH, f"{who}'s own turns"),
        ]
        if words:
            query = " ".join(words)
            actions.append(
                Action("interaction", "message_fulltext", query, only, PERSON_DEPTH, f"{who}'s own turns")
            )
        results, skipped = self._run_actions(actions, state.scope, PERSON_DEPTH)
        found = [e for e in fuse(results, k=self.rrf_k) if e.id not in state.retained]
        gained = merge_into(state.retained, found, PERSON_KEEP, state.round)
        return _recorded(state, "person", actions, results, gained, skipped, started)

    def _run_actions(
        self, actions: list[Action], scope: AccessScope, budget: int
    ) -> tuple[list[list[Hit]], list[str]]:
        """Run a round's tool calls, in parallel when an executor is given (queries embedded first).

        Returns each action's hits and why any action was skipped. A bad action (e.g. an LLM's)
        or one tool's query failing inside Neo4j costs that slot, not the question; but when
        every action found Neo4j unavailable the error is raised (a 503, never an empty answer
        that would read as "not in memory")."""
        if self.embed is not None:
            self.embed.prime([a.query for a in actions if self.tools[a.tool].needs in ("query", "pair")])
        if self.executor is None or len(actions) < 2:
            outcomes = [self._call(a, scope, budget) for a in actions]
        else:
            outcomes = list(self.executor.map(lambda a: self._call(a, scope, budget), actions))
        down = [o for o in outcomes if isinstance(o, DatabaseUnavailable)]
        if down and len(down) == len(outcomes):
            raise down[0]
        results = [o if isinstance(o, list) else [] for o in outcomes]
        failed = [
            f"{a.tool}: {o.message}"
            for a, o in zip(actions, outcomes, strict=True)
            if isinstance(o, VoxmemError)
        ]
        return results, failed

    def _call(self, action: Action, scope: AccessScope, budget: int) -> list[Hit] | VoxmemError:
        tool = self.tools[action.tool]
        k = action.k or self.per_tool_k or budget
        try:
            return tool.search(scope, action.query, action.filters, k=k)
        except VoxmemError as exc:
            level = logging.WARNING if isinstance(exc, DatabaseUnavailable) else logging.INFO
            log.log(level, "action %s skipped: %s", action.tool, exc.message)
            return exc
