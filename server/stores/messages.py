"""Text turns: append to a session, list with filters, and hybrid search.

Appending is one transaction: lock the session, read its message count, write the
message with its edges. The session lock makes concurrent appends queue, so ``idx`` has
no duplicates and ``NEXT`` never forks. A client-chosen ``turn_id`` makes retries
idempotent: the same id returns the stored message instead of writing a second one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder, sparse_encoder
from voxmem.errors import InvalidInput, NotFound
from voxmem.ids import is_valid_id, legacy_turn_message_id, name_key, new_id, turn_message_id
from voxmem.passages import passage, sparse_fields


@dataclass
class Turn:
    """One text turn as the API receives it."""

    session: str
    speaker: str
    text: str
    addressees: list[str] = field(default_factory=list)
    ts: datetime | None = None
    turn_id: str | None = None
    source: str = "text"


# A name is a range-index key (participant_space_key); Neo4j refuses keys over ~8 KB with a
# DatabaseError, so names are bounded well below that, like the speaker field of a turn.
MAX_NAME_CHARS = 200


def _person(name: str) -> dict[str, str]:
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"participant name longer than {MAX_NAME_CHARS} characters")
    key = name_key(name)
    if not key:
        raise InvalidInput(f"participant name {name!r} is empty after normalisation")
    return {"key": key, "id": new_id("p"), "name": " ".join(name.split())}


def _iso(ts: datetime | None) -> str:
    moment = ts or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


class MessageStore:
    """Reads and writes ``Message`` nodes of one database, always scoped by space."""

    def __init__(
        self, db: Database, embedder: TextEmbedder, rrf_k: int = 60, sparse: SparseEncoder | None = None
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.sparse = sparse or sparse_encoder()
        self.rrf_k = rrf_k

    # --- writes ---------------------------------------------------------------------------
    def append(self, space: str, turn: Turn) -> dict[str, Any]:
        """Store one turn; returns the message view. Idempotent on ``turn.turn_id``."""
        text = turn.text.strip()
        if not text:
            raise InvalidInput("turn text is empty")
        if not is_valid_id(turn.session):
            raise InvalidInput("session id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        if turn.turn_id is not None and not is_valid_id(turn.turn_id):
            raise InvalidInput("turn_id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'")
        speaker = _person(turn.speaker)
        addressees = {p["key"]: p for p in (_person(a) for a in turn.addressees)}
        addressees.pop(speaker["key"], None)  # talking to oneself makes no ADDRESSES edge
        message_id = self.turn_message_id(space, turn.turn_id)
        # outside the transaction: no lock held while encoding; the speaker-aware passage is what
        # the embedding and the SPLADE terms describe (voxmem.passages)
        indexed = passage(text, speaker["name"], sorted(a["name"] for a in addressees.values()))
        embedding = self.embedder.embed_one(indexed)
        sparse_terms, sparse_weights = sparse_fields(self.sparse.encode([indexed])[0])
        params = {
            "space": space,
            "session": turn.session,
            "id": message_id,
            "text": text,
            "ts": _iso(turn.ts),
            "source": turn.source,
            "embedding": embedding,
            "passage": indexed,
            "sparse_terms": sparse_terms,
            "sparse_weights": sparse_weights,
            "speaker": speaker,
            "addressees": list(addressees.values()),
        }

        def work(tx: ManagedTransaction) -> bool:
            if tx.run(query("message_get"), space=space, id=message_id).single() is not None:
                return False
            row = tx.run(query("session_lock"), space=space, session=turn.session, ts=params["ts"]).single()
            if row is None:
                raise NotFound(f"unknown space {space!r}")
            tx.run(query("message_append"), idx=row["next_idx"], **params).consume()
            return True

        try:
            self.db.write(work)
        except ConstraintError:  # a concurrent retry of the same turn_id won the race
            if turn.turn_id is None:
                raise
        return self.get(space, message_id)

    def turn_message_id(self, space: str, turn_id: str | None) -> str:
        """The message id for a turn: namespaced (:func:`voxmem.ids.turn_message_id`), or the
        legacy ``<space>:<turn_id>`` when this space already stored the turn under it, so a
        retry of a turn stored before the change stays idempotent; a fresh id without a turn id."""
        if turn_id is None:
            return new_id("msg")
        legacy = legacy_turn_message_id(space, turn_id)
        return legacy if self.exists(space, legacy) else turn_message_id(space, turn_id)

    # --- reads ----------------------------------------------------------------------------
    def exists(self, space: str, message_id: str) -> bool:
        rows = self.db.query(query("message_get"), space=space, id=message_id)
        return bool(rows) and rows[0]["message"] is not None

    def get(self, space: str, message_id: str) -> dict[str, Any]:
        rows = self.db.query(query("message_get"), space=space, id=message_id)
        if not rows or rows[0]["message"] is None:
            raise NotFound(f"unknown message {message_id!r}")
        return _view(rows[0])

    def list(
        self,
        space: str,
        session: str | None = None,
        speaker: str | None = None,
        addressee: str | None = None,
        skip: int = 0,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        rows = self.db.query(
            query("messages_list"),
            space=space,
            session=session,
            speaker=_filter_key(speaker),
            addressee=_filter_key(addressee),
            skip=skip,
            limit=limit,
        )
        return [_view(row) for row in rows]

    def search(self, space: str, text: str, k: int = 10) -> list[dict[str, Any]]:
        """Full-text and vector search fused by reciprocal rank fusion (RRF)."""
        text = text.strip()
        if not text:
            raise InvalidInput("search text is empty")
        fetch = max(100, 20 * k)
        lucene = lucene_query(text)
        fulltext = self.db.query(query("messages_fulltext"), space=space, lucene=lucene, fetch=fetch, k=k * 3)
        vector_in = self.embedder.embed_queries([text])[0].tolist()
        vector = self.db.query(
            query("messages_vector"), space=space, embedding=vector_in, fetch=fetch, k=k * 3
        )
        if len(vector) < k:
            vector = self.db.query(query("messages_vector_exact"), space=space, embedding=vector_in, k=k * 3)
        fused = rrf([[r["id"] for r in fulltext], [r["id"] for r in vector]], k=self.rrf_k)
        ranked = sorted(fused.items(), key=lambda item: -item[1])[:k]
        hits = []
        for message_id, score in ranked:
            view = self.get(space, message_id)
            view["score"] = round(score, 6)
            view["matched_by"] = [
                name
                for name, rows in (("fulltext", fulltext), ("vector", vector))
                if any(r["id"] == message_id for r in rows)
            ]
            hits.append(view)
        return hits


def _filter_key(value: str | None) -> str | None:
    """A participant filter is an id (``p_…``) or a name, matched by its key."""
    if value is None:
        return None
    return value if value.startswith("p_") else name_key(value)


def _view(row: dict[str, Any]) -> dict[str, Any]:
    message = dict(row["message"])
    message["speaker"] = row.get("speaker")
    message["addressees"] = sorted(row.get("addressees") or [], key=lambda a: (a["name"] or "", a["id"]))
    return message


_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_WORDS = {"AND", "OR", "NOT", "TO"}
# The full-text indexes use Lucene's standard analyser, which keeps stop words; an OR-query
# on "the" or "who" would rank any message containing them, so questions drop them here.
_STOP_WORDS_TEXT = """a an and are as at be but by do does did for from had has have he her his i if in
into is it its me my of on or our she so that the their them there they this to was we were what when where
which who whom why will with you your"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def lucene_query(text: str) -> str:
    """Turn free text into a safe Lucene OR-query: specials and operators removed, stop words dropped."""
    tokens = [w for w in _LUCENE_SPECIAL.sub(" ", text).split() if w not in _LUCENE_WORDS]
    words = [w for w in tokens if w.lower() not in STOP_WORDS] or tokens
    if not words:
        raise InvalidInput("search text has no searchable words")
    return " OR ".join(_bounded_terms(words))


# Lucene refuses a query of more than 1024 clauses (TooManyClauses, a 500 once), and the
# analyzer makes one clause per CJK character, so the query keeps at most this many
# characters of words: a longer search text is cut, never refused.
MAX_QUERY_CHARS = 256


def _bounded_terms(words: list[str]) -> list[str]:
    kept, used = [], 0
    for word in dict.fromkeys(words):  # a repeated word adds a clause and nothing else
        if used + len(word) > MAX_QUERY_CHARS:
            if not kept:
                kept.append(word[:MAX_QUERY_CHARS])
            break
        kept.append(word)
        used += len(word)
    return kept


def rrf(rankings: list[list[str]], k: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion: each list adds 1 / (k + rank) for each id it ranks (rank from 1)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores
