"""Can round 1's outcome tell which extra round-2 action finds new gold? (issue 12, training side).

The eleventh and twelfth sessions (docs/retrieval.md, "Learned policy") found that an oracle over the
learned policy's action space beats the heuristic on 10-15 of 90 questions, but that a network fitted
to the oracle's *plans* moves no probe question. This asks a narrower, cheaper question with many more
labels: at the state the heuristic's round 1 leaves, score every single action of the action space as
an *addition* to the heuristic's own round-2 plan, from features of what round 1 returned (the
channels' agreement on their top 5, score margins, whether the retained turns are by the named
people, whether the question's rare words are in the retained lines) and of the action (tool,
rewrite, filter). Labels: the action, added, raises recall@10 after round 2. A predictor is fitted on
fit questions (training corpora, not the probe), its threshold chosen by cross-validation grouped by
question, and then it picks one extra action (or none) per probe question; the probe's recall@10 after
round 2 is compared with the heuristic's round 2. Gold is read for the labels (fit side) and to score
the probe, never by the predictor.

    python -m bench.round2_predictor --fit-questions 100 --probe-questions 30
        --sample 0 --probe-sample 0 --out DIR

(the measured run: docs/retrieval.md, "Sixteenth session"; ``--sample N`` labels N random
candidates per state instead of all). Runs against the spaces ``python -m bench.train_policy
--load-only`` loads, through the trainer's tool cache and ``Env`` (the service's agent on cached tools).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import pickle
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench import train_policy as T
from bench.retrieval_data import locomo
from voxmem.config import Settings
from voxmem.errors import DatabaseUnavailable
from voxmem.retrieval import learned as L
from voxmem.retrieval.agent import POLICIES, Action, AgentState, coverage
from voxmem.retrieval.fusion import turn_ranking
from voxmem.retrieval.service import RetrievalService
from voxmem.retrieval.text import content_words

CHANNELS = ("message_vector", "message_fulltext", "message_sparse")
TOOL_NAMES = [t.name for t in L.tool_specs()]


def _same(person: dict[str, Any] | None, who: dict[str, Any] | None) -> bool:
    if not person or not who:
        return False
    if person.get("id") and person.get("id") == who.get("id"):
        return True
    return bool(person.get("name")) and (person.get("name") or "").lower() == (who.get("name") or "").lower()


def state_features(state: AgentState, idf: dict[str, float], plan: list[Action]) -> dict[str, float]:
    """What round 1 returned, by name (read after round 1, before round 2): per channel (vector,
    BM25, SPLADE) whether it ran, its top turn in the fused top 3, the share of its top 5 in the fused
    top 10 and its relative score margins; the channels' pairwise agreement (Jaccard of their top 5);
    the fused margins; whether the retained top 10 is by / to / about the people the question names;
    whether the question's rarest words (IDF in the space) are in the retained lines; the reading;
    and which tools the heuristic's round-2 plan already holds."""
    r = state.reading
    by_tool: dict[str, list[str]] = {}
    margins: dict[str, tuple[float, float]] = {}
    for key, found in state.last_hits.items():
        tool = key.split(":")[1]
        if tool in by_tool or not found:
            continue  # a tool run twice: its first action's ranking
        by_tool[tool] = turn_ranking(found)
        sc = [h.score for h in found]
        top = abs(sc[0]) or 1.0
        margins[tool] = (
            (sc[0] - sc[1]) / top if len(sc) > 1 else 1.0,
            (sc[0] - sc[min(4, len(sc) - 1)]) / top,
        )
    evidence = state.evidence()
    top10 = [e.id for e in evidence[:10]]
    f: dict[str, float] = {}
    for tool in CHANNELS:
        ranking = by_tool.get(tool, [])
        f[f"{tool}:ran"] = float(tool in by_tool)
        f[f"{tool}:top_in_fused_top3"] = float(bool(ranking) and ranking[0] in top10[:3])
        f[f"{tool}:top5_in_fused_top10"] = len(set(ranking[:5]) & set(top10)) / 5
        f[f"{tool}:margin_1_2"], f[f"{tool}:margin_1_5"] = margins.get(tool, (0.0, 0.0))

    def jac(a: set[str], b: set[str]) -> float:
        return len(a & b) / len(a | b) if a | b else 0.0

    for i, a in enumerate(CHANNELS):
        for b in CHANNELS[i + 1 :]:
            f[f"jaccard5:{a}:{b}"] = jac(set(by_tool.get(a, [])[:5]), set(by_tool.get(b, [])[:5]))
    tops = [set(v[:5]) for v in by_tool.values() if v]
    pairs = [jac(a, b) for i, a in enumerate(tops) for b in tops[i + 1 :]]
    f["jaccard5:mean_all_tools"] = statistics.fmean(pairs) if pairs else 0.0
    f["tools_ran"] = len(by_tool) / len(TOOL_NAMES)
    scores = [e.score for e in evidence[:10]]
    f["fused_margin_1_2"] = (scores[0] - scores[1]) / scores[0] if len(scores) > 1 and scores[0] else 0.0
    f["fused_margin_1_10"] = (scores[0] - scores[-1]) / scores[0] if scores and scores[0] else 0.0
    f["top10_found_by_2_tools"] = sum(1 for e in evidence[:10] if len(e.tools) > 1) / 10
    f["top10_sessions"] = len({e.evidence.session for e in evidence[:10]}) / 10
    first = r.speaker or (r.people[0] if r.people else None)
    second = r.addressee or (r.people[1] if len(r.people) > 1 else None)
    by_first = [_same(first, e.evidence.speaker) for e in evidence[:10]]
    to_second = [any(_same(second, a) for a in e.evidence.addressees) for e in evidence[:10]]
    names = [(p.get("name") or "").lower() for p in r.people if p.get("name")]
    n10 = max(1, len(evidence[:10]))
    f["names_a_person"] = float(first is not None)
    f["top10_by_first_person"] = sum(by_first) / n10
    f["top1_by_first_person"] = float(bool(by_first) and by_first[0])
    f["names_a_second_person"] = float(second is not None)
    f["top10_to_second_person"] = sum(to_second) / n10
    f["top10_mentions_a_named_person"] = (
        sum(any(n in e.evidence.text.lower() for n in names) for e in evidence[:10]) / n10
    )
    # the question's rare words (IDF in the space) in the retained lines; an unseen word is rarest
    name_words = {w for name in names for w in name.split()}
    words = [w for w in r.keywords if w not in name_words]
    top_idf = max(idf.values(), default=1.0)
    rare = sorted(words, key=lambda w: idf.get(w, top_idf), reverse=True)
    text5 = set(content_words(" ".join(e.evidence.text for e in evidence[:5])))
    text10 = set(content_words(" ".join(e.evidence.text for e in evidence[:10])))
    weight = sum(idf.get(w, top_idf) for w in words) or 1.0
    f["rarest_word_in_top5"] = float(bool(rare) and rare[0] in text5)
    f["rarest_word_in_top10"] = float(bool(rare) and rare[0] in text10)
    f["second_rarest_word_in_top10"] = float(len(rare) > 1 and rare[1] in text10)
    f["idf_share_of_words_in_top10"] = sum(idf.get(w, top_idf) for w in words if w in text10) / weight
    f["rarest_missing_word_idf"] = (
        max((idf.get(w, top_idf) for w in words if w not in text10), default=0.0) / top_idf
    )
    f["content_words"] = len(words) / 10
    f["coverage_top5"] = coverage(state) if state.retained else 0.0
    f["coverage_top3"] = coverage(state, top=3) if state.retained else 0.0
    f["retained"] = len(state.retained) / 30
    f["round1_gained"] = len(state.rounds[-1].gained) / 30 if state.rounds else 0.0
    for k in L.KINDS:
        f[f"kind:{k}"] = float(r.kind == k)
    f["temporal"], f["quote"], f["first_person"] = (
        float(r.temporal),
        float(bool(r.quote)),
        float(r.first_person),
    )
    f["people_named"] = min(len(r.people), 2) / 2
    f["asker_known"] = float(state.scope.asker is not None)
    f["round2_plan_size"] = len(plan) / L.MAX_PLAN
    planned = {a.tool for a in plan}
    for t in TOOL_NAMES:
        f[f"round2_plan_has:{t}"] = float(t in planned)
    return f


def action_features(combo: np.ndarray, action: Action, state: AgentState, plan: list[Action]) -> list[float]:
    _, t, rw, f = (int(v) for v in combo)
    x = [float(t == i) for i in range(len(TOOL_NAMES))]
    x += [float(rw == i) for i in range(len(L.REWRITES))]
    x += [float(f == i) for i in range(len(L.FILTERS))]
    x += [
        float(any(a.tool == action.tool for a in plan)),
        float(any(a.tool == action.tool for a in state.history)),
        float(any(a.tool == action.tool and a.filters == action.filters for a in state.history + plan)),
    ]
    return x


def idf_table(rows: list[Any]) -> dict[str, float]:
    df: Counter[str] = Counter()
    for row in rows:
        df.update(set(content_words(row.text)))
    n = max(1, len(rows))
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


def round2_state(env: T.Env, q: T.Question) -> tuple[AgentState, list[Action]] | None:
    """The state the heuristic's round 1 leaves and its round-2 plan; None when its episode ends
    after round 1 (the agent's stop rule, or no plan)."""
    heuristic = POLICIES["heuristic"]()
    present = env.present(q)
    state = env.start(q)
    planned = [a for a in heuristic.plan(state) if a.tool in env.tools]
    if not planned:
        return None
    trace, _ = env.agent.step(state, planned, "heuristic", present)
    if trace.stop or state.round > env.agent.max_rounds:
        return None
    plan = [a for a in heuristic.plan(state) if a.tool in env.tools and a.layer in present]
    if not plan:
        return None
    return state, plan[: L.MAX_PLAN]


def candidates(
    env: T.Env, q: T.Question, state: AgentState, plan: list[Action]
) -> list[tuple[np.ndarray, Action]]:
    present = env.present(q)
    cand = env.space.candidates(state)
    keys = {a.key() for a in plan} | {a.key() for a in state.history}
    out: dict[tuple, tuple[np.ndarray, Action]] = {}
    for combo in env.space.combos(cand):
        action = env.space.action(cand, combo)
        if action.layer in present and action.key() not in keys:
            out.setdefault(action.key(), (combo, action))
    return list(out.values())


def outcome(env: T.Env, q: T.Question, state: AgentState, plan: list[Action]) -> tuple[float, set[str]]:
    child = T.branch(state)
    env.agent.step(child, plan, "oracle", env.present(q))
    return T.recall_at(child, q.gold), set(child.retained) & q.gold


def episode_end(env: T.Env, q: T.Question, state: AgentState, plan: list[Action]) -> tuple[float, int]:
    """Round 2 = ``plan``, then the heuristic's rounds until the agent's stop rule, the round limit
    or an empty plan (as :func:`train_policy.episode` plays them): recall@10 at the end, rounds run."""
    heuristic = POLICIES["heuristic"]()
    present = env.present(q)
    child = T.branch(state)
    trace, _ = env.agent.step(child, plan, "oracle", present)
    while not trace.stop and child.round <= env.agent.max_rounds:
        nxt = [a for a in heuristic.plan(child) if a.tool in env.tools]
        if not nxt:
            break
        trace, _ = env.agent.step(child, nxt, "heuristic", present)
    return T.recall_at(child, q.gold), len(child.rounds)


def collect(
    env: T.Env, qs: list[T.Question], idf: dict[str, dict[str, float]], sample: int, rng: random.Random
) -> list[dict[str, Any]]:
    """Per question reaching round 2: state features, every candidate's features, the heuristic's
    round-2 outcome and, for ``sample`` random candidates, the outcome of adding each."""
    out = []
    for n, q in enumerate(qs):
        found = round2_state(env, q)
        if found is None:
            continue
        state, plan = found
        s = list(state_features(state, idf[q.space], plan).values())
        cands = candidates(env, q, state, plan)
        base, base_gold = outcome(env, q, state, plan)
        picked = rng.sample(range(len(cands)), min(sample, len(cands))) if sample else range(len(cands))
        labels = {}
        for i in picked:
            r, g = outcome(env, q, state, [*plan, cands[i][1]])
            labels[i] = (r, len(g - base_gold))
        out.append(
            {
                "q": q,
                "state": state,
                "plan": plan,
                "s": s,
                "cands": cands,
                "a": [action_features(c, a, state, plan) for c, a in cands],
                "base": base,
                "base_gold": base_gold,
                "labels": labels,
            }
        )
        if n % 20 == 0:
            print(f"  {n}/{len(qs)} questions, {len(out)} reach round 2, cache {env.stats}", flush=True)
    return out


def matrix(
    rows: list[dict[str, Any]], use_state: bool, only_labelled: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, gs, news = [], [], [], []
    for gi, row in enumerate(rows):
        idx = list(row["labels"]) if only_labelled else range(len(row["cands"]))
        for i in idx:
            xs.append((row["s"] if use_state else []) + row["a"][i])
            if only_labelled:
                r, new = row["labels"][i]
                ys.append(float(r > row["base"] + 1e-9) - float(r < row["base"] - 1e-9))
                news.append(float(new > 0))
            gs.append(gi)
    return np.asarray(xs, dtype=np.float32), np.asarray(ys), np.asarray(gs), np.asarray(news)


def model() -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=150,
        learning_rate=0.05,
        max_leaf_nodes=15,
        min_samples_leaf=10,
        l2_regularization=1.0,
        random_state=0,
    )


def fit(rows: list[dict[str, Any]], use_state: bool, target: str) -> Any:
    x, y, _, new = matrix(rows, use_state)
    m = model()
    with one_thread():
        m.fit(x, (y > 0) if target == "r10" else (new > 0))
    return m


def scores(m: Any, x: np.ndarray) -> np.ndarray:
    """P(the action, added, gains) for each row of ``x``."""
    with one_thread():
        return m.predict_proba(x)[:, 1]


def one_thread() -> Any:
    """The trees' OpenMP pool limited to one thread: on 2 shared cores a second thread only spins
    (a 1,200-row fit took minutes at load 9 with the default pool)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def cv_threshold(
    rows: list[dict[str, Any]], use_state: bool, target: str, folds: int = 5
) -> tuple[float, dict[str, Any]]:
    """Grouped k-fold on the fit questions: each held-out fold's labelled candidates scored by a model
    fitted on the others; the threshold on P(gain) that maximises the mean recall change of adding the
    top-scored *labelled* candidate when it clears the threshold (the fit side's only way to judge a
    pick without running it). Returns the threshold and the fold scores: pooled AUC; adding the top
    pick always (mean recall change, questions raised, lowered); among the questions some candidate
    raises, how often the top pick is one."""
    from sklearn.metrics import roc_auc_score

    order = list(range(len(rows)))
    random.Random(1).shuffle(order)
    picks: list[tuple[float, float]] = []  # per fit question: (P of the top labelled, its recall change)
    ys, ps = [], []
    hits: list[bool] = []  # states where some candidate raises recall: the top-scored one does
    for k in range(folds):
        test = [rows[i] for i in order[k::folds]]
        train = [rows[i] for i in order if i not in set(order[k::folds])]
        m = fit(train, use_state, target)
        for row in test:
            x, y, _, new = matrix([row], use_state)
            if not len(x):
                continue
            p = scores(m, x)
            ys += list((y > 0) if target == "r10" else (new > 0))
            ps += list(p)
            j = int(np.argmax(p))
            i = list(row["labels"])[j]
            picks.append((float(p[j]), row["labels"][i][0] - row["base"]))
            if any(r > row["base"] + 1e-9 for r, _ in row["labels"].values()):
                hits.append(row["labels"][i][0] > row["base"] + 1e-9)
    best = (0.0, 1.01)
    for tau in sorted({p for p, _ in picks} | {1.01}):
        gain = statistics.fmean(d if p >= tau else 0.0 for p, d in picks)
        if gain > best[0] + 1e-12:
            best = (gain, tau)
    auc = roc_auc_score(ys, ps) if 0 < sum(ys) < len(ys) else float("nan")
    return best[1], {
        "cv_auc": round(float(auc), 3),
        "cv_gain_at_tau": round(best[0], 4),
        "cv_always_add_top": [
            round(statistics.fmean(d for _, d in picks), 4) if picks else 0.0,
            sum(d > 1e-9 for _, d in picks),
            sum(d < -1e-9 for _, d in picks),
        ],
        "cv_top_pick_raises_where_possible": [sum(hits), len(hits)],
        "positives": int(sum(ys)),
        "labelled": len(ys),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--train-questions", type=int, default=10, help="per training corpus (as train_policy)"
    )
    parser.add_argument(
        "--fit-questions",
        type=int,
        default=20,
        help="per training corpus, the predictor's fit set (probe excluded)",
    )
    parser.add_argument(
        "--probe-questions", type=int, default=10, help="per training corpus (as train_policy)"
    )
    parser.add_argument(
        "--sample", type=int, default=16, help="labelled random candidates per fit state (0: all)"
    )
    parser.add_argument(
        "--probe-sample",
        type=int,
        default=16,
        help="random candidates per probe state (oracle of the sample, AUC; 0: all)",
    )
    parser.add_argument(
        "--corpora",
        default="conv-,friendsqa",
        help="comma-separated training-corpus name prefixes (the twelfth session's round-2 headroom was on "
        "LoCoMo and FriendsQA only: the generated cases reach 1.0 without it)",
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    import torch

    torch.set_num_threads(1)
    from voxmem.core import Voxmem

    settings = Settings()
    core = Voxmem.build(settings)
    core.start()
    print(f"load average {os.getloadavg()}", flush=True)
    corpora = {c.name: c for c in locomo()}
    askers: dict[str, str | None] = {}
    for scenario in T.GENERATED:
        for seed in T.TRAIN_SEEDS:
            corpus, asked = T.generated(scenario, seed)
            corpora[corpus.name] = corpus
            askers |= asked
    corpora |= {c.name: c for c in T.friends_split()}
    train_names = [
        *T.TRAIN_CONVS,
        *(f"gen-{s}-seed{n}" for n in T.TRAIN_SEEDS for s in T.GENERATED),
        "friendsqa-train",
    ]
    train_names = [n for n in train_names if n.startswith(tuple(p for p in args.corpora.split(",") if p))]
    spaces = {n: T.space_name(n) for n in train_names}
    train_qs = T.questions([corpora[n] for n in train_names], spaces, args.train_questions, askers)
    probe_qs = T.probe_questions(
        [corpora[n] for n in train_names], spaces, {q.qid for q in train_qs}, args.probe_questions, askers
    )
    probe_ids = {q.qid for q in probe_qs}
    more = T.questions([corpora[n] for n in train_names], spaces, args.fit_questions, askers)
    fit_qs = train_qs + [q for q in more if q.qid not in probe_ids and q.qid not in {t.qid for t in train_qs}]
    idf = {spaces[n]: idf_table(corpora[n].rows) for n in train_names}
    retrieval = RetrievalService(settings, core.db, core.embedder, chat_model=None)
    store: dict[tuple, Any] = pickle.loads(T.CACHE.read_bytes()) if T.CACHE.exists() else {}
    for key in [k for k, v in store.items() if isinstance(v, DatabaseUnavailable)]:
        del store[key]
    print("stale dropped:", T.validate_cache(store, core.db, list(spaces.values())), flush=True)
    env = T.Env(core, retrieval, store)
    rng = random.Random(0)
    started = time.perf_counter()
    print(f"fit questions {len(fit_qs)}, probe {len(probe_qs)}", flush=True)
    fit_rows = collect(env, fit_qs, idf, args.sample, rng)
    T.save_cache(store)
    print(
        f"fit states {len(fit_rows)} ({time.perf_counter() - started:.0f} s, load {os.getloadavg()})",
        flush=True,
    )
    probe_rows = collect(env, probe_qs, idf, args.probe_sample, rng)
    T.save_cache(store)
    print(
        f"probe states {len(probe_rows)} ({time.perf_counter() - started:.0f} s, load {os.getloadavg()})",
        flush=True,
    )
    report: dict[str, Any] = {
        "fit_questions": len(fit_qs),
        "fit_states": len(fit_rows),
        "probe_questions": len(probe_qs),
        "probe_states": len(probe_rows),
        "args": vars(args) | {"out": str(args.out)},
        "variants": {},
    }
    n = len(probe_rows)
    heur = [row["base"] for row in probe_rows]
    # the whole episode (the heuristic's round 3 after round 2), recall@10 at the end and rounds
    heur_end = [episode_end(env, row["q"], row["state"], row["plan"]) for row in probe_rows]
    report["probe_episode_heuristic"] = [
        round(statistics.fmean(e[0] for e in heur_end), 4) if n else None,
        round(statistics.fmean(e[1] for e in heur_end), 3) if n else None,
    ]
    report["probe_heuristic_round2"] = round(statistics.fmean(heur), 4) if n else None
    sampled_best = [max([row["base"], *(r for r, _ in row["labels"].values())]) for row in probe_rows]
    report["probe_oracle_of_sample"] = round(statistics.fmean(sampled_best), 4) if n else None
    report["probe_oracle_of_sample_gains_on"] = sum(
        b > h + 1e-9 for b, h in zip(sampled_best, heur, strict=True)
    )
    rand = [
        statistics.fmean(r for r, _ in row["labels"].values()) if row["labels"] else row["base"]
        for row in probe_rows
    ]
    report["probe_random_extra"] = round(statistics.fmean(rand), 4) if n else None
    for side, rows in (("fit", fit_rows), ("probe", probe_rows)):
        report[f"{side}_candidates_per_state"] = (
            round(statistics.fmean(len(row["cands"]) for row in rows), 1) if rows else None
        )
        report[f"{side}_states_below_1"] = sum(row["base"] < 1.0 - 1e-9 for row in rows)
        report[f"{side}_states_an_extra_action_raises"] = sum(
            any(r > row["base"] + 1e-9 for r, _ in row["labels"].values()) for row in rows
        )
        report[f"{side}_states_an_extra_action_lowers"] = sum(
            any(r < row["base"] - 1e-9 for r, _ in row["labels"].values()) for row in rows
        )
    fit_pos = [sum(1 for r, _ in row["labels"].values() if r > row["base"] + 1e-9) for row in fit_rows]
    report["fit_labelled"] = sum(len(row["labels"]) for row in fit_rows)
    report["fit_positive_r10"] = sum(fit_pos)
    report["fit_states_with_a_positive"] = sum(1 for p in fit_pos if p)
    from sklearn.metrics import roc_auc_score

    for name, use_state, target in (
        ("state+action, r@10 gain", True, "r10"),
        ("action only (prior), r@10 gain", False, "r10"),
        ("state+action, new gold", True, "new"),
    ):
        tau, cv = cv_threshold(fit_rows, use_state, target)
        m = fit(fit_rows, use_state, target)
        always, gated, ends, rows_out = [], [], [], []
        for row, (base_end, base_rounds) in zip(probe_rows, heur_end, strict=True):
            x, _, _, _ = matrix([row], use_state, only_labelled=False)
            p = scores(m, x)
            j = int(np.argmax(p))
            picked = [*row["plan"], row["cands"][j][1]]
            r, _ = outcome(env, row["q"], row["state"], picked)
            end = episode_end(env, row["q"], row["state"], picked)
            always.append(r)
            gated.append(r if p[j] >= tau else row["base"])
            ends.append(end)
            rows_out.append(
                {
                    "qid": row["q"].qid,
                    "heuristic": row["base"],
                    "pick": row["cands"][j][1].as_dict(),
                    "p": round(float(p[j]), 3),
                    "r@10": r,
                    "episode_heuristic": [base_end, base_rounds],
                    "episode_pick": list(end),
                }
            )
        xs, ys, _, news = matrix(probe_rows, use_state)
        probs = scores(m, xs) if len(xs) else np.zeros(0)
        labels = (ys > 0) if target == "r10" else (news > 0)
        auc = roc_auc_score(labels, probs) if 0 < labels.sum() < len(labels) else float("nan")
        report["variants"][name] = {
            **cv,
            "tau": round(tau, 3),
            "probe_auc_on_sample": round(float(auc), 3),
            "probe_always_add_top": round(statistics.fmean(always), 4) if n else None,
            "probe_always_better_worse": [
                sum(a > h + 1e-9 for a, h in zip(always, heur, strict=True)),
                sum(a < h - 1e-9 for a, h in zip(always, heur, strict=True)),
            ],
            "probe_episode_always_add_top": [
                round(statistics.fmean(e[0] for e in ends), 4) if n else None,
                round(statistics.fmean(e[1] for e in ends), 3) if n else None,
                sum(e[0] > h[0] + 1e-9 for e, h in zip(ends, heur_end, strict=True)),
                sum(e[0] < h[0] - 1e-9 for e, h in zip(ends, heur_end, strict=True)),
            ],
            "probe_gated": round(statistics.fmean(gated), 4) if n else None,
            "probe_gated_better_worse": [
                sum(a > h + 1e-9 for a, h in zip(gated, heur, strict=True)),
                sum(a < h - 1e-9 for a, h in zip(gated, heur, strict=True)),
            ],
            "rows": rows_out,
        }
        print(
            name, json.dumps({k: v for k, v in report["variants"][name].items() if k != "rows"}), flush=True
        )
    T.save_cache(store)
    report["s"] = round(time.perf_counter() - started, 1)
    report["loadavg_end"] = [round(v, 2) for v in os.getloadavg()]
    summary = {k: v for k, v in report.items() if k != "variants"}
    print(json.dumps(summary), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "round2_predictor.json").write_text(json.dumps(report, indent=1, default=str))
    core.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
