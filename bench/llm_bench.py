"""Is the local LLM reader worth its cost? It and the offline reader on the same retrieved evidence.

Why on the answers benchmark's cached evidence: ``bench.answers_bench`` runs the retrieval agent
once per question and caches the result; here each question is read twice from that cache, by the
offline reader (``compose`` without an LLM) and by the product's LLM path (``compose`` with the
``LLMReader``: the offline answer is its draft, the model keeps, corrects or abstains, the offline
answer stands when the model fails or times out). So the two are compared side by side on the
same questions and the same evidence, scored by the same rules (``bench.scoring``), per type.

Sets (``--set dataset:split[:sample[:scenes]]``, as ``answers_bench`` names them): LoCoMo dev (the reader
is tuned there), LoCoMo held-out conversations, the household paraphrase sets (``heldout`` is
never tuned on), ``paraphrases:tune2`` (in_car, meeting and hotel: a second tuning set), and
``paraphrases:fresh`` (four generated cases, written after ``heldout`` had been
seen; never tune on it, never read it while changing the reader). ``--limit`` keeps N questions
per set, evenly spaced, so a run fits in minutes.

Per configuration (model × threads) the local server is (re)started by ``voxmem.llm.server.up``;
every question is timed end to end (wall seconds, the server's CPU-seconds, prompt and generated
tokens, the 1-minute load average). ``--judge`` also grades both readers' answers with the local
model against the gold (0 / 0.25 / 0.5 / 0.75 / 1, ``bench.judge``), reported beside containment.

    nice -n 10 python -m bench.llm_bench --limit 30 --set locomo:dev:80 \
        --config qwen2.5-coder-1.5b-instruct-q4_k_m:1 --config qwen2.5-coder-0.5b-instruct-q4:1

Results are merged into ``results/llm/llm_bench.json`` (one entry per model × threads × set,
rerunning one replaces it) and plotted in ``results/llm/llm_bench.png``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench import answers_bench, scoring
from bench.answers_bench import _every, datasets, evidence_by_scope
from bench.judge import LLMJudge
from bench.retrieval_data import DATA
from voxmem.config import Settings, get_settings
from voxmem.llm import client, server
from voxmem.retrieval.answer import compose
from voxmem.retrieval.llm_reader import LLMReader
from voxmem.retrieval.question import read_question

OUT = Path("results/llm")
VERSION = 2


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process (the server): steadier than wall time on a busy machine."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def parse_spec(spec: str) -> argparse.Namespace:
    """``dataset:split[:sample[:scenes]]`` as ``answers_bench``'s arguments. The scene count is
    part of the evidence cache's key (FriendsQA / Molweni load that many scenes or dialogues), so
    ``friendsqa:heldout:200:40`` reads the evidence of ``answers_bench --dataset friendsqa
    --scenes 40 --sample 200 --split heldout``; without it the set would load every scene and
    retrieve anew."""
    dataset, split, *rest = spec.split(":")
    return argparse.Namespace(
        dataset=dataset,
        split=split,
        sample=int(rest[0]) if rest and rest[0] else None,
        scenes=int(rest[1]) if len(rest) > 1 else None,
        locomo=str(DATA / "locomo" / "locomo_dev.json"),
    )


def questions(spec: str, limit: int | None, services: Any) -> tuple[str, list[dict[str, Any]]]:
    """The questions of one set with their cached retrieval results (retrieved once if missing)."""
    args = parse_spec(spec)
    dataset, split = args.dataset, args.split
    in_split = getattr(answers_bench, "in_split", None)
    items: list[dict[str, Any]] = []
    for key, rows, qas, roster, conversation, *_ in datasets(args):
        for group, cached in evidence_by_scope(services, services.retrieval, key, rows, qas, args.scenes):
            kept = [q for q in group if in_split is None or in_split(dataset, split, q)]
            for qa in kept:
                items.append({"qa": qa, "cached": cached, "roster": roster, "conversation": conversation})
    return spec, _every(items, limit)


def result_for(item: dict[str, Any]) -> Any:
    """The cached agent result with the question re-read (the reading rules may have changed)."""
    cached, qa = item["cached"], item["qa"]
    result = cached["results"][qa.qa_id]
    asker = {"id": result.scope.asker, "name": result.scope.asker_name} if result.scope.asker else None
    result.reading = read_question(qa.question, cached["people"], asker)
    return result


def score(item: dict[str, Any], answer: str) -> scoring.AnswerScore:
    return scoring.score_answer(item["qa"], answer, item["roster"], item["conversation"])


def read_set(
    items: list[dict[str, Any]],
    embed: Any,
    reader: LLMReader | None,
    pid: int | None,
    judge: LLMJudge | None,
) -> list[dict[str, Any]]:
    rows = []
    for item in items:
        qa = item["qa"]
        offline = compose(result_for(item), embed=embed)
        row: dict[str, Any] = {
            "qa_id": qa.qa_id,
            "type": qa.type,
            "question": qa.question,
            "gold": qa.answer,
            "offline": offline.answer,
            "offline_answerer": offline.answerer,
            "offline_correct": score(item, offline.answer).correct,
            "offline_correct_person": score(item, offline.answer).correct_person,
            "offline_correct_list": score(item, offline.answer).correct_list,
        }
        if reader is not None:
            calls, tokens = reader.calls, len(reader.tokens)
            cpu0, t0 = cpu_seconds(pid), time.perf_counter()
            answer = compose(result_for(item), llm=reader, embed=embed)
            row |= {
                "answer": answer.answer,
                "answerer": answer.answerer,
                "used": answer.used,  # the message ids the answer rests on: which line it came from
                "llm_called": reader.calls > calls,
                "correct": score(item, answer.answer).correct,
                "correct_person": score(item, answer.answer).correct_person,
                "correct_list": score(item, answer.answer).correct_list,
                "f1": score(item, answer.answer).f1,
                "seconds": round(time.perf_counter() - t0, 2),
                "cpu_s": round(cpu_seconds(pid) - cpu0, 2),
                "prompt_tokens": sum(p for p, _ in reader.tokens[tokens:]),
                "generated_tokens": sum(g for _, g in reader.tokens[tokens:]),
                "calls": reader.calls - calls,
                "load1": round(os.getloadavg()[0], 2),
                "notes": [n for n in answer.notes if "LLM" in n or "extractive" in n],
            }
        rows.append(row)
        if reader is not None:
            print(
                f"  {qa.type[:12]:<12} {row['seconds']:5.1f}s cpu {row['cpu_s']:5.1f} "
                f"tok {row['prompt_tokens']:4d}+{row['generated_tokens']:<3d} "
                f"off={row['offline_correct']:.0f} llm={row['correct']:.0f} {row['answerer'][:5]:<5} "
                f"{row['answer'][:40]!r} | {qa.answer[:30]!r}",
                flush=True,
            )
    if judge is not None:  # after reading: the judge's prompt would evict the reader's cached prefix
        grade(rows, judge)
    return rows


def grade(rows: list[dict[str, Any]], judge: LLMJudge) -> None:
    """LLM-judge scores for both readers' answers (one call when they are the same answer)."""
    for row in rows:
        row["offline_judge"] = judge.grade(row["question"], row["gold"], row["offline"])
        if "answer" in row:
            same = row["answer"] == row["offline"]
            row["judge"] = (
                row["offline_judge"] if same else judge.grade(row["question"], row["gold"], row["answer"])
            )


def judge_existing(settings: Settings, path: Path, config: str) -> None:
    """``--judge-existing``: grade the answers already in the canonical file (no re-reading), with
    the model of ``config``, and write the scores into each entry."""
    model, _, threads = config.partition(":")
    report = json.loads(path.read_text())
    status = server.up(settings, model=model, threads=int(threads or 1))
    endpoint = client.Endpoint("local", status.base_url, model, "configured")
    judge = LLMJudge(settings, client.chat_model(settings, endpoint=endpoint), f"local {model}", endpoint)
    for key, entry in report["entries"].items():
        if entry["model"] != model:  # a model's own entries only: one run per judge model
            continue
        print(f"== judging {key} with {model}", flush=True)
        grade(entry["rows"], judge)
        entry["judge"] = judge.name
        entry["summary"] = summarise(entry["rows"])
        path.write_text(json.dumps(report, indent=1), encoding="utf-8")
        o = entry["summary"]["overall"]
        print(f"   judge offline {o['offline_judge']} llm {o['llm_judge']}", flush=True)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(values: list[Any]) -> float | None:
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 3) if values else None

    def agg(part: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": len(part),
            "offline": mean([r["offline_correct"] for r in part]),
            "llm": mean([r.get("correct") for r in part]),
            # containment with pronouns folded (scoring.person_fold), beside the strict score
            "offline_person": mean([r.get("offline_correct_person") for r in part]),
            "llm_person": mean([r.get("correct_person") for r in part]),
            # a list gold's items in any order (scoring.list_contains), beside the strict score
            "offline_list": mean([r.get("offline_correct_list") for r in part]),
            "llm_list": mean([r.get("correct_list") for r in part]),
            "offline_judge": mean([r.get("offline_judge") for r in part]),
            "llm_judge": mean([r.get("judge") for r in part]),
        }
        return out

    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r)
    timed = [r for r in rows if r.get("llm_called")]
    secs = [r["seconds"] for r in timed]
    cpus = [r["cpu_s"] for r in timed]

    def pct(values: list[float], p: int) -> float | None:
        return round(scoring.percentile(values, p) or 0, 2) if values else None

    answerers: dict[str, int] = defaultdict(int)
    for r in rows:
        answerers[r.get("answerer", "-")] += 1
    return {
        "overall": agg(rows),
        "by_type": {t: agg(p) for t, p in sorted(by_type.items())},
        "llm_calls": len(timed),
        "answerers": dict(answerers),
        "p50_s": pct(secs, 50),
        "p95_s": pct(secs, 95),
        "cpu_p50_s": pct(cpus, 50),
        "cpu_p95_s": pct(cpus, 95),
        "prompt_tokens_p50": pct([r["prompt_tokens"] for r in timed], 50),
        "generated_tokens_p50": pct([r["generated_tokens"] for r in timed], 50),
        "load1_median": pct([r["load1"] for r in timed], 50),
    }


def plot(entries: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = sorted({e["set"] for e in entries.values()})
    models = sorted({f"{e['model']} x{e['threads']}" for e in entries.values()})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    width = 0.8 / (len(models) + 1)
    for i, s in enumerate(sets):
        runs = [e for e in entries.values() if e["set"] == s]
        offline = runs[0]["summary"]["overall"]["offline"] if runs else 0
        left.bar(i, offline or 0, width, color="grey", label="offline reader" if i == 0 else None)
        for j, m in enumerate(models):
            run = next((e for e in runs if f"{e['model']} x{e['threads']}" == m), None)
            if run:
                left.bar(i + (j + 1) * width, run["summary"]["overall"]["llm"] or 0, width, color=f"C{j}",
                         label=m if i == 0 else None)  # fmt: skip
                right.errorbar(
                    run["summary"]["p50_s"] or 0,
                    run["summary"]["overall"]["llm"] or 0,
                    xerr=[[0], [(run["summary"]["p95_s"] or 0) - (run["summary"]["p50_s"] or 0)]],
                    fmt="os^v"[i % 4],
                    color=f"C{j}",
                    capsize=3,
                    label=f"{m}, {s}",
                )
    left.set_xticks([i + 0.4 for i in range(len(sets))])
    left.set_xticklabels(sets, rotation=15, fontsize=8)
    left.axhline(0.55, color="red", lw=0.8, ls="--", label="LoCoMo target 0.55")
    left.axhline(0.75, color="red", lw=0.8, ls=":", label="generated target 0.75")
    left.set_ylabel("containment (attribution: exact)")
    left.set_ylim(0, 1)
    left.legend(fontsize=7)
    left.set_title("offline vs LLM reader, same questions and evidence", fontsize=9)
    right.axvline(10, color="red", lw=0.8, ls=":", label="p50 target 10 s")
    right.set_xlabel("seconds per LLM-read question (dot p50, bar to p95)")
    right.set_ylabel("containment")
    right.legend(fontsize=6)
    right.set_title("quality vs latency (2 cores, load in the JSON)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def merge(path: Path, new: dict[str, Any]) -> dict[str, Any]:
    """The canonical file with ``new`` entries replacing those of the same model/threads/set."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        old = {}
    entries = old.get("entries", {}) if old.get("version") == VERSION else {}
    return {"version": VERSION, "entries": {**entries, **new}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", help="dataset:split[:sample[:scenes]] (repeatable)")
    parser.add_argument("--limit", type=int, default=30, help="questions per set at most (evenly spaced)")
    parser.add_argument("--config", action="append", help="model:threads (repeatable)")
    parser.add_argument("--judge", action="store_true", help="grade answers with the local model too")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--judge-existing", action="store_true", help="only grade the answers in the results file (--config)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    from voxmem.core import Voxmem

    # a busy shared machine can take minutes per question: measure, do not time out
    settings: Settings = get_settings().model_copy(update={"llm_timeout_s": 900.0})
    configs = args.config or [f"{settings.llm_local_model}:{settings.llm_local_threads}"]
    if args.judge_existing:
        judge_existing(settings, args.out / "llm_bench.json", configs[0])
        return 0
    specs = args.set or ["locomo:dev:80"]
    services = Voxmem.build(settings)
    services.start(warm_models=False)
    command = "python -m bench.llm_bench " + " ".join(argv if argv is not None else sys.argv[1:])
    new: dict[str, Any] = {}
    try:
        sets = [questions(spec, args.limit, services) for spec in specs]
        embed = services.retrieval.embed
        for config in configs:
            model, _, threads = config.partition(":")
            t0 = time.perf_counter()
            status = server.up(settings, model=model, threads=int(threads or 1))
            startup = time.perf_counter() - t0
            endpoint = client.Endpoint("local", status.base_url, model, "configured")
            chat = client.chat_model(settings, endpoint=endpoint)
            reader = LLMReader(chat, endpoint)
            judge = (
                LLMJudge(settings, chat, f"local {model} (the reader's model)", endpoint)
                if args.judge
                else None
            )
            for spec, items in sets:
                load = os.getloadavg()
                loads = " ".join(f"{x:.2f}" for x in load)
                print(
                    f"== {model} x{threads or 1} {spec}: {len(items)} q, {os.cpu_count()} cores, load {loads}"
                )
                rows = read_set(items, embed, reader, status.pid, judge)
                summary = summarise(rows)
                new[f"{model} x{threads or 1} | {spec}"] = {
                    "model": model,
                    "threads": int(threads or 1),
                    "threads_batch": status.threads_batch,  # prompt evaluation (server.prompt_threads)
                    "set": spec,
                    "limit": args.limit,
                    "command": command,
                    "judge": judge.name if judge else None,
                    "cores": os.cpu_count(),
                    "load_before": [round(x, 2) for x in load],
                    "load_after": [round(x, 2) for x in os.getloadavg()],
                    "startup_s": round(startup, 1),
                    "summary": summary,
                    "rows": rows,
                }
                report = merge(args.out / "llm_bench.json", new)
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / "llm_bench.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
                plot(report["entries"], args.out / "llm_bench.png")
                o = summary["overall"]
                print(
                    f"   offline {o['offline']} llm {o['llm']} "
                    f"(pronouns folded {o['offline_person']} / {o['llm_person']}) "
                    f"(list items any order {o['offline_list']} / {o['llm_list']}) "
                    f"(judge {o['offline_judge']} / {o['llm_judge']}); "
                    f"p50 {summary['p50_s']} s p95 {summary['p95_s']} s cpu p50 {summary['cpu_p50_s']} s; "
                    f"tokens p50 {summary['prompt_tokens_p50']}+{summary['generated_tokens_p50']}; "
                    f"by type {json.dumps(summary['by_type'])}",
                    flush=True,
                )
    finally:
        services.close()
    load = os.getloadavg()
    print(f"load after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; results in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
