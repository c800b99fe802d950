"""Search a space's whole graph for a vector: every property of every node and relationship.

Why a scan and not the known properties: a copy of a voice that survives deletion lives
where nobody looked (a merge record kept one). The scan reads every float list in the space.
"""

from __future__ import annotations

import numpy as np

_ALL = (
    "MATCH (n {space: $space}) RETURN [k IN keys(n) WHERE n[k] IS :: LIST<FLOAT NOT NULL> | n[k]] AS vs "
    "UNION ALL MATCH (a {space: $space})-[r]-() "
    "RETURN [k IN keys(r) WHERE r[k] IS :: LIST<FLOAT NOT NULL> | r[k]] AS vs"
)


def max_cosine(db, space: str, target: np.ndarray) -> float:
    """Highest cosine between ``target`` and any same-length float list stored in the space."""
    t = np.asarray(target, dtype=np.float64)
    t = t / np.linalg.norm(t)
    best = -1.0
    for row in db.query(_ALL, space=space):
        for v in row["vs"]:
            if len(v) != len(t):
                continue
            a = np.asarray(v, dtype=np.float64)
            norm = np.linalg.norm(a)
            if norm > 0:
                best = max(best, float(a.dot(t) / norm))
    return best
