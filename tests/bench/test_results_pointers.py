"""Every pointer into results/ from README, the area documents, MODEL.md and the notebooks
resolves, and results/bench/ holds exactly the canonical runs docs/benchmark.md tabulates (one per
benchmark; retries live in git history, not in folders)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
POINTER = re.compile(r"results/[A-Za-z0-9_.\-/<>*…]+")
PLACEHOLDER = set("<>*…")


def _documents() -> list[Path]:
    docs = [REPO / "README.md", REPO / "graph_schema" / "MODEL.md"]
    docs += sorted((REPO / "docs").glob("*.md")) + sorted((REPO / "notebooks").glob("*.ipynb"))
    return [d for d in docs if d.exists()]


def pointers(text: str) -> list[str]:
    """The concrete results/ paths a text names (patterns such as results/bench/<run>/ skipped)."""
    found = (m.group(0).rstrip(".,;:/") for m in POINTER.finditer(text))
    return [p for p in found if not PLACEHOLDER & set(p)]


def test_pointers_are_found_in_text() -> None:
    text = "see `results/bench/x-y/report.md`, results/identity/a.json; not results/bench/<run>/."
    assert pointers(text) == ["results/bench/x-y/report.md", "results/identity/a.json"]


def test_every_results_pointer_resolves() -> None:
    seen, missing = 0, []
    for doc in _documents():
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for path in pointers(line):
                seen += 1
                if not (REPO / path).exists():
                    missing.append(f"{doc.relative_to(REPO)}:{number}: {path}")
    assert seen > 20  # the documents really point into results/
    assert not missing, "pointers to results/ that do not resolve:\n" + "\n".join(missing)


def test_results_bench_holds_exactly_the_tabulated_canonical_runs() -> None:
    text = (REPO / "docs" / "benchmark.md").read_text(encoding="utf-8")
    section = text.split("## Current numbers", 1)[1].split("\n## ", 1)[0]  # up to the next section
    table = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| run ")]
    runs = [line.split("|")[1].strip() for line in table]
    assert len(runs) == len(set(runs))
    folders = sorted(p.name for p in (REPO / "results" / "bench").iterdir() if p.is_dir())
    assert sorted(runs) == folders, "docs/benchmark.md's table and results/bench/ disagree"
    commands = re.findall(r"--run-name (\S+)", section)
    assert sorted(commands) == folders, "each canonical run needs its command with --run-name"
