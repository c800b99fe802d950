"""The benchmark's own Cypher: bulk loaders that write whole datasets with precomputed
embeddings (``load_messages``, then ``link_next``). They live here, not in the product's
``cypher/``, because no product code path may write messages around the turn pipeline; each
file is still pasteable into Neo4j Browser (``:param`` header first) once composed: product
fragments such as ``@sparse.head(...)`` are expanded as the product's queries are
(``voxmem.cypher.compose``), so a loader writes exactly what the turn pipeline writes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from voxmem.cypher import compose

HERE = Path(__file__).parent


@cache
def query(name: str) -> str:
    """The composed text of ``bench/cypher/<name>.cypher`` (product fragments expanded)."""
    path = HERE / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no benchmark query {name!r} in {HERE}")
    return compose(path.read_text(encoding="utf-8"))
