"""Snapshot of what every retrieval tool returns per access policy and asker (a script, not a test).

Used to prove that moving the access rule into one Cypher fragment (issue 13, step 3) changed no
result: run it before and after a change to the queries and compare. It seeds the household of
``household.py`` into three spaces (open, participant, private) with fixed names, runs every tool
of the registry with a set of inputs and filters, the one-round search and the agent
(fixed and heuristic policies) for each asker (each person and the unknown asker), and writes
the hits (ids with the space name replaced, texts, scores rounded to 4 places, source turn ids)
as JSON. ``--compare OLD.json`` exits 1 and prints the first differences when any id, order, text or
source moved (score-only changes are counted per tool: BM25 scores follow the shared index).

    source /work/dev-env.sh
    python -m tests.retrieval.access_snapshot --out /tmp/before.json [--cypher-dir DIR]
    python -m tests.retrieval.access_snapshot --out /tmp/after.json --compare /tmp/before.json

``--cypher-dir`` loads the queries from another folder (e.g. the ``cypher/`` of an older commit
extracted with ``git archive``), so old and new query texts run on the same Python code and data.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import voxmem.cypher as cypher
from voxmem.config import get_settings
from voxmem.core import Voxmem
from voxmem.errors import NotFound
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.retrieval.tools import Filters

from .household import PEOPLE, TURNS, build_household

SPACE = "access-snapshot-{policy}"
SEARCHES = [
    "pizza on the way home",
    "garage door code",
    "hotel checkout time",
    "allergic to peanuts",
    "dentist appointment Friday",
    "anniversary dinner room",
]
FILTERS = [
    Filters(),
    Filters(speaker="Tom"),
    Filters(addressee="Ana"),
    Filters(session="kitchen"),
    Filters(current_only=True),
    Filters(about="Lena"),
    Filters(participant="Ana"),
    Filters(kind="background"),
    Filters(ts_from="2026-11-02T18:03:00+00:00"),
]
QUOTES = ["garage door code", "allergic to peanuts", "Friday works"]
PAIRS = [("Tom", "Ana"), ("Maya", "Tom"), ("Ana", "Lena"), ("Lena", "Tom")]
QUESTIONS = [
    "What is the garage door code?",
    "Who said the garage code is 4417?",
    "What did Tom say to Ana?",
    "What is my checkout time and when is my dentist appointment?",
    "What is Lena allergic to?",
]


def _hit(hit: Any, space: str) -> list[Any]:
    return [
        hit.tool,
        hit.id.replace(space, "<space>"),
        hit.text,
        round(hit.score, 4),
        [s.id.replace(space, "<space>") for s in hit.sources],
    ]


def snapshot(services: Voxmem, retrieval: RetrievalService) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for policy in ("open", "participant", "private"):
        space = SPACE.format(policy=policy)
        with contextlib.suppress(NotFound):  # left over by an interrupted run
            services.spaces.delete(space)
        house = build_household(services, space, policy)
        try:
            for asker in [*PEOPLE, None]:
                scope = resolve_scope(services.db, space, house.people[asker] if asker else None)
                rows: list[Any] = []
                for name, tool in retrieval.tools.items():
                    if tool.needs == "query":
                        calls = [(q, f) for q in SEARCHES for f in FILTERS]
                    elif tool.needs == "quote":
                        calls = [(q, Filters()) for q in QUOTES]
                    elif tool.needs == "message_id":
                        calls = [(house.mid(t[0]), Filters()) for t in TURNS]
                    elif tool.needs == "pair":
                        calls = [("", Filters(speaker=a, addressee=b)) for a, b in PAIRS]
                        calls += [("garage", Filters(speaker=a, addressee=b)) for a, b in PAIRS]
                    elif tool.needs == "participant":
                        calls = [(p, Filters()) for p in PEOPLE]
                    else:
                        raise SystemExit(f"tool {name}: unknown input kind {tool.needs!r}")
                    if name == "timeline":
                        calls += [("", Filters(about=p)) for p in PEOPLE]
                    for text, filters in calls:
                        hits = tool.search(scope, text, filters, k=10)
                        rows.append(
                            [
                                name,
                                text.replace(space, "<space>"),
                                filters.as_dict(),
                                [_hit(h, space) for h in hits],
                            ]
                        )
                for q in SEARCHES:
                    found = retrieval.search(scope, q, k=10)
                    rows.append(["search", q, [e["id"].replace(space, "<space>") for e in found]])
                for q in QUESTIONS:
                    for agent_policy in ("fixed", "heuristic"):
                        answer = retrieval.ask(scope, q, policy=agent_policy, use_llm=False)
                        evidence = [e["id"].replace(space, "<space>") for e in answer.evidence]
                        said = answer.answer.replace(space, "<space>")
                        rows.append(["ask", agent_policy, q, said, evidence])
                out[f"{policy}/{asker or 'unknown'}"] = rows
        finally:
            services.spaces.delete(space)
    return out


def _unscored(row: list[Any]) -> list[Any]:
    """A tool call's row without hit scores: BM25 scores move with the shared Lucene index's
        statistics (other spaces write to it), which says nothing about the access rule. Source turns
    are compared as a set, hits of equal score in id order, fused evidence as a set."""
    if row and row[0] in ("search", "ask"):
        # fused ranks: RRF ties fall in arbitrary order, so the answer and the set are compared
        return [*row[:-1], sorted(row[-1])]
    if not isinstance(row[-1], list):
        return row
    # equal scores come in index order, which differs between two seedings: ties sorted by id;
    # a fact's DERIVED_FROM turns come in storage order: compared as a set
    hits = sorted(row[-1], key=lambda h: (-h[3], h[1]))
    return [*row[:-1], [[h[0], h[1], h[2], sorted(h[4])] for h in hits]]


def _diff(old: dict[str, Any], new: dict[str, Any], limit: int = 10) -> tuple[list[str], dict[str, int]]:
    """Differences in ids, order, texts and sources (first ``limit``), and score-only changes per tool."""
    found: list[str] = []
    rescored: dict[str, int] = {}
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key, []), new.get(key, [])
        if len(a) != len(b):
            found.append(f"{key}: {len(a)} calls before, {len(b)} after")
        for x, y in zip(a, b, strict=False):
            if _unscored(x) != _unscored(y):
                if len(found) < limit:
                    found.append(f"{key}: {json.dumps(x)[:300]}\n    now {json.dumps(y)[:300]}")
            elif x != y:
                rescored[x[0]] = rescored.get(x[0], 0) + 1
    return found, rescored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the snapshot here")
    parser.add_argument("--old", type=Path, help="compare --old with --compare, running nothing")
    parser.add_argument("--compare", type=Path, help="an earlier snapshot; exit 1 when results differ")
    parser.add_argument("--cypher-dir", type=Path, help="load the .cypher files from this folder")
    args = parser.parse_args(argv)
    if args.old:
        data = json.loads(args.old.read_text(encoding="utf-8"))
        return _report(data, args.compare)
    if args.out is None:
        parser.error("--out is required unless --old is given")
    if args.cypher_dir:
        cypher.ROOT = args.cypher_dir.resolve()
        cypher.query.cache_clear()
        cypher.fragment.cache_clear()
    settings = get_settings()
    services = Voxmem.build(settings)
    services.start()
    try:
        retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
        data = snapshot(services, retrieval)
    finally:
        services.close()
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    calls = sum(len(v) for v in data.values())
    hits = sum(len(r[-1]) for v in data.values() for r in v if isinstance(r[-1], list))
    print(f"{len(data)} policy/asker pairs, {calls} calls, {hits} results -> {args.out}")
    return _report(data, args.compare)


def _report(data: dict[str, Any], compare: Path | None) -> int:
    if compare is None:
        return 0
    differences, rescored = _diff(json.loads(compare.read_text(encoding="utf-8")), data)
    if rescored:
        print(f"same hits; only scores, tie order or source order differ (calls per tool): {rescored}")
    if differences:
        print("DIFFERENT:\n" + "\n".join(differences))
        return 1
    print(f"identical to {compare} (ids, order, texts, sources, answers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
