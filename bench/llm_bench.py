"""Which local LLM answers best, and how fast, on 2 cores: the LLM reader on LoCoMo dev questions.

Why gold-evidence contexts: this isolates the *reader* (the part the model is for) from
retrieval, so models and thread counts are compared on identical inputs. Each question gets
its gold evidence turns plus the turn before and after each (distractors in the same
conversation), at most ``--turns`` turns in time order, laid out exactly as the product
lays them out (``voxmem.retrieval.llm_reader.layout``). The offline extractive answerer reads
the same contexts as a baseline. A fixed, stratified sample (seeded) keeps runs comparable.

For each configuration (model x threads) the local server is restarted through
``voxmem.llm.server.up`` and every question is timed end to end (HTTP call, parsing, repair).
Scores: containment of the gold answer (``bench.scoring.contains``), token F1, abstentions.

    nice -n 10 python -m bench.llm_bench --questions 40 \
        --config qwen2.5-coder-1.5b-instruct-q4_k_m:1 --config qwen2.5-coder-1.5b-instruct-q4_k_m:2 \
        --config qwen2.5-coder-0.5b-instruct-q4:1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.retrieval_data import QA, Corpus, Row, locomo
from bench.scoring import contains, percentile, token_f1
from voxmem.config import Settings, get_settings
from voxmem.llm import client, server
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import ExtractiveAnswerer
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.llm_reader import LLMReader, ReaderError
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence

OUT = Path("results/llm")
CATEGORIES = ("1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop")


def sample(corpora: list[Corpus], n: int, seed: int = 7) -> list[tuple[Corpus, QA]]:
    """``n`` questions, as evenly as possible over the four answerable LoCoMo categories."""
    by_cat: dict[str, list[tuple[Corpus, QA]]] = defaultdict(list)
    for corpus in corpora:
        for qa in corpus.qas:
            if any(qa.category.startswith(c.split()[0] + " ") for c in CATEGORIES) and qa.answer.strip():
                by_cat[qa.category].append((corpus, qa))
    rng = random.Random(seed)
    picked: list[tuple[Corpus, QA]] = []
    cats = sorted(by_cat)
    for cat in cats:
        rng.shuffle(by_cat[cat])
    i = 0
    while len(picked) < n and any(by_cat[c] for c in cats):
        cat = cats[i % len(cats)]
        if by_cat[cat]:
            picked.append(by_cat[cat].pop())
        i += 1
    return picked


def context(corpus: Corpus, qa: QA, max_turns: int) -> list[Row]:
    """Gold turns first, then their neighbours, capped, returned in conversation order."""
    order = {r.turn_id: i for i, r in enumerate(corpus.rows)}
    chosen: list[int] = [order[e] for e in qa.evidence if e in order]
    for e in list(chosen):
        for j in (e - 1, e + 1):
            if 0 <= j < len(corpus.rows) and j not in chosen and len(chosen) < max_turns:
                chosen.append(j)
    return [corpus.rows[j] for j in sorted(chosen[:max_turns])]


def agent_result(corpus: Corpus, qa: QA, rows: list[Row]) -> AgentResult:
    people = {name: {"id": name.lower(), "name": name} for r in corpus.rows[:50] for name in [r.speaker]}
    evidence = [
        FusedEvidence(
            evidence=Evidence(
                id=r.turn_id,
                session=r.session,
                idx=r.idx,
                text=r.text,
                ts=r.ts.isoformat(),
                speaker=people.get(r.speaker, {"id": r.speaker, "name": r.speaker}),
                addressees=[people.get(a, {"id": a, "name": a}) for a in r.addressees],
            ),
            score=1.0 / (k + 1),
        )
        for k, r in enumerate(rows)
    ]
    reading = read_question(qa.question, list(people.values()))
    scope = AccessScope(space=corpus.name, access_policy="open")
    return AgentResult(qa.question, scope, reading, "gold", evidence, [], {})


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process (the server): steadier than wall time on a busy machine."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_config(
    settings: Settings, model: str, threads: int, items: list[tuple[Corpus, QA]], max_turns: int
) -> dict[str, Any]:
    t0 = time.perf_counter()
    status = server.up(settings, model=model, threads=threads)
    startup = time.perf_counter() - t0
    endpoint = client.Endpoint("local", status.base_url, model, "configured")
    reader = LLMReader(client.chat_model(settings, endpoint=endpoint, max_tokens=96), endpoint)
    rows = []
    for corpus, qa in items:
        result = agent_result(corpus, qa, context(corpus, qa, max_turns))
        calls_before = reader.calls
        cpu_before = cpu_seconds(status.pid)
        start = time.perf_counter()
        error = None
        try:
            got = reader.answer(result)
        except (ReaderError, client.LLMUnavailable) as exc:  # counted as a wrong answer, run goes on
            got, error = None, str(exc)
        seconds = time.perf_counter() - start
        cpu = cpu_seconds(status.pid) - cpu_before
        prediction = got[0] if got else "not in memory"
        rows.append(
            {
                "qid": qa.qid,
                "category": qa.category,
                "question": qa.question,
                "gold": qa.answer,
                "prediction": prediction,
                "used": got[1] if got else [],
                "gold_evidence": qa.evidence,
                "contains": contains(prediction, qa.answer),
                "f1": token_f1(prediction, qa.answer),
                "abstained": got is None,
                "rejected": error,
                "calls": reader.calls - calls_before,
                "seconds": round(seconds, 2),
                "cpu_s": round(cpu, 2),
                "load1": round(os.getloadavg()[0], 2),
            }
        )
        shown = f"{prediction[:50]!r} | {qa.answer[:30]!r}"
        print(
            f"  {qa.qid:<14} {seconds:5.1f}s cpu {cpu:5.1f}s c={rows[-1]['contains']:.0f} {shown}", flush=True
        )
    return {
        "model": model,
        "threads": threads,
        "startup_s": round(startup, 1),
        **summarise(rows),
        "rows": rows,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [r["seconds"] for r in rows if "seconds" in r]
    cpus = [r["cpu_s"] for r in rows if "cpu_s" in r]
    per_cat: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        per_cat[r["category"]].append(r["contains"])
    return {
        "n": len(rows),
        "contains": round(sum(r["contains"] for r in rows) / len(rows), 3),
        "f1": round(sum(r["f1"] for r in rows) / len(rows), 3),
        "abstained": sum(r["abstained"] for r in rows),
        "rejected": sum(1 for r in rows if r.get("rejected")),
        "repairs": sum(max(0, r.get("calls", 1) - 1) for r in rows),
        "p50_s": round(percentile(secs, 50) or 0, 2) if secs else None,
        "p95_s": round(percentile(secs, 95) or 0, 2) if secs else None,
        "cpu_p50_s": round(percentile(cpus, 50) or 0, 2) if cpus else None,
        "cpu_p95_s": round(percentile(cpus, 95) or 0, 2) if cpus else None,
        "per_category": {c: round(sum(v) / len(v), 3) for c, v in sorted(per_cat.items())},
    }


def offline(items: list[tuple[Corpus, QA]], max_turns: int) -> dict[str, Any]:
    rows = []
    for corpus, qa in items:
        result = agent_result(corpus, qa, context(corpus, qa, max_turns))
        got = ExtractiveAnswerer().answer(result)
        prediction = got[0] if got else "not in memory"
        rows.append(
            {
                "qid": qa.qid,
                "category": qa.category,
                "prediction": prediction,
                "gold": qa.answer,
                "contains": contains(prediction, qa.answer),
                "f1": token_f1(prediction, qa.answer),
                "abstained": got is None,
            }
        )
    return {"model": "offline extractive", "threads": 0, **summarise(rows), "rows": rows}


def plot(runs: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run in runs:
        if run["p50_s"] is None:
            ax.axhline(
                run["contains"], ls="--", color="grey", label=f"{run['model']} ({run['contains']:.2f})"
            )
            continue
        label = f"{run['model']} x{run['threads']}"
        ax.errorbar(
            run["p50_s"],
            run["contains"],
            xerr=[[0], [run["p95_s"] - run["p50_s"]]],
            fmt="o",
            capsize=3,
            label=label,
        )
    ax.axhline(0.55, color="red", lw=0.8, label="target 0.55")
    ax.axvline(10, color="red", lw=0.8, ls=":", label="p50 target 10 s")
    ax.set_xlabel("seconds per question (dot p50, bar to p95)")
    ax.set_ylabel("containment accuracy")
    ax.set_title("LLM reader on LoCoMo dev (gold evidence + neighbours), 2 cores")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def save(
    args: argparse.Namespace, items: list[Any], load: tuple[float, ...], runs: list[dict[str, Any]]
) -> tuple[float, ...]:
    """Write the JSON report and the plot; returns the load average now."""
    load_after = os.getloadavg()
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "sample": {
            "questions": len(items),
            "turns": args.turns,
            "seed": 7,
            "source": "LoCoMo dev, categories 1-4",
        },
        "cores": os.cpu_count(),
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in load_after],
        "runs": runs,
    }
    (args.out / "llm_bench.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    plot(runs, args.out / "llm_bench.png")
    return load_after


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--turns", type=int, default=8, help="turns of context per question at most")
    parser.add_argument("--config", action="append", help="model:threads (repeatable)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    # a busy shared machine makes a 1.5B model take minutes per question: measure, do not time out
    settings = get_settings().model_copy(update={"llm_timeout_s": 900.0})
    configs = args.config or [f"{settings.llm_local_model}:{settings.llm_local_threads}"]
    items = sample(locomo(), args.questions)
    load = os.getloadavg()
    loads = " ".join(f"{x:.2f}" for x in load)
    print(f"{len(items)} LoCoMo dev questions, {os.cpu_count()} cores, load {loads}", flush=True)
    runs = [offline(items, args.turns)]
    for config in configs:
        model, _, threads = config.partition(":")
        print(f"== {model} x{threads or 1}")
        runs.append(run_config(settings, model, int(threads or 1), items, args.turns))
        r = runs[-1]
        save(args, items, load, runs)  # after every configuration: a cut-short run keeps its numbers
        print(
            f"   contains {r['contains']:.3f} f1 {r['f1']:.3f} p50 {r['p50_s']} s p95 {r['p95_s']} s",
            flush=True,
        )
    load_after = save(args, items, load, runs)
    print(f"{'config':<40} {'contains':>8} {'f1':>6} {'abst':>4} {'p50 s':>6} {'p95 s':>6} {'cpu p50':>7}")
    for r in runs:
        name = f"{r['model']} x{r['threads']}" if r["threads"] else r["model"]
        times = f"{r['p50_s'] or '-':>6} {r['p95_s'] or '-':>6} {r['cpu_p50_s'] or '-':>7}"
        print(f"{name:<40} {r['contains']:8.3f} {r['f1']:6.3f} {r['abstained']:4d} {times}")
    print(f"load after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; results in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
