"""The learned retrieval policy (issue 12): a small network trained with Evidence-Gain GRPO.

What it sees (the state): the question's embedding (the bundled sentence model, through the
tools' query encoder), the question reading (kind, quote, people, first person, time, the
asker known), the round, what the retained evidence covers (the agent's coverage), and the
budget left. What it chooses (a factored action): a memory layer, a tool of that layer
(from the tool registry, see :func:`tool_specs`), a filter from the people the question names
or the asker (:data:`FILTERS`) given the tool, and a query rewrite from a fixed candidate set
(:data:`REWRITES`) given the tool and filter. A round's plan is a size (1..:data:`MAX_PLAN`, its
own head) and that many actions drawn in turn from that distribution, each draw removing every
action of the same slot (Plackett-Luce over slots, see :func:`plan_logprob`), and from round 2
on a stop head may end the episode.

Why conditional heads and a size head: the heuristic planner's plans (BM25 with keywords but
vectors with the question as asked; current-only facts; five to ten actions depending on the
question) are not expressible when rewrite and filter are independent of the tool and the
plan size is fixed; the policy is initialised from a behaviour clone of the heuristic
(``bench.train_policy``), so its action space must contain the heuristic's plans.

Why slots: drawn without any grouping, the most probable plan of a factored distribution is the
cross product of its favourite tool with its favourite rewrites and filters (four variants of
one sparse search), which fusion gains little from; the first policy served exactly that. A
slot is one tool under one filter (for the id tools also the turn: following the best and the
second turn are two slots), so a plan spreads over tools and filters and the policy chooses
each slot's rewrite.

Why a factored head and masks: which rewrites and filters exist depends on the question
(no quote → no quote rewrite; nobody named → no speaker filter) and on the tool (an id tool
takes the best evidence's id, ``said_to`` needs a pair). Masks make every head a proper
conditional distribution over what is valid, so the plan's probability is exact, which the
GRPO ratio needs.

The reward (:func:`evidence_gain`) and the group advantage (:func:`group_advantages`) are
here too, pure functions, so tests pin them down; the trainer is ``bench.train_policy``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.errors import InvalidInput
from voxmem.retrieval import tools as tools_module
from voxmem.retrieval.agent import Action, AgentState, _missing_words, coverage
from voxmem.retrieval.question import Reading
from voxmem.retrieval.tools import Filters, Hit
from voxmem.retrieval.when import mentioned_window

POLICY_FILE = Path(__file__).parent / "policies" / "learned.pt"
LAYERS = tools_module.LAYERS
KINDS = ("general", "who_said", "addressee", "said_to", "requests")
# Query rewrites: the question as asked, its content words, the named people with aliases, the
# quoted or described utterance, a time-focused form, the content words still missing from the
# retained evidence, those missing words followed by the rest of the content words, and (for the
# id tools) the best and second-best retained turn.
REWRITES = ("question", "keywords", "people", "quote", "time", "missing", "rewritten", "best", "second")
# Filters: none, the asker, the first named person (as speaker / subject / profile owner), the
# person spoken to, both (said_to), current-only for facts and attributes, the second named
# person (as speaker / subject / profile owner), and the window of the date the question names
# (``when.mentioned_window``: turns said in it, facts and attributes valid in it).
FILTERS = ("none", "asker", "speaker", "addressee", "pair", "current", "other", "time")
# The policy file's format. 1: no format key, the first seven filters (no "time") and no
# time-window feature; loaded by widening its network to this layout with the new inputs and
# heads unused (:func:`_widen_v1`), so it plans exactly as before. 2: "time" and its feature.
FORMAT = 2
_V1_FILTERS = FILTERS[:7]
# The largest plan: the agent runs at most this many actions per round (Agent.max_actions).
MAX_PLAN = 12
_ID_REWRITES = {"best", "second"}
_TIME_WORDS = "when date day week month year"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    layer: str
    needs: str


def tool_specs() -> list[ToolSpec]:
    """The tools a policy may choose: the registry :data:`voxmem.retrieval.tools.TOOLS` (the one
    list the service, the fixed policy and the LLM planner read too), in layer order.

    A tool the learned policy can drive takes a query, a quote, a message id or a pair; the
    profile dump (``needs == 'participant'``) is left to the attribute tools' participant filter.
    """
    found = [ToolSpec(name, cls.layer, cls.needs) for name, cls in tools_module.TOOLS.items()]
    return sorted(
        (t for t in found if t.needs != "participant"), key=lambda t: (LAYERS.index(t.layer), t.name)
    )


def _person_ref(person: dict[str, Any] | None) -> str | None:
    return person.get("id") if person else None


def _people_text(reading: Reading) -> str:
    names: list[str] = []
    for p in reading.people:
        names += [p.get("name") or "", *(p.get("aliases") or [])]
    return " ".join(dict.fromkeys(n for n in names if n))


@dataclass
class Candidates:
    """The valid rewrites and filters of one state, and the masks that make the heads conditional."""

    texts: dict[str, str]
    filters: dict[str, dict[str, Any]]  # filter name → person refs it uses
    layer_mask: np.ndarray  # (L,)
    tool_mask: np.ndarray  # (L, T): tool t usable in layer l
    rewrite_mask: np.ndarray  # (T, R)
    filter_mask: np.ndarray  # (T, F)


class ActionSpace:
    """Maps a state to its valid factored actions and an index tuple back to an :class:`Action`."""

    def __init__(self, tools: Sequence[ToolSpec], filters: Sequence[str] = FILTERS) -> None:
        self.tools = list(tools)
        self.index = {t.name: i for i, t in enumerate(self.tools)}
        self.allowed = set(filters)  # a format-1 policy never had "time"

    def candidates(self, state: AgentState) -> Candidates:
        r = state.reading
        present = state.layers
        evidence = state.evidence()
        missing = _missing_words(state) if state.retained else []
        texts = {
            "question": state.query,
            "keywords": " ".join(r.keywords),
            "people": _people_text(r),
            "quote": r.quote or "",
            "time": f"{' '.join(r.keywords)} {_TIME_WORDS}" if r.temporal and r.keywords else "",
            "missing": " ".join(missing),
            "rewritten": " ".join(missing + [w for w in r.keywords if w not in missing]) if missing else "",
            "best": evidence[0].id if evidence else "",
            "second": evidence[1].id if len(evidence) > 1 else "",
        }
        first = r.speaker or (r.people[0] if r.people else None)
        to = r.addressee or (r.people[1] if len(r.people) > 1 else None)
        filters: dict[str, dict[str, Any]] = {"none": {}}
        if state.scope.asker:
            filters["asker"] = {"person": state.scope.asker}
        if first:
            filters["speaker"] = {"person": _person_ref(first)}
        if to:
            filters["addressee"] = {"person": _person_ref(to)}
        if r.speaker and r.addressee and r.speaker is not r.addressee:
            filters["pair"] = {"speaker": _person_ref(r.speaker), "addressee": _person_ref(r.addressee)}
        filters["current"] = {}
        other = r.people[1] if len(r.people) > 1 else None
        if other and other is not first:
            filters["other"] = {"person": _person_ref(other)}
        window = mentioned_window(state.query)
        if window is not None:
            filters["time"] = {"ts_from": window[0], "ts_to": window[1]}
        filters = {k: v for k, v in filters.items() if k in self.allowed}
        n_t, n_r, n_f = len(self.tools), len(REWRITES), len(FILTERS)
        rewrite_mask = np.zeros((n_t, n_r), dtype=bool)
        filter_mask = np.zeros((n_t, n_f), dtype=bool)
        for t, spec in enumerate(self.tools):
            for j, name in enumerate(REWRITES):
                if not texts[name].strip():
                    continue
                if spec.needs == "message_id":
                    rewrite_mask[t, j] = name in _ID_REWRITES
                elif spec.needs == "quote":
                    rewrite_mask[t, j] = name == "quote"
                else:
                    rewrite_mask[t, j] = name not in _ID_REWRITES
            for j, name in enumerate(FILTERS):
                if name not in filters:
                    continue
                if name == "time":
                    filter_mask[t, j] = self.time_filtered(spec)
                elif spec.needs == "pair":
                    filter_mask[t, j] = name == "pair"
                elif spec.needs in ("message_id", "quote"):
                    filter_mask[t, j] = name == "none"
                elif spec.layer == "interaction":
                    filter_mask[t, j] = name in ("none", "asker", "speaker", "addressee", "other")
                else:
                    filter_mask[t, j] = name in ("none", "asker", "speaker", "current", "other")
        usable = np.any(rewrite_mask, axis=1) & np.any(filter_mask, axis=1)
        tool_mask = np.zeros((len(LAYERS), n_t), dtype=bool)
        for t, spec in enumerate(self.tools):
            if usable[t] and (present is None or spec.layer in present):
                tool_mask[LAYERS.index(spec.layer), t] = True
        return Candidates(texts, filters, np.any(tool_mask, axis=1), tool_mask, rewrite_mask, filter_mask)

    @staticmethod
    def time_filtered(spec: ToolSpec) -> bool:
        """Whether the "time" filter applies to the tool: the tools that search by a query (every
        one's Cypher checks $ts_from/$ts_to inside the scope: turns said in the window, facts and
        attributes valid in it); the id tools take no filter, the quote and pair tools keep theirs."""
        return spec.needs == "query"

    def combos(self, c: Candidates) -> np.ndarray:
        """Every valid (layer, tool, rewrite, filter) index tuple, shape (n, 4)."""
        out = [
            (layer, t, r, f)
            for layer, t in zip(*np.nonzero(c.tool_mask), strict=True)
            for r in np.nonzero(c.rewrite_mask[t])[0]
            for f in np.nonzero(c.filter_mask[t])[0]
        ]
        return np.asarray(out, dtype=np.int64).reshape(-1, 4)

    def indices(self, c: Candidates, combos: np.ndarray, actions: Sequence[Action]) -> list[int | None]:
        """The combo (row of ``combos``) that produces each action, or None when the action is
        outside this action space (e.g. a hand-written probe text): how another policy's plan,
        the heuristic's for the behaviour clone, is scored by this one."""
        by_key: dict[tuple, int] = {}
        for i, combo in enumerate(combos):
            by_key.setdefault(self.action(c, combo).key(), i)
        return [by_key.get(a.key()) for a in actions]

    def action(self, c: Candidates, combo: Sequence[int]) -> Action:
        layer, t, r, f = (int(x) for x in combo)
        spec = self.tools[t]
        rewrite, fname = REWRITES[r], FILTERS[f]
        ref = c.filters.get(fname, {})
        filters = Filters()
        if fname == "pair":
            filters = Filters(speaker=ref["speaker"], addressee=ref["addressee"])
        elif fname in ("asker", "speaker", "other"):
            person = ref["person"]
            if spec.layer == "interaction":
                filters = Filters(speaker=person)
            elif spec.layer == "fact":
                filters = Filters(about=person)
            else:
                filters = Filters(participant=person)
        elif fname == "addressee":
            filters = Filters(addressee=ref["person"])
        elif fname == "current":
            filters = Filters(current_only=True)
        elif fname == "time":
            filters = Filters(ts_from=ref["ts_from"], ts_to=ref["ts_to"])
        return Action(LAYERS[layer], spec.name, c.texts[rewrite], filters, why=f"learned: {rewrite}/{fname}")


# --- state features -------------------------------------------------------------------------
ACTS = ("say", "request", "commit", "did")
N_SCALARS = len(KINDS) + len(ACTS) + 8 + 3 + 7 + len(LAYERS) + 1


def features(state: AgentState, question_vector: np.ndarray) -> np.ndarray:
    """The state as one vector: question embedding, reading, asker known, round, coverage, budget,
    whether any question word is still missing from the top evidence (what the heuristic
    planner stops on in round 3), and whether the question names a date (the "time" filter)."""
    r = state.reading
    scalars = [float(r.kind == k) for k in KINDS] + [float(r.act == a) for a in ACTS]
    scalars += [
        float(bool(r.quote)),
        float(r.first_person),
        float(r.temporal),
        float(r.preference),
        min(len(r.people), 2) / 2,
        float(r.speaker is not None),
        float(r.addressee is not None),
        float(state.scope.asker is not None),
    ]
    scalars += [float(state.round == n) for n in (1, 2, 3)]
    budget_total = sum(state.budgets[: state.max_rounds]) or 1
    evidence = state.evidence()
    agreeing = sum(1 for e in evidence[:3] if len(e.tools) > 1) / 3
    last_gain = (
        len(state.rounds[-1].gained) / max(1, state.budgets[len(state.rounds) - 1]) if state.rounds else 0.0
    )
    scalars += [
        coverage(state) if state.retained else 0.0,
        coverage(state, top=3) if state.retained else 0.0,
        len(state.retained) / budget_total,
        sum(state.remaining_budget) / budget_total,
        agreeing,
        last_gain,
        float(bool(state.retained) and not _missing_words(state)),
    ]
    scalars += [sum(1 for e in evidence[:10] if layer in e.layers) / 10 for layer in LAYERS]
    scalars.append(float(mentioned_window(state.query) is not None))
    return np.concatenate(
        [np.asarray(question_vector, dtype=np.float32), np.asarray(scalars, dtype=np.float32)]
    )


# --- reward and advantage (pure) --------------------------------------------------------------
def first_ranks(rankings: Iterable[list[Hit]]) -> dict[str, int]:
    """For each source turn, the earliest rank (0-based) of any record linked to it in the round's
    rankings: a message hit links to itself, a fact or attribute to its DERIVED_FROM turns."""
    best: dict[str, int] = {}
    for hits in rankings:
        for rank, hit in enumerate(hits):
            for source in hit.sources:
                if rank < best.get(source.id, rank + 1):
                    best[source.id] = rank
    return best


def evidence_gain(
    gained: Sequence[str],
    ranks: dict[str, int],
    gold: set[str],
    credited: set[str],
    weight: float = 0.5,
    scale: float = 10.0,
) -> tuple[float, list[str]]:
    """Evidence-Gain reward of one action (a round's plan) and the supporting ids it newly credits.

    ``gained``: the turn ids newly retained this round (a fact or attribute is retained as the
    turns it is derived from, so those count as its supporting ids); ``credited``: ids already
    credited earlier on this branch, which earn nothing again; each id counts once.
    reward = (1 - weight) * |new| / |gold| + weight * Σ_new scale / (scale + rank) / |gold|.
    """
    if not gold:
        return 0.0, []
    new = [i for i in dict.fromkeys(gained) if i in gold and i not in credited]
    cover = len(new) / len(gold)
    ranked = sum(scale / (scale + ranks.get(i, 10 * scale)) for i in new) / len(gold)
    return (1 - weight) * cover + weight * ranked, new


def group_advantages(
    rewards: Sequence[float], eps: float = 1e-6, weights: Sequence[float] | None = None
) -> np.ndarray:
    """GRPO's group-relative advantage: (r - mean) / (std + eps) over one state's group. With
    ``weights`` (a group drawn without replacement, weighted to estimate the on-policy mean) the
    mean and std are the weighted ones, so the baseline is the policy's expected reward."""
    r = np.asarray(rewards, dtype=np.float64)
    w = np.ones_like(r) if weights is None else np.asarray(weights, dtype=np.float64)
    mean = float(np.average(r, weights=w))
    std = float(np.sqrt(np.average((r - mean) ** 2, weights=w)))
    return (r - mean) / (std + eps)


# --- the network ------------------------------------------------------------------------------
def _torch() -> Any:
    import torch

    return torch


def n_outputs(n_tools: int) -> int:
    """Layer, tool, filter | tool, rewrite | (tool, filter), stop, plan size."""
    n_f, n_r = len(FILTERS), len(REWRITES)
    return len(LAYERS) + n_tools + n_tools * n_f + n_tools * n_f * n_r + 1 + MAX_PLAN


def build_net(n_in: int, hidden: int, n_tools: int) -> Any:
    """MLP trunk, one linear head per factor (+1 stop logit); heads start at zero (uniform policy)."""
    torch = _torch()
    net = torch.nn.Sequential(
        torch.nn.Linear(n_in, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, n_outputs(n_tools))
    )
    torch.nn.init.zeros_(net[2].weight)
    torch.nn.init.zeros_(net[2].bias)
    return net


@dataclass
class Heads:
    """One state's logits, per factor: layer (L), tool (T), filter given the tool (T, F), rewrite
    given tool and filter (T, F, R), stop (scalar) and plan size (MAX_PLAN: sizes 1..MAX_PLAN)."""

    layer: Any
    tool: Any
    filter: Any
    rewrite: Any
    stop: Any
    size: Any


def split_logits(out: Any, n_tools: int) -> Heads:
    """The heads of one state's network output row."""
    n_f, n_r = len(FILTERS), len(REWRITES)
    a = len(LAYERS)
    b = a + n_tools
    c = b + n_tools * n_f
    d = c + n_tools * n_f * n_r
    return Heads(
        out[:a],
        out[a:b],
        out[b:c].reshape(n_tools, n_f),
        out[c:d].reshape(n_tools, n_f, n_r),
        out[d],
        out[d + 1 : d + 1 + MAX_PLAN],
    )


def combo_logprobs(out: Any, cand: Candidates, combos: np.ndarray, n_tools: int) -> Any:
    """log p(layer) + log p(tool | layer) + log p(filter | tool) + log p(rewrite | tool, filter)."""
    torch = _torch()
    neg = -1e9
    h = split_logits(out, n_tools)
    lm = torch.as_tensor(cand.layer_mask)
    tm = torch.as_tensor(cand.tool_mask)
    rm = torch.as_tensor(cand.rewrite_mask)
    fm = torch.as_tensor(cand.filter_mask)
    lp_l = torch.log_softmax(h.layer.masked_fill(~lm, neg), -1)
    lp_t = torch.log_softmax(h.tool.unsqueeze(0).masked_fill(~tm, neg), -1)
    lp_f = torch.log_softmax(h.filter.masked_fill(~fm, neg), -1)
    lp_r = torch.log_softmax(h.rewrite.masked_fill(~rm.unsqueeze(1), neg), -1)
    idx = torch.as_tensor(combos)
    la, t, r, f = idx[:, 0], idx[:, 1], idx[:, 2], idx[:, 3]
    return lp_l[la] + lp_t[la, t] + lp_f[t, f] + lp_r[t, f, r]


def slots(combos: np.ndarray) -> np.ndarray:
    """The slot of each combo: one tool under one filter (and, for the id tools, one turn id —
    following the best and the second turn are two actions); a plan uses each slot at most once."""
    ids = [REWRITES.index(n) for n in sorted(_ID_REWRITES)]
    extra = np.zeros(len(combos), dtype=np.int64)
    for n, j in enumerate(ids, start=1):
        extra[combos[:, 2] == j] = n
    return np.asarray((combos[:, 1] * len(FILTERS) + combos[:, 3]) * (len(ids) + 1) + extra, dtype=np.int64)


def size_logprobs(size_logits: Any, n_slots: int) -> Any:
    """log p(plan size = 1..MAX_PLAN), sizes above the number of slots masked out."""
    torch = _torch()
    valid = torch.arange(1, MAX_PLAN + 1) <= max(1, n_slots)
    return torch.log_softmax(size_logits.masked_fill(~valid, -1e9), -1)


def plan_logprob(
    combo_lp: Any,
    chosen: Sequence[int],
    stop_logit: Any,
    stop: bool | None,
    slot: np.ndarray,
    size_logits: Any,
) -> Any:
    """log P(plan): the stop decision (``None`` in round 1, where the policy always acts), the
    plan size ``len(chosen)``, then the chosen combos in order, each drawn from the joint
    distribution renormalised over the slots not used yet (Plackett-Luce over slots: drawing a
    combo removes its whole slot)."""
    torch = _torch()
    logsigmoid = torch.nn.functional.logsigmoid
    if stop:
        return logsigmoid(stop_logit)
    total = logsigmoid(-stop_logit) if stop is not None else torch.zeros(())
    total = total + size_logprobs(size_logits, len(np.unique(slot)))[len(chosen) - 1]
    used = torch.zeros(())
    probs = combo_lp.exp()
    index = torch.as_tensor(slot)
    mass = torch.zeros(int(slot.max()) + 1 if len(slot) else 1, dtype=probs.dtype).index_add(0, index, probs)
    for i in chosen:
        total = total + combo_lp[i] - torch.log((1 - used).clamp_min(1e-8))
        used = used + mass[int(slot[i])]
    return total


def plan_kl(
    combo_lp: Any,
    ref_lp: Any,
    chosen: Sequence[int],
    stop: bool | None,
    slot: np.ndarray,
    stop_logit: Any,
    ref_stop_logit: Any,
    size_logits: Any,
    ref_size_logits: Any,
) -> Any:
    """KL(policy ‖ reference) of one sampled plan's draws, each draw's KL exact: the stop
    decision's Bernoulli KL (rounds 2-3; ``stop`` None in round 1), then — if the plan acts — the
    size head's categorical KL and, for every combo drawn, the KL between the two conditional
    distributions it was drawn from (the joint over combos renormalised over the slots still free
    after the draws before it, as :func:`plan_logprob` draws). By the chain rule its expectation
    over plans drawn from the policy is the plan distribution's KL, so it estimates what the k3
    estimator did, at the same scale.

    Why not k3 (``exp(r) - r - 1``, r = log ref(plan) − log π(plan), the GRPO paper's estimator,
    used until the ninth session): it reads the sampled plan's own probability, and when that
    probability collapses under the policy r grows without bound and the term with it,
    exponentially — minibatch KL 2.4e5 (run A), 3.1e5 (run F, the shipped file's epoch), 3,137
    (run E). Here each draw's term is a sum over every alternative weighted by the *policy's*
    probability of it, so an action the policy has stopped choosing contributes π log(π/ref) → 0;
    whatever the policy does, a draw's KL is at most max_a −log ref(a) (the reference's least
    likely alternative), a bound fixed by the frozen reference, and its gradient is smooth (no
    exponential). Why not the usual clamp of r before exponentiating: it bounds the value but
    zeroes the gradient exactly where the policy has moved furthest from the reference. The
    action space is small and factored (a few hundred combos, ≤ 12 draws), so the exact
    per-draw sums cost one masked log-softmax per draw."""
    torch = _torch()
    logsigmoid = torch.nn.functional.logsigmoid
    total = torch.zeros(())
    if stop is not None:  # Bernoulli KL of the stop head
        p = torch.sigmoid(stop_logit)
        total = total + p * (logsigmoid(stop_logit) - logsigmoid(ref_stop_logit))
        total = total + (1 - p) * (logsigmoid(-stop_logit) - logsigmoid(-ref_stop_logit))
    if stop or not len(chosen):
        return total
    n_slots = len(np.unique(slot))
    size_lp = size_logprobs(size_logits, n_slots)
    total = total + (size_lp.exp() * (size_lp - size_logprobs(ref_size_logits, n_slots))).sum()
    # row j: the combos still drawable at draw j (slots of draws 0..j-1 removed)
    alive = np.ones((len(chosen), len(slot)), dtype=bool)
    for j in range(1, len(chosen)):
        alive[j:] &= slot != slot[chosen[j - 1]]
    free = torch.as_tensor(alive)
    neg = -1e9  # finite, so a removed combo's p · (log p − log q) is 0 · finite = 0 (also its gradient)
    lp = torch.log_softmax(combo_lp.unsqueeze(0).expand(len(chosen), -1).masked_fill(~free, neg), -1)
    lq = torch.log_softmax(ref_lp.unsqueeze(0).expand(len(chosen), -1).masked_fill(~free, neg), -1)
    return total + (lp.exp() * (lp - lq)).sum()


def greedy_plan(lp: np.ndarray, slot: np.ndarray, k: int, skip: Any = None) -> list[int]:
    """The most probable plan of size ``k`` drawn one slot at a time: the best combo, then the best
    of the remaining slots, ... (``skip(i)`` rules a combo out, e.g. an action tried earlier)."""
    used: set[int] = set()
    out: list[int] = []
    for i in np.argsort(-lp, kind="stable"):
        if len(out) >= k:
            break
        if int(slot[i]) in used or (skip is not None and skip(int(i))):
            continue
        used.add(int(slot[i]))
        out.append(int(i))
    return out


def digest(payload: Any) -> str:
    """A short sha256 of JSON-able data (training questions, settings): names what made a policy."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


# --- the policy the agent runs -----------------------------------------------------------------
class LearnedPolicy:
    """Runs a trained network greedily: stop if the stop logit exceeds the policy's stop threshold
    (rounds 2-3), else the most probable plan size and the round's most probable plan of that many
    slots (:func:`greedy_plan`), leaving out actions tried in earlier rounds.

    The stop threshold (``meta["stop_threshold"]``, 0 = P(stop) > 0.5) is calibrated after
    training on the training-side probe (``bench.train_policy.calibrate_stop``): GRPO with a round
    cost leaves the stop head stopping earlier than the heuristic, so its logit is read as a
    ranking of when stopping is safest and the threshold spends the heuristic's round budget.
    Measured: spending it changed no recall (docs/retrieval.md, "Fifth session"); a policy file
    without the key runs at 0, as every policy before it did."""

    name = "learned"

    def __init__(self, net: Any, meta: dict[str, Any]) -> None:
        self.net = net.eval()
        self.meta = meta
        self.space = ActionSpace([ToolSpec(**t) for t in meta["tools"]], meta.get("filters", FILTERS))
        self.dim = int(meta["embedding_dim"])
        self.stop_threshold = float(meta.get("stop_threshold", 0.0))

    @classmethod
    def load(cls, path: Path = POLICY_FILE) -> LearnedPolicy:
        torch = _torch()
        if not path.exists():
            raise InvalidInput(f"no learned policy at {path}; train one with python -m bench.train_policy")
        blob = torch.load(path, map_location="cpu", weights_only=False)
        meta, state = blob["meta"], blob["state_dict"]
        version = meta.get("format", 1)
        if version == 1:
            state = _widen_v1(state, len(meta["tools"]))
            meta = meta | {"filters": list(_V1_FILTERS), "n_features": int(meta["n_features"]) + 1}
        elif version != FORMAT or meta.get("filters") != list(FILTERS):
            raise InvalidInput(
                f"policy file {path} is format {version} with filters {meta.get('filters')}; this voxmem "
                f"reads format 1 and format {FORMAT} with filters {list(FILTERS)}: retrain it with "
                "python -m bench.train_policy"
            )
        net = build_net(int(meta["n_features"]), int(meta["hidden"]), len(meta["tools"]))
        net.load_state_dict(state)
        return cls(net, meta)

    def question_vector(self, state: AgentState) -> np.ndarray:
        if state.embed is None:
            raise InvalidInput("the learned policy needs the agent's query encoder")
        return np.asarray(state.embed(state.query), dtype=np.float32)

    def plan(self, state: AgentState) -> list[Action]:
        stop_logit, actions = self.decide(state)
        if stop_logit is not None and stop_logit > self.stop_threshold:
            return []
        return actions

    def decide(self, state: AgentState) -> tuple[float | None, list[Action]]:
        """The stop logit (None in round 1, where the policy always acts) and the plan it runs if it
        goes on. Split from :meth:`plan` so calibration can read the logit of every round of one
        never-stopping rollout and know the outcome of any threshold from it."""
        torch = _torch()
        cand = self.space.candidates(state)
        combos = self.space.combos(cand)
        if not len(combos) or state.round > state.max_rounds:
            return None, []
        slot = slots(combos)
        with torch.no_grad():
            out = self.net(torch.as_tensor(features(state, self.question_vector(state))))
            heads = split_logits(out, len(self.space.tools))
            lp = combo_logprobs(out, cand, combos, len(self.space.tools)).numpy()
            size = int(size_logprobs(heads.size, len(np.unique(slot))).argmax()) + 1

        def tried(i: int) -> bool:
            return state.tried(self.space.action(cand, combos[i]))

        chosen = greedy_plan(lp, slot, size, tried)
        stop_logit = float(heads.stop) if state.round > 1 else None
        return stop_logit, [self.space.action(cand, combos[i]) for i in chosen]


def _widen_v1(state: dict[str, Any], n_tools: int) -> dict[str, Any]:
    """A format-1 network in this format's layout: a zero input weight for the time-window
    feature, zero filter and rewrite logits for the "time" filter (which a format-1 policy's
    action space masks out), so every valid action keeps its probability and the policy plans
    exactly as it did."""
    torch = _torch()
    n_r, old, new = len(REWRITES), len(_V1_FILTERS), len(FILTERS)
    a = len(LAYERS) + n_tools

    def widen(x: Any) -> Any:
        rest = tuple(x.shape[1:])
        filt = x[a : a + n_tools * old].reshape(n_tools, old, *rest)
        rw = x[a + n_tools * old : a + n_tools * old * (1 + n_r)].reshape(n_tools, old, n_r, *rest)
        pad_f = torch.zeros(n_tools, new - old, *rest, dtype=x.dtype)
        pad_r = torch.zeros(n_tools, new - old, n_r, *rest, dtype=x.dtype)
        parts = [
            x[:a],
            torch.cat([filt, pad_f], 1).reshape(-1, *rest),
            torch.cat([rw, pad_r], 1).reshape(-1, *rest),
            x[a + n_tools * old * (1 + n_r) :],
        ]
        return torch.cat(parts)

    first = state["0.weight"]
    return state | {
        "0.weight": torch.cat([first, torch.zeros(first.shape[0], 1, dtype=first.dtype)], 1),
        "2.weight": widen(state["2.weight"]),
        "2.bias": widen(state["2.bias"]),
    }


_LOADED: dict[Path, LearnedPolicy] = {}
_LOCK = threading.Lock()


def learned_policy(path: Path = POLICY_FILE) -> LearnedPolicy:
    """The trained policy from the repo's file, loaded once per process (it is read-only)."""
    with _LOCK:
        if path not in _LOADED:
            _LOADED[path] = LearnedPolicy.load(path)
        return _LOADED[path]
