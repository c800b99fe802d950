"""PROFILE retrieval queries as composed now against older query texts (a script, not a test).

Composing the access rule from fragments must not change plans. For a space and each access
policy, this runs ``PROFILE`` on the vector and full-text message queries (and the fact and
attribute ones when the space has such memory) once with the queries of ``--old-dir`` (e.g. the
``cypher/`` of the commit before the fragments, extracted with ``git archive``) and once as
composed now, and prints total db hits, rows and the median wall time of ``--runs`` plain runs.
Read-only: it only runs retrieval queries.

    source /work/bench-env.sh
    python -m tests.retrieval.access_profile --space policy-locomo-conv-43 --old-dir /tmp/base/cypher
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import voxmem.cypher as cypher
from voxmem.config import get_settings
from voxmem.db import Database
from voxmem.embeddings import TextEmbedder

QUERIES = {
    "retrieve_messages_vector": "embedding",
    "retrieve_messages_fulltext": "lucene",
    "retrieve_facts_vector": "embedding",
    "retrieve_attributes_fulltext": "lucene",
}
FILTERS = {
    "speaker": None,
    "addressee": None,
    "session": None,
    "ts_from": None,
    "ts_to": None,
    "about": None,
    "current_only": False,
    "participant": None,
    "kind": None,
    "lean": False,  # the message tools' full rows (cypher/rows/message.cypher)
}


def _db_hits(plan: Any) -> int:
    return int(plan.get("dbHits", 0)) + sum(_db_hits(c) for c in plan.get("children", []))


def _texts(old_dir: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for name in QUERIES:
        old = cypher.compose((old_dir / f"{name}.cypher").read_text(encoding="utf-8")).strip().rstrip(";")
        out[name] = (old, cypher.query(name))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--space", required=True)
    parser.add_argument("--old-dir", required=True, type=Path)
    parser.add_argument("--text", default="when is the charity race")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    settings = get_settings()
    db = Database(settings)
    try:
        embedding = TextEmbedder(settings).embed_queries([args.text])[0].tolist()
        asker = db.query(
            "MATCH (p:Participant {space: $space})-[:SPEAKS]->() RETURN p.id AS id LIMIT 1", space=args.space
        )[0]["id"]
        print(
            f"space {args.space}, asker {asker}, text {args.text!r}; cores {os.cpu_count()}, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        head = f"{'query':32} {'policy':12} {'db hits old':>11} {'new':>7} {'rows':>9}"
        print(head + f" {'ms old':>7} {'new':>7}")
        for name, (old, new) in _texts(args.old_dir).items():
            for policy in ("open", "participant", "private"):
                params = {
                    **FILTERS,
                    "space": args.space,
                    "policy": policy,  # the parameter's name before the access naming
                    "access_policy": policy,
                    "asker": asker,
                    "k": 10,
                    "fetch": 200,
                    QUERIES[name]: embedding if QUERIES[name] == "embedding" else args.text,
                }
                hits, rows, ms = [], [], []
                for text in (old, new):
                    with db.driver.session(database=db.database) as session:
                        result = session.run("PROFILE " + text, **params)
                        rows.append(len(list(result)))
                        hits.append(_db_hits(result.consume().profile))
                        runs = []
                        for _ in range(args.runs):
                            started = time.perf_counter()
                            list(session.run(text, **params))
                            runs.append((time.perf_counter() - started) * 1000)
                        ms.append(statistics.median(runs))
                print(
                    f"{name:32} {policy:12} {hits[0]:>11} {hits[1]:>7} {rows[0]:>4}/{rows[1]:<4} "
                    f"{ms[0]:>7.1f} {ms[1]:>7.1f}"
                )
    finally:
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
