"""Speaker-aware passages: what a message's dense embedding and SPLADE terms are computed from.

A turn alone ("Yes, on Friday") rarely says who is talking, yet questions name people
("When did Caroline ..."). Indexing ``"Caroline: Yes, on Friday"`` instead of the bare text
measured +0.10 recall@10 for MiniLM on LoCoMo (issue 18). Addressees given by the client are
added (``"Caroline to Mel: ..."``); inferred ones are guesses and stay out.

The passage depends on participants' names, so a naming or renaming re-indexes the messages
that mention the participant in their passage (:meth:`MessageIndexer.reindex_participant`,
called from the naming path). Messages stored before this existed, or by a path that does
not index, are found by :meth:`MessageIndexer.backfill` (idempotent: it pages through messages
with no SPLADE terms until none are left).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder


def passage(text: str, speaker: str | None, addressees: Sequence[str] = ()) -> str:
    """``"Speaker to A, B: text"``; the bare text when the speaker has no name."""
    if not speaker:
        return text
    to = ", ".join(a for a in addressees if a and a != speaker)
    return f"{speaker} to {to}: {text}" if to else f"{speaker}: {text}"


def sparse_fields(weights: dict[int, float]) -> tuple[str, list[float]]:
    """Stored form: space-separated ``t<vocabulary id>`` terms (full-text indexed) and aligned weights."""
    items = sorted(weights.items(), key=lambda kv: -kv[1])
    return " ".join(f"t{t}" for t, _ in items), [w for _, w in items]


def sparse_query(
    weights: dict[int, float], max_terms: int = 64, common: Collection[str] = (), space: str | None = None
) -> tuple[str, dict[str, float]]:
    """The Lucene clauses of the candidate query (the query's heaviest terms, boosted by weight)
    and the term map that scores the candidates exactly; the retrieval query prepends the space
    and session filters itself (``cypher/retrieve_messages_sparse.cypher``, the access fragment
    ``message_lucene_filter``).

    ``common``: terms held by a large share of the space's messages (``SparseTermStats``). They stay
    in the term map (scores are unchanged) but leave the Lucene clauses: a speaker's name is in
    nearly every passage of a conversation, so one such term made the disjunction match most of
    the space, and Lucene scores every match whatever the limit (docs/retrieval.md "Latency,
    fifth pass"). When every term is common the clauses keep them all (nothing else to select on).

    ``space``: clauses over the space-qualified head terms (``"<space>~t<id>"``, quoted because
    ``~`` and ``:`` are query syntax; ``@sparse.head``, migration 0012) for
    ``cypher/retrieve_messages_sparse_head.cypher``, which then needs no space clause; the term
    map keeps the bare ``t<id>`` keys of ``sparse_terms``."""
    top = sorted(weights.items(), key=lambda kv: -kv[1])[:max_terms]
    terms = {f"t{t}": w for t, w in top}
    clauses = {t: w for t, w in terms.items() if t not in common} or terms
    if space is not None:
        return " ".join(f'"{space}~{t}"^{w:.3f}' for t, w in clauses.items()), terms
    return " ".join(f"{t}^{w:.3f}" for t, w in clauses.items()), terms


def encode_passages(
    embedder: TextEmbedder, sparse: SparseEncoder, passages: Sequence[str]
) -> list[dict[str, Any]]:
    """``passage``, ``embedding`` (numpy), ``sparse_terms`` and ``sparse_weights`` of each passage,
    in one batch through each model: the one place the two encoders meet, for the message writers
    (:class:`voxmem.stores.messages.MessageStore`) and the re-indexer below alike."""
    vectors = embedder.embed(passages)
    weights = sparse.encode(passages)
    rows = []
    for text, vector, terms_weights in zip(passages, vectors, weights, strict=True):
        terms, values = sparse_fields(terms_weights)
        rows.append({"passage": text, "embedding": vector, "sparse_terms": terms, "sparse_weights": values})
    return rows


class MessageIndexer:
    """Computes and stores passages, their embeddings and SPLADE terms, in batches."""

    def __init__(self, db: Database, embedder: TextEmbedder, sparse: SparseEncoder, batch: int = 128) -> None:
        self.db = db
        self.embedder = embedder
        self.sparse = sparse
        self.batch = batch

    def encode(self, passages: Sequence[str]) -> list[dict[str, Any]]:
        """Embedding (a list of floats, as the benchmarks read it) and SPLADE fields for each
        passage; :meth:`index` takes :func:`encode_passages`' arrays straight to ``Database.vector``."""
        return [
            {**row, "embedding": row["embedding"].tolist()}
            for row in encode_passages(self.embedder, self.sparse, passages)
        ]

    def index(self, space: str, ids: Sequence[str], force: bool = False) -> int:
        """(Re)index these messages; unless ``force``, a message whose passage is unchanged is skipped."""
        done = 0
        for start in range(0, len(ids), self.batch):
            chunk = list(ids[start : start + self.batch])
            found = self.db.query(query("message_index_read"), space=space, ids=chunk)
            todo = []
            for row in found:
                text = passage(row["text"], row["speaker"], sorted(row["addressees"]))
                if force or row["passage"] != text:
                    todo.append((row["id"], text))
            if not todo:
                continue
            encoded = encode_passages(self.embedder, self.sparse, [t for _, t in todo])
            rows = [
                {"id": i, **fields, "embedding": self.db.vector(fields["embedding"])}
                for (i, _), fields in zip(todo, encoded, strict=True)
            ]
            statement = self.db.vector_query("message_index_set")
            done += self.db.execute(statement, space=space, rows=rows)[0]["indexed"]
        return done

    def backfill(self, space: str) -> int:
        """Index every message of the space that has no SPLADE terms yet; returns how many."""
        total = 0
        while True:
            rows = self.db.query(query("message_index_pending"), space=space, limit=self.batch)
            ids = [r["id"] for r in rows]
            if not ids:
                return total
            written = self.index(space, ids, force=True)
            if written == 0:  # nothing could be written: stop rather than loop
                return total
            total += written

    def backfill_all(self) -> dict[str, int]:
        """Backfill every space that has unindexed messages; returns messages indexed per space."""
        return {r["id"]: self.backfill(r["id"]) for r in self.db.query(query("message_index_spaces"))}

    def reindex_participant(self, space: str, participant_id: str) -> int:
        """Re-index the messages whose passage names this participant (after a naming or renaming)."""
        rows = self.db.query(query("message_index_participant"), space=space, participant=participant_id)
        return self.index(space, [r["id"] for r in rows])
