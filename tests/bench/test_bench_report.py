"""The report writer: JSON, markdown and three PNG plots from a results dict."""

from __future__ import annotations

import json
from pathlib import Path

from bench.report import summary_table, write_report


def _results() -> dict:
    row = {"n": 2, "correct": 0.5, "exact": None, "contains": 0.5, "f1": 0.6, "judge": None, "errors": 0}
    row |= {"recall@5": 0.5, "recall@10": 1.0, "recall@30": 1.0}
    questions = [
        {"type": "single_hop", "question": "What does Tom drink?", "gold": "green tea", "answer": "coffee",
         "correct": 0.0, "latency_s": 0.12, "error": None},
        {"type": "single_hop", "question": "What does Maya drink?", "gold": "tea", "answer": "tea",
         "correct": 1.0, "latency_s": 0.2, "error": None},
    ]  # fmt: skip
    return {
        "run": {
            "case_id": "c",
            "case_source": "generated",
            "scenario": "household",
            "mode": "text",
            "condition": "clean",
            "policy": "participant",
            "space": "s",
            "target": "t",
            "routes": {"audio": None, "query": False, "search": True},
            "answer_modes": {"search-fallback": 2},
            "judge": None,
            "voices": {},
            "speakers": 2,
            "sessions": 1,
            "turns": 3,
            "questions": 2,
            "cores": 2,
            "git": "abc",
            "finished_at": "now",
        },
        "timings": {
            "ingest_turns": 3,
            "ingest_wall_s": 1.0,
            "ingest_server_s": 0.9,
            "ingest_synthesis_s": 0.0,
            "ingest_turn_latency_p50_s": 0.3,
            "ingest_turn_latency_p95_s": 0.4,
            "asking_wall_s": 0.4,
            "query_latency_p50_s": 0.16,
            "query_latency_p95_s": 0.2,
            "query_latency_mean_s": 0.16,
            "total_wall_s": 2.0,
        },
        "identity": None,
        "authorization": {
            "questions_with_asker": 0,
            "wrong_authorizations": 0,
            "questions_with_wrong_authorization": 0,
            "asker_identification_accuracy": None,
            "askers_checked": 0,
        },
        "scores": {"overall": row, "by_type": {"single_hop": row}},
        "questions": questions,
        "turn_log": [{"latency_s": 0.3}, {"latency_s": 0.3}, {"latency_s": 0.4}],
    }


def test_report_folder_has_json_markdown_and_plots(tmp_path: Path) -> None:
    folder = write_report(_results(), tmp_path / "run1", command="python -m bench.runner --case x")
    saved = json.loads((folder / "results.json").read_text())
    assert saved["run"]["command"].endswith("--case x")
    report = (folder / "report.md").read_text()
    assert "| single_hop | 2 | 0.500 |" in report
    assert "search fallback" in report and "What does Tom drink?" in report
    for name in ("scores_by_type.png", "identity.png", "latency.png"):
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_summary_table_has_one_row_per_run(tmp_path: Path) -> None:
    folder = write_report(_results(), tmp_path / "run1", command="x")
    table = summary_table([folder / "results.json"]).splitlines()
    assert len(table) == 3 and table[2].startswith("| run1 | text / clean | 3 | 0.500 |")
