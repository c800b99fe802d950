"""Search a space for every trace of a deleted person: their ids and their name.

Why a scan of everything and not of the properties the deletion code knows: a copy survives
where nobody looked (a passage "Ann to Dave: ..." on Ann's message, a name kept as an ASR
hint on someone else's turn). So every property of every node and relationship of the space is
read (which covers whatever a full-text or vector index holds), every full-text index is also
queried for the name, and every text-vector index for the vectors that were computed from text
naming the person (a re-embedded passage without the name is a different vector).
"""

from __future__ import annotations

import re

import numpy as np

_ALL_VALUES = (
    "MATCH (n {space: $space}) UNWIND keys(n) AS k RETURN labels(n) AS where, k, n[k] AS v "
    "UNION ALL MATCH ({space: $space})-[r]-() UNWIND keys(r) AS k RETURN [type(r)] AS where, k, r[k] AS v"
)
# Nodes holding a text embedding next to the text it was computed from (the passage for a message).
_EMBEDDED_TEXTS = (
    "MATCH (n {space: $space}) WHERE n.embedding IS NOT NULL AND (n:Message OR n:Fact OR n:Attribute) "
    "RETURN coalesce(n.passage, n.text, n.content) AS text, toFloatList(n.embedding) AS vector"
)


def _name_pattern(names: set[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)


def holding(db, space: str, ids: set[str], names: set[str] = frozenset()) -> list[tuple]:
    """(labels, key, value) of every string property or list item in the space that holds one of
    ``ids`` (as itself, as a ``{id}`` placeholder or quoted in a JSON detail: ids are random
    tokens, so any occurrence is theirs) or one of ``names`` as a word (any case)."""
    pattern = _name_pattern(set(names))
    found = []
    for row in db.query(_ALL_VALUES, space=space):
        values = row["v"] if isinstance(row["v"], list) else [row["v"]]
        for v in values:
            if not isinstance(v, str):
                continue
            if any(i in v for i in ids) or (pattern and pattern.search(v)):
                found.append((row["where"], row["k"], v[:80]))
    return found


def fulltext_hits(db, space: str, names: set[str]) -> list[tuple]:
    """(index, labels, matched property) of the space's nodes any full-text index finds for a name."""
    indexes = [r["name"] for r in db.query("SHOW FULLTEXT INDEXES YIELD name RETURN name")]
    found = []
    for index in indexes:
        for name in names:
            rows = db.query(
                "CALL db.index.fulltext.queryNodes($index, $q) YIELD node WHERE node.space = $space "
                "RETURN labels(node) AS labels, node.id AS id",
                index=index,
                q=f'"{name}" OR {name.lower()}*',  # the prefix finds "Maya's" (one token)
                space=space,
            )
            found.extend((index, r["labels"], r["id"]) for r in rows)
    return found


def vectors_naming(db, space: str, names: set[str]) -> list[np.ndarray]:
    """The stored text embeddings whose text (a message's passage, a fact, an attribute) names one
    of ``names``: read before a deletion, searched for after it with :func:`vector_copies`."""
    pattern = _name_pattern(set(names))
    assert pattern is not None
    return [
        np.asarray(r["vector"], dtype=np.float64)
        for r in db.query(_EMBEDDED_TEXTS, space=space)
        if r["text"] and pattern.search(r["text"])
    ]


def vector_copies(db, space: str, vectors: list[np.ndarray], k: int = 10) -> list[tuple]:
    """(index, score) of every hit of the space, in any vector index of the vectors' dimension,
    that is one of ``vectors`` again (cosine score above 0.99999)."""
    indexes = db.query(
        "SHOW VECTOR INDEXES YIELD name, options "
        "RETURN name, options.indexConfig['vector.dimensions'] AS dims"
    )
    found = []
    for vector in vectors:
        for index in indexes:
            if index["dims"] != len(vector):
                continue
            rows = db.query(
                "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score "
                "WHERE node.space = $space RETURN score",
                index=index["name"],
                k=k,
                vector=[float(x) for x in vector],
                space=space,
            )
            found.extend((index["name"], r["score"]) for r in rows if r["score"] > 0.99999)
    return found
