"""Benchmark reports: results.json, report.md and PNG plots in one run folder.

Why a folder per run: a number without the command, the commit, the core count and the
answer mode (real /query or the search fallback) that produced it cannot be compared with
anything, so all of that is written next to the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _load(run: dict[str, Any]) -> str:
    load = run.get("load_average_1m") or {}
    return f"{_f(load.get('start'), 1)} / {_f(load.get('end'), 1)}" if load else "n/a"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


def plot_scores(results: dict[str, Any], path: Path) -> Path:
    by_type = results["scores"]["by_type"]
    types = list(by_type)
    metrics = [("correct", "exact / containment"), ("f1", "token F1"), ("recall@30", "evidence recall@30")]
    if any(by_type[t].get("judge") is not None for t in types):
        metrics.append(("judge", "LLM judge"))
    fig, ax = plt.subplots(figsize=(max(8, len(types) * 1.3), 4.5))
    width = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        values = [by_type[t].get(key) or 0.0 for t in types]
        ax.bar([x + i * width for x in range(len(types))], values, width, label=label)
    ax.set_xticks([x + width * (len(metrics) - 1) / 2 for x in range(len(types))])
    ax.set_xticklabels([f"{t}\n(n={by_type[t]['n']})" for t in types], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    run = results["run"]
    ax.set_title(f"{run['case_id']} - {run['mode']} / {run['condition']}: scores per question type")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_identity(results: dict[str, Any], path: Path) -> Path:
    ident = results["identity"] or {}
    auth = results["authorization"]
    names = ["routing acc.", "B3 precision", "B3 recall", "B3 F1", "asker id acc."]
    values = [
        ident.get("routing_accuracy"),
        ident.get("b3_precision"),
        ident.get("b3_recall"),
        ident.get("b3_f1"),
        auth.get("asker_identification_accuracy"),
    ]
    fig, ax = plt.subplots(figsize=(7, 4))
    bars = ax.bar(names, [v or 0.0 for v in values], color="tab:purple")
    for bar, value in zip(bars, values, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, (value or 0) + 0.02, _f(value), ha="center", fontsize=8)
    ax.set_ylim(0, 1.1)
    note = "" if ident else " (text mode: oracle identity, not measured)"
    ax.set_title(f"identity metrics{note}; wrong authorizations: {auth['wrong_authorizations']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(results: dict[str, Any], path: Path) -> Path:
    query = [q["latency_s"] * 1000 for q in results["questions"] if q.get("error") is None]
    turns = [t["latency_s"] * 1000 for t in results.get("turn_log", [])]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, values, title in ((axes[0], query, "query latency"), (axes[1], turns, "turn ingestion latency")):
        if values:
            ax.hist(values, bins=30, color="tab:blue")
        ax.set_xlabel("ms")
        ax.set_ylabel("count")
        ax.set_title(f"{title} (n={len(values)})")
    t = results["timings"]
    for key, style in (("query_latency_p50_s", "--"), ("query_latency_p95_s", ":")):
        if t.get(key) is not None:
            axes[0].axvline(t[key] * 1000, color="k", linestyle=style, label=key.split("_")[2])
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def markdown(results: dict[str, Any], plots: list[Path], command: str | None = None) -> str:
    run, t, s = results["run"], results["timings"], results["scores"]
    ident, auth = results["identity"], results["authorization"]
    lines = [
        f"# Benchmark run: {run['case_id']} ({run['mode']} mode, {run['condition']})",
        "",
        f"- finished {run['finished_at']}, git {run['git']}, {run['cores']} cores, target: {run['target']}",
        f"- machine load (1-min average) at start / end: {_load(run)}",
        f"- case: {run['case_source']} / {run['scenario']}: {run['speakers']} speakers, "
        f"{run['sessions']} sessions, {run['turns']} turns, {run['questions']} questions; "
        f"access policy `{run['policy']}`",
        f"- routes used: audio ingestion `{run['routes']['audio']}`, /query {run['routes']['query']}, "
        f"answer modes {run['answer_modes']}",
        f"- LLM judge: {run['judge'] or 'not run (no LLM configured)'}",
    ]
    if command:
        lines.append(f"- command: `{command}`")
    if "search-fallback" in run["answer_modes"]:
        lines += [
            "",
            "> Answers came from the search fallback (no /query route): the 'answer' is the text of the"
            " top three retrieved turns, so answer scores measure retrieval, not answering.",
        ]
    if run["mode"] == "text" and run.get("names") == "visible":
        lines += [
            "",
            "> Text mode with VISIBLE names (diagnostic): speaker names were given; identity not measured.",
        ]
    elif run["mode"] == "text":
        lines += [
            "",
            "> Text mode: turns were posted under pseudonyms (oracle identity); identity was not measured.",
        ]
    o = s["overall"]
    lines += [
        "",
        "## Scores",
        "",
        "| type | n | exact/contain | first names accepted | exact (attr.) | containment | token F1 | judge "
        "| R@5 | R@10 | R@30 | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in [*s["by_type"].items(), ("**overall**", o)]:
        lines.append(
            f"| {name} | {row['n']} | {_f(row['correct'])} | {_f(row.get('correct_first_name'))} | "
            f"{_f(row['exact'])} | {_f(row['contains'])} | "
            f"{_f(row['f1'])} | {_f(row['judge'])} | {_f(row['recall@5'])} | {_f(row['recall@10'])} | "
            f"{_f(row['recall@30'])} | {row['errors']} |"
        )
    lines += ["", "## Identity and access", ""]
    if ident:
        lines += [
            f"- speaker routing accuracy {_f(ident['routing_accuracy'])}; B-cubed P/R/F1 "
            f"{_f(ident['b3_precision'])} / {_f(ident['b3_recall'])} / {_f(ident['b3_f1'])}; "
            f"{ident['entities']} entities for {ident['gold_speakers']} speakers; "
            f"turns without an entity: {ident['turns_without_entity']} (final identities, after "
            "reconciliation)",
        ]
        if ident.get("online_b3_f1") is not None:
            lines.append(
                f"- online (each turn's decision when it arrived): routing accuracy "
                f"{_f(ident['online_routing_accuracy'])}; B-cubed F1 {_f(ident['online_b3_f1'])}; "
                f"{ident['online_entities']} entities"
            )
        if ident.get("asr_wer") is not None:
            lines.append(f"- ASR WER (normalised) {_f(ident['asr_wer'])}")
    else:
        lines.append("- speaker routing: not measured (text mode)")
    lines += [
        f"- wrong authorizations: {auth['wrong_authorizations']} evidence items outside the asker's scope,"
        f" in {auth['questions_with_wrong_authorization']} of {auth['questions_with_asker']} questions"
        " with an asker",
        f"- asker identification accuracy: {_f(auth['asker_identification_accuracy'])} "
        f"over {auth['askers_checked']} questions asked by voice (an unknown voice counts as a miss)",
        "",
        "## Speed",
        "",
        f"- ingestion: {t['ingest_turns']} turns, {t['ingest_wall_s']:.1f} s wall, server time "
        f"{t['ingest_server_s']:.1f} s, synthesis {t['ingest_synthesis_s']:.1f} s; turn latency p50 "
        f"{_ms(t['ingest_turn_latency_p50_s'])}, p95 {_ms(t['ingest_turn_latency_p95_s'])}; "
        f"CPU time of the runner process (app in-process, Neo4j excluded) "
        f"{_f(t.get('ingest_process_cpu_s'), 1)} s",
    ]
    if t.get("ingest_audio_s"):
        lines.append(f"- audio {t['ingest_audio_s']:.1f} s; real-time factor {_f(t.get('ingest_rtf'))}")
    lines += [
        f"- query latency p50 {_ms(t['query_latency_p50_s'])}, p95 {_ms(t['query_latency_p95_s'])}, "
        f"mean {_ms(t['query_latency_mean_s'])}; asking wall {t['asking_wall_s']:.1f} s",
        f"- total wall time {t['total_wall_s'] / 60:.2f} min",
        "",
        "## Plots",
        "",
        *[f"![{p.stem}]({p.name})" for p in plots],
        "",
        "## Failed questions (first 15)",
        "",
        "| type | question | gold | answer |",
        "|---|---|---|---|",
    ]
    failed = [q for q in results["questions"] if not q["correct"]][:15]
    for q in failed:
        answer = (q["answer"] or q.get("error") or "").replace("|", "/").replace("\n", " ")[:160]
        lines.append(f"| {q['type']} | {q['question'][:100]} | {q['gold']} | {answer} |")
    return "\n".join(lines) + "\n"


def write_report(results: dict[str, Any], folder: Path, command: str | None = None) -> Path:
    """Write results.json, the three plots and report.md into ``folder``; returns it."""
    import shlex
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    command = command or "python -m bench.runner " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    results["run"]["command"] = command
    (folder / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    plots = [
        plot_scores(results, folder / "scores_by_type.png"),
        plot_identity(results, folder / "identity.png"),
        plot_latency(results, folder / "latency.png"),
    ]
    (folder / "report.md").write_text(markdown(results, plots, command), encoding="utf-8")
    return folder


def summary_table(paths: list[Path]) -> str:
    """One markdown row per run: the headline numbers, for the README."""
    header = (
        "| run | mode / condition | turns | score | F1 | judge | R@30 | routing acc. | B3 F1 | asker id | "
        "wrong auth. | RTF | query p50 / p95 | total min | load |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = [header]
    for path in paths:
        r = json.loads(path.read_text(encoding="utf-8"))
        run, t, o = r["run"], r["timings"], r["scores"]["overall"]
        ident, auth = r["identity"] or {}, r["authorization"]
        names = " (names visible)" if run.get("names") == "visible" else ""
        rows.append(
            f"| {path.parent.name} | {run['mode']}{names} / {run['condition']} | {run['turns']} | "
            f"{_f(o['correct'])} | {_f(o['f1'])} | {_f(o['judge'])} | {_f(o['recall@30'])} | "
            f"{_f(ident.get('routing_accuracy'))} | {_f(ident.get('b3_f1'))} | "
            f"{_f(auth.get('asker_identification_accuracy'))} | {auth['wrong_authorizations']} | "
            f"{_f(t.get('ingest_rtf'))} | {_ms(t['query_latency_p50_s'])} / "
            f"{_ms(t['query_latency_p95_s'])} | {t['total_wall_s'] / 60:.1f} | {_load(run)} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.report results/bench/*/results.json`` → a markdown summary table."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("results", nargs="+", type=Path)
    args = parser.parse_args(argv)
    print(summary_table(args.results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
