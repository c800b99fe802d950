"""Cypher queries as ``.cypher`` files, pasteable into Neo4j Browser.

Each file holds one query, with a header comment saying what it does and which
parameters it takes. Python code loads them by name with :func:`query`.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def query(name: str) -> str:
    """Text of ``cypher/<name>.cypher`` (comment lines kept: Neo4j ignores ``//`` lines)."""
    text = resources.files(__name__).joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    return text.strip().rstrip(";")
