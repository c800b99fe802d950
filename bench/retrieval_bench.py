"""Retrieval benchmark: evidence recall@k and answer-in-evidence on LoCoMo and FriendsQA by
question category (agent policies vs a plain vector and a plain BM25 baseline, same run),
rounds used per policy, attribution exactness, and retrieval latency p50/p95 (no LLM) at
10k and 100k synthetic messages.

    python -m voxmem.bench.retrieval_bench                       # everything (long)
    python -m voxmem.bench.retrieval_bench --latency 0 --locomo 2 --friendsqa 30   # quick

Prints tables, writes results/retrieval/retrieval_bench.json and retrieval_bench.png.
Every dataset space is created fresh (policy open, asker unknown) and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from voxmem.bench.retrieval_data import (
    BatchLoader,
    Corpus,
    friendsqa,
    locomo,
    synthetic_rows,
    synthetic_sentences,
)
from voxmem.config import Settings
from voxmem.messages import lucene_query
from voxmem.retrieval.agent import POLICIES
from voxmem.retrieval.answer import compose
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.retrieval.text import content_words, normalise
from voxmem.retrieval.tools import Filters, MessageFulltextRetriever
from voxmem.services import Services

KS = (5, 10, 30)


class PlainBM25(MessageFulltextRetriever):
    """Baseline: the question as-is (escaped), no stop-word removal, no planning."""

    name = "bm25_plain"

    def _lucene(self, text: str) -> str | None:
        try:
            return lucene_query(text)
        except Exception:
            return None


def _recall(ranked: list[str], gold: set[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold)


def _answer_in(answer: str, texts: list[str]) -> bool:
    """All content words of the gold answer occur in the evidence (or its normalised string does)."""
    blob = normalise(" ".join(texts))
    words = content_words(answer)
    if not words:
        return bool(normalise(answer)) and normalise(answer) in blob
    have = set(blob.split())
    return all(w in have for w in words)


def _evidence_texts(items: list[dict[str, Any]]) -> list[str]:
    """Text, speaker and date of each evidence turn (answers like '7 May 2023' live in the time)."""
    out = []
    for e in items:
        when = ""
        if e.get("ts"):
            try:
                from datetime import datetime

                d = datetime.fromisoformat(e["ts"].replace("Z", "+00:00"))
                when = f"{d.day} {d.strftime('%B %Y')} {d.year}"
            except ValueError:
                when = e["ts"][:10]
        support = " ".join(s.get("text", "") for s in e.get("support") or [])
        out.append(f"{(e.get('speaker') or {}).get('name', '')} {when} {e['text']} {support}")
    return out


def _hit_dicts(hits) -> list[dict[str, Any]]:
    return [s.as_dict() for h in hits for s in h.sources]


class Evaluator:
    """Runs every method on every question of a loaded corpus and keeps per-question rows."""

    def __init__(self, services: Services, retrieval: RetrievalService, policies: list[str]) -> None:
        self.services = services
        self.retrieval = retrieval
        self.policies = policies
        self.bm25 = PlainBM25(services.db, None, fetch=400)

    def load(self, corpus: Corpus, addressed_by: str) -> str:
        space = f"bench-ret-{corpus.name}-{uuid.uuid4().hex[:6]}"
        self.services.spaces.create(space, "open")
        texts = [r.text for r in corpus.rows]
        vectors = self.services.embedder.embed(texts)
        BatchLoader(self.services.db, addressed_by=addressed_by).load(space, corpus.rows, vectors)
        return space

    def run(self, corpus: Corpus, space: str, limit: int | None, bar: tqdm) -> list[dict[str, Any]]:
        scope = resolve_scope(self.services.db, space, None)
        agent = self.retrieval.agent()
        vector = self.retrieval.tools["message_vector"]
        rows = []
        for qa in subsample(corpus.qas, limit):
            gold = {f"{space}:{e}" for e in qa.evidence}
            row: dict[str, Any] = {"qid": qa.qid, "category": qa.category, "n_gold": len(gold)}
            ranked: dict[str, list[dict[str, Any]]] = {
                "vector": _hit_dicts(vector.search(scope, qa.question, Filters(), k=max(KS))),
                "bm25": _hit_dicts(self.bm25.search(scope, qa.question, Filters(), k=max(KS))),
            }
            for name in self.policies:
                started = time.perf_counter()
                result = agent.run(qa.question, scope, POLICIES[name]())
                row[f"{name}_ms"] = (time.perf_counter() - started) * 1000
                row[f"{name}_rounds"] = len(result.trace)
                ranked[name] = [e.as_dict() for e in result.evidence]
                if qa.is_speaker:
                    answer = compose(result)
                    row[f"{name}_attribution"] = normalise(answer.answer) == normalise(qa.answer)
                    row[f"{name}_attribution_answered"] = answer.answerer == "graph"
                    row[f"{name}_attribution_read"] = result.reading.kind in (
                        "who_said",
                        "addressee",
                        "said_to",
                    )
            for method, items in ranked.items():
                ids = [e["id"] for e in items]
                for k in KS:
                    row[f"{method}_r@{k}"] = _recall(ids, gold, k)
                row[f"{method}_aie@10"] = _answer_in(qa.answer, _evidence_texts(items[:10]))
            rows.append(row)
            bar.update(1)
        return rows


def subsample(items: list[Any], limit: int | None) -> list[Any]:
    """At most ``limit`` items, evenly spaced (keeps the category mix of the whole list)."""
    if limit is None or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def summarise(rows: list[dict[str, Any]], methods: list[str]) -> dict[str, Any]:
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_cat[row["category"]].append(row)
    by_cat["ALL"] = rows
    table: dict[str, Any] = {}
    for cat, items in sorted(by_cat.items()):
        table[cat] = {"n": len(items)}
        for m in methods:
            for k in KS:
                table[cat][f"{m}_r@{k}"] = round(statistics.fmean(r[f"{m}_r@{k}"] for r in items), 4)
            table[cat][f"{m}_aie@10"] = round(statistics.fmean(float(r[f"{m}_aie@10"]) for r in items), 4)
    return table


def rounds_summary(rows: list[dict[str, Any]], policies: list[str]) -> dict[str, Any]:
    out = {}
    for p in policies:
        counts = Counter(r[f"{p}_rounds"] for r in rows)
        ms = [r[f"{p}_ms"] for r in rows]
        out[p] = {
            "mean_rounds": round(statistics.fmean(r[f"{p}_rounds"] for r in rows), 3),
            "histogram": {str(k): counts[k] for k in sorted(counts)},
            "agent_ms_p50": round(float(np.percentile(ms, 50)), 1),
            "agent_ms_p95": round(float(np.percentile(ms, 95)), 1),
        }
        attributed = [r for r in rows if f"{p}_attribution" in r]
        if attributed:
            out[p]["attribution_questions"] = len(attributed)
            out[p]["attribution_exact"] = round(
                statistics.fmean(float(r[f"{p}_attribution"]) for r in attributed), 4
            )
            out[p]["attribution_answered"] = round(
                statistics.fmean(float(r[f"{p}_attribution_answered"]) for r in attributed), 4
            )
            read = [r for r in attributed if r.get(f"{p}_attribution_read")]
            out[p]["attribution_read_as_who_said"] = len(read)
            if read:
                out[p]["attribution_exact_when_read"] = round(
                    statistics.fmean(float(r[f"{p}_attribution"]) for r in read), 4
                )
    return out


def print_table(title: str, table: dict[str, Any], methods: list[str]) -> None:
    print(f"\n{title}")
    head = f"{'category':<16}{'n':>6}" + "".join(
        f"{m + ' R@5':>16}{m + ' R@10':>16}{m + ' R@30':>16}" for m in methods
    )
    print(head)
    for cat, vals in table.items():
        line = f"{cat:<16}{vals['n']:>6}" + "".join(
            f"{vals[f'{m}_r@5']:>16.3f}{vals[f'{m}_r@10']:>16.3f}{vals[f'{m}_r@30']:>16.3f}" for m in methods
        )
        print(line)
    print(
        f"{'answer-in-evidence@10':<22}"
        + "".join(f"{m}={table['ALL'][f'{m}_aie@10']:.3f}  " for m in methods)
    )


# --- latency ----------------------------------------------------------------------------------
def _percentiles(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(values, 50)), 1),
        "p95": round(float(np.percentile(values, 95)), 1),
        "n": len(values),
    }


def latency(
    services: Services, retrieval: RetrievalService, sizes: list[int], n_queries: int, keep: bool
) -> dict[str, Any]:
    """Load a synthetic space up to each size and time retrieval (no LLM), warm."""
    space = f"bench-ret-latency-{uuid.uuid4().hex[:6]}"
    services.spaces.create(space, "open")
    rng = np.random.default_rng(5)
    pool_texts = synthetic_sentences(3000)
    pool = services.embedder.embed(pool_texts)
    loader = BatchLoader(services.db, batch=2000)
    results: dict[str, Any] = {}
    loaded = 0
    questions = synthetic_sentences(n_queries + 20, seed=99)
    try:
        for size in sorted(sizes):
            rows = list(synthetic_rows(loaded, size - loaded))
            vectors = pool[rng.integers(0, len(pool), len(rows))] + rng.normal(
                0, 0.04, (len(rows), pool.shape[1])
            )
            vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
            started = time.perf_counter()
            with tqdm(total=len(rows), desc=f"load synthetic to {size}", unit="msg") as bar:
                loader.load(space, rows, vectors, progress=bar.update)
            load_s = time.perf_counter() - started
            services.db.execute("CALL db.awaitIndexes(1800)")
            loaded = size
            asker = services.db.query(
                "MATCH (p:Participant {space: $space}) RETURN p.id AS id ORDER BY p.key LIMIT 1", space=space
            )[0]["id"]
            entry: dict[str, Any] = {
                "load_s": round(load_s, 1),
                "load_msgs_per_s": round(len(rows) / load_s, 1),
                "loadavg_before": [round(x, 2) for x in os.getloadavg()],
            }
            modes: dict[str, Callable[[str], Any]] = {}
            # query embedding is timed on its own, then cached, so every mode below measures the same
            # thing: graph retrieval + fusion (+ planning for the agent), without the text encoder
            times = []
            for q in questions[20:]:
                t = time.perf_counter()
                services.embedder.embed_one(q)
                times.append((time.perf_counter() - t) * 1000)
            entry["query_embedding"] = _percentiles(times)
            retrieval.embed.prime(questions)
            for policy_name, asker_id in (("open", None), ("participant", asker), ("private", asker)):
                services.db.execute(
                    "MATCH (s:Space {id: $space}) SET s.policy = $p", space=space, p=policy_name
                )
                scope = resolve_scope(services.db, space, asker_id)
                tag = f"{policy_name}{'' if asker_id is None else '+asker'}"
                modes = {
                    f"message_vector[{tag}]": lambda q, s=scope: retrieval.tools["message_vector"].search(
                        s, q, k=10
                    ),
                    f"hybrid_round[{tag}]": lambda q, s=scope: retrieval.search(s, q, None, None, k=10),
                    f"agent_heuristic[{tag}]": lambda q, s=scope: retrieval.agent().run(
                        q, s, POLICIES["heuristic"]()
                    ),
                }
                for name, fn in modes.items():
                    for q in questions[:20]:  # warm-up: plans cached, pages hot
                        fn(q)
                    times = []
                    for q in tqdm(questions[20:], desc=f"{size} {name}", leave=False):
                        t = time.perf_counter()
                        fn(q)
                        times.append((time.perf_counter() - t) * 1000)
                    entry[name] = _percentiles(times)
            results[str(size)] = entry
    finally:
        if not keep:
            services.spaces.delete(space, batch=5000)
    return results


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        (name, data)
        for name, data in (("LoCoMo", report.get("locomo")), ("FriendsQA", report.get("friendsqa")))
        if data
    ]
    n = len(panels) + (1 if report.get("latency") else 0)
    if n == 0:
        return
    fig, axes = plt.subplots(1, n, figsize=(7 * n, 4.8), squeeze=False)
    for ax, (name, data) in zip(axes[0], panels, strict=False):
        cats = list(data["table"])
        methods = data["methods"]
        width = 0.8 / len(methods)
        for i, m in enumerate(methods):
            ax.bar(
                np.arange(len(cats)) + i * width,
                [data["table"][c][f"{m}_r@10"] for c in cats],
                width,
                label=m,
            )
        ax.set_xticks(np.arange(len(cats)) + 0.4 - width / 2, cats, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"{name}: evidence recall@10 by category")
        ax.legend(fontsize=8)
    if report.get("latency"):
        ax = axes[0][-1]
        lat = report["latency"]
        names = [k for k in next(iter(lat.values())) if isinstance(next(iter(lat.values()))[k], dict)]
        width = 0.8 / max(1, len(lat))
        for i, (size, entry) in enumerate(sorted(lat.items(), key=lambda kv: int(kv[0]))):
            ax.bar(
                np.arange(len(names)) + i * width,
                [entry[k]["p95"] for k in names],
                width,
                label=f"{size} p95",
            )
            ax.scatter(
                np.arange(len(names)) + i * width,
                [entry[k]["p50"] for k in names],
                color="k",
                s=10,
                zorder=3,
                label="p50" if i == 0 else None,
            )
        ax.axhline(150, color="r", linestyle="--", linewidth=1, label="150 ms target")
        ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=35, ha="right", fontsize=7)
        ax.set_ylabel("ms (log scale)")
        ax.set_yscale("log")
        ax.set_title(f"retrieval latency (no LLM, {os.cpu_count()} cores)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


SECTIONS = {
    "locomo": "LoCoMo evidence recall (open space, unknown asker)",
    "friendsqa": "FriendsQA evidence recall (all scenes in one space)",
}


def print_section(report: dict[str, Any], key: str) -> None:
    print_table(SECTIONS[key], report[key]["table"], report[key]["methods"])
    print(json.dumps(report[key]["rounds"], indent=1))


def print_latency(latency: dict[str, Any], cores: int | None) -> None:
    print(
        f"\nRetrieval latency, ms (no LLM, warm, {cores} cores, in-process, query embedding timed separately)"
    )
    for size, entry in latency.items():
        load = entry["load_msgs_per_s"]
        print(f"  {size} messages (load {load} msg/s, loadavg {entry.get('loadavg_before')})")
        for name, vals in entry.items():
            if isinstance(vals, dict):
                print(f"    {name:<40} p50 {vals['p50']:>7.1f}  p95 {vals['p95']:>7.1f}  (n={vals['n']})")


def print_report(report: dict[str, Any]) -> None:
    for key in SECTIONS:
        if report.get(key):
            print_section(report, key)
    if report.get("latency"):
        print_latency(report["latency"], report.get("cores"))


def merge(folders: list[Path], out: Path) -> int:
    """Combine runs made in separate processes (e.g. datasets and latency) into one report and plot."""
    report: dict[str, Any] = {"merged_from": [str(f) for f in folders]}
    for folder in folders:
        part = json.loads((folder / "retrieval_bench.json").read_text())
        for key, value in part.items():
            if (key in ("locomo", "friendsqa", "latency") and value) or key not in report:
                report[key] = value
    out.mkdir(parents=True, exist_ok=True)
    (out / "retrieval_bench.json").write_text(json.dumps(report, indent=1))
    plot(report, out / "retrieval_bench.png")
    print_report(report)
    print(f"\nwrote {out / 'retrieval_bench.json'} and {out / 'retrieval_bench.png'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--locomo", type=int, default=7, help="LoCoMo conversations to use (0 = skip).")
    parser.add_argument("--friendsqa", type=int, default=136, help="FriendsQA scenes to use (0 = skip).")
    parser.add_argument(
        "--max-questions",
        type=int,
        default=None,
        help="Per corpus (LoCoMo: per conversation), evenly spaced.",
    )
    parser.add_argument("--policies", default="fixed,heuristic")
    parser.add_argument("--latency", default="10000,100000", help="Synthetic sizes ('0' = skip).")
    parser.add_argument("--latency-queries", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("results/retrieval"))
    parser.add_argument("--keep", action="store_true", help="Keep the benchmark spaces.")
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        help="Merge earlier runs' output folders into --out (no new measurement).",
    )
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.out)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    settings = Settings()
    services = Services.build(settings)
    services.start()
    retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
    policies = [p for p in args.policies.split(",") if p]
    methods = ["vector", "bm25", *policies]
    evaluator = Evaluator(services, retrieval, policies)
    report: dict[str, Any] = {
        "cores": os.cpu_count(),
        "neo4j": services.db.ping(),
        "policies": policies,
        "budgets": list(retrieval.budgets),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "note": "the dev machine is shared with other engineers' jobs: see loadavg for contention",
    }
    random.seed(0)
    try:
        if args.locomo:
            corpora = locomo(args.locomo)
            total = sum(len(subsample(c.qas, args.max_questions)) for c in corpora)
            rows: list[dict[str, Any]] = []
            with tqdm(total=total, desc="LoCoMo questions") as bar:
                for corpus in corpora:
                    space = evaluator.load(corpus, addressed_by="turn_taking")
                    try:
                        rows += evaluator.run(corpus, space, args.max_questions, bar)
                    finally:
                        if not args.keep:
                            services.spaces.delete(space)
            report["locomo"] = {
                "methods": methods,
                "table": summarise(rows, methods),
                "rounds": rounds_summary(rows, policies),
                "skipped": {c.name: c.skipped for c in corpora},
            }
            print_section(report, "locomo")
        if args.friendsqa:
            corpus = friendsqa(args.friendsqa)
            space = evaluator.load(corpus, addressed_by="given")
            try:
                with tqdm(
                    total=len(subsample(corpus.qas, args.max_questions)), desc="FriendsQA questions"
                ) as bar:
                    rows = evaluator.run(corpus, space, args.max_questions, bar)
            finally:
                if not args.keep:
                    services.spaces.delete(space)
            report["friendsqa"] = {
                "methods": methods,
                "table": summarise(rows, methods),
                "rounds": rounds_summary(rows, policies),
                "scenes": args.friendsqa,
                "messages": len(corpus.rows),
            }
            print_section(report, "friendsqa")
        sizes = [int(s) for s in args.latency.split(",") if s and int(s) > 0]
        if sizes:
            report["latency"] = latency(services, retrieval, sizes, args.latency_queries, args.keep)
            print_latency(report["latency"], os.cpu_count())
    finally:
        services.close()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval_bench.json").write_text(json.dumps(report, indent=1))
    plot(report, args.out / "retrieval_bench.png")
    print(f"\nwrote {args.out / 'retrieval_bench.json'} and {args.out / 'retrieval_bench.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
