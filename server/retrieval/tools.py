"""Retrieval tools: thin Python wrappers over the scoped ``cypher/retrieve_*.cypher`` queries.

Each tool is a plain class in the style of neo4j-graphrag-python retrievers: built once
with the database (and the text embedder when it needs vectors), then ``search(...)``
returns a ranked list of :class:`Hit`. The access scope is enforced by the Cypher query
itself (``$space``, ``$policy``, ``$asker``); the wrappers only pass it through, so no
Python bug here can widen what an asker sees.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder, sparse_encoder
from voxmem.errors import InvalidInput
from voxmem.ids import participant_ref
from voxmem.passages import sparse_query
from voxmem.retrieval.scope import Scope
from voxmem.retrieval.text import keyword_lucene, phrase_lucene

LAYERS = ("interaction", "fact", "profile")


@dataclass
class Evidence:
    """One source turn (a Message) as evidence: who said it, to whom, where and when."""

    id: str
    session: str
    idx: int
    text: str
    ts: str | None
    speaker: dict[str, Any] | None
    addressees: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Evidence:
        return cls(
            id=row["id"],
            session=row["session"],
            idx=row["idx"],
            text=row["text"],
            ts=row.get("ts"),
            speaker=row.get("speaker"),
            addressees=[a for a in (row.get("addressees") or []) if a],
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Hit:
    """One ranked result of a tool: a message, a fact or an attribute, with its source turns."""

    layer: str
    tool: str
    id: str
    text: str
    score: float
    sources: list[Evidence]
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Filters:
    """Optional filters an action may set. Participants are ids (``p_…``) or names."""

    speaker: str | None = None
    addressee: str | None = None
    about: str | None = None
    session: str | None = None
    ts_from: str | None = None
    ts_to: str | None = None
    current_only: bool = False
    participant: str | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        # Neo4j's datetime() fails on a non-ISO string deep in a query (a 500 once); refuse here.
        for name in ("ts_from", "ts_to"):
            value = getattr(self, name)
            if value is None:
                continue
            try:
                parsed = datetime.fromisoformat(value)
            except (TypeError, ValueError):
                raise InvalidInput(f"{name} must be an ISO-8601 date-time, got {value[:40]!r}") from None
            setattr(self, name, parsed.isoformat())  # one spelling Neo4j's datetime() reads

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, False)}


def _message_hits(rows: list[dict[str, Any]], tool: str) -> list[Hit]:
    hits = []
    for row in rows:
        ev = Evidence.from_row(row)
        hits.append(Hit("interaction", tool, ev.id, ev.text, float(row.get("score") or 0.0), [ev]))
    return hits


def _memory_hits(rows: list[dict[str, Any]], tool: str, layer: str) -> list[Hit]:
    hits = []
    for row in rows:
        sources = [Evidence.from_row(s) for s in row.get("sources") or [] if s]
        meta = {k: row[k] for k in row if k not in {"id", "text", "score", "sources"}}
        hits.append(Hit(layer, tool, row["id"], row["text"], float(row.get("score") or 0.0), sources, meta))
    return hits


class _LRU:
    """A small thread-safe LRU of query encodings: one agent run encodes the same rewritten query
    many times, and a conversation repeats its questions."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        return None

    def missing(self, keys: list[str]) -> list[str]:
        with self._lock:
            return list(dict.fromkeys(k for k in keys if k.strip() and k not in self._cache))

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)


class EmbeddingCache:
    """Query embeddings (ONNX int8 MiniLM, no torch on this path), memoised in an LRU."""

    def __init__(self, embedder: TextEmbedder, size: int = 512) -> None:
        self.embedder = embedder
        self._lru = _LRU(size)

    def prime(self, texts: list[str]) -> None:
        """Embed the texts not cached yet up front (no model calls later in the tool threads)."""
        missing = self._lru.missing(texts)
        if missing:
            for text, vector in zip(missing, self.embedder.embed_queries(missing), strict=True):
                self._lru.put(text, vector.tolist())

    def __call__(self, text: str) -> list[float]:
        vector = self._lru.get(text)
        if vector is None:
            vector = self.embedder.embed_queries([text])[0].tolist()
            self._lru.put(text, vector)
        return vector


class SparseQueryCache:
    """Query SPLADE weights ({vocabulary id: weight}), memoised in an LRU like the embeddings."""

    def __init__(self, encoder: SparseEncoder, size: int = 512) -> None:
        self.encoder = encoder
        self._lru = _LRU(size)

    def __call__(self, text: str) -> dict[int, float]:
        weights = self._lru.get(text)
        if weights is None:
            weights = self.encoder.encode([text])[0]
            self._lru.put(text, weights)
        return weights


class Retriever:
    """Base class: a named tool over one memory layer."""

    name = "retriever"
    layer = "interaction"
    max_fetch = 10_000  # widest ANN over-fetch before falling back to an exact scan in scope
    needs = "query"  # what the tool reads: 'query' | 'quote' | 'message_id' | 'pair' | 'participant'

    def __init__(self, db: Database, embed: EmbeddingCache | None = None, fetch: int = 200) -> None:
        self.db = db
        self.embed = embed
        self.fetch = fetch

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 10) -> list[Hit]:
        raise NotImplementedError

    def _vector(self, text: str) -> list[float]:
        if self.embed is None:
            raise RuntimeError(f"tool {self.name} needs a text embedder")
        if not text.strip():
            raise InvalidInput("search text is empty")
        return self.embed(text)


def _message_filters(filters: Filters) -> dict[str, Any]:
    return {
        "speaker": participant_ref(filters.speaker),
        "addressee": participant_ref(filters.addressee),
        "session": filters.session,
        "ts_from": filters.ts_from,
        "ts_to": filters.ts_to,
    }


def _fact_filters(filters: Filters) -> dict[str, Any]:
    return {
        **_message_filters(filters),
        "about": participant_ref(filters.about),
        "current_only": filters.current_only,
    }


def _attribute_filters(filters: Filters) -> dict[str, Any]:
    return {
        "participant": participant_ref(filters.participant or filters.about),
        "kind": filters.kind,
        "current_only": filters.current_only,
    }


class _VectorRetriever(Retriever):
    """ANN over the shared index with over-fetch, then an exact scan inside the scope if short."""

    ann_query = ""
    exact_query = ""

    def _filters(self, filters: Filters) -> dict[str, Any]:
        raise NotImplementedError

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        raise NotImplementedError

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 10) -> list[Hit]:
        if scope.sees_nothing:
            return []
        params = {**scope.params(), **self._filters(filters or Filters()), "embedding": self._vector(text)}
        fetch = max(self.fetch, 10 * k)
        rows = self.db.query(query(self.ann_query), fetch=fetch, k=k, **params)
        if len(rows) < k and len(rows) > 0:
            # other spaces crowd the shared index: widen the over-fetch before any scan
            rows = self.db.query(query(self.ann_query), fetch=min(fetch * 20, self.max_fetch), k=k, **params)
        if len(rows) < k:
            rows = self.db.query(query(self.exact_query), k=k, **params)
        return self._hits(rows)


class _FulltextRetriever(Retriever):
    """BM25 over the shared Lucene index; widens the over-fetch once when too few rows survive."""

    ft_query = ""

    def _filters(self, filters: Filters) -> dict[str, Any]:
        raise NotImplementedError

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        raise NotImplementedError

    def _lucene(self, text: str) -> str | None:
        return keyword_lucene(text)

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 10) -> list[Hit]:
        lucene = self._lucene(text)
        if scope.sees_nothing or lucene is None:
            return []
        params = {**scope.params(), **self._filters(filters or Filters()), "lucene": lucene, "k": k}
        fetch = max(self.fetch, 10 * k)
        rows = self.db.query(query(self.ft_query), fetch=fetch, **params)
        if len(rows) < k and len(rows) < fetch:
            rows = self.db.query(query(self.ft_query), fetch=fetch * 20, **params)
        return self._hits(rows)


class MessageVectorRetriever(_VectorRetriever):
    name, layer = "message_vector", "interaction"
    ann_query, exact_query = "retrieve_messages_vector", "retrieve_messages_vector_exact"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _message_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


class MessageFulltextRetriever(_FulltextRetriever):
    name, layer = "message_fulltext", "interaction"
    ft_query = "retrieve_messages_fulltext"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _message_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


class MessageSparseRetriever(Retriever):
    """Learned sparse (SPLADE) search over speaker-aware passages: Lucene candidates in the space,
    exact SPLADE dot product in Cypher, scope and filters applied there too."""

    name, layer = "message_sparse", "interaction"

    def __init__(self, db: Database, encode: SparseQueryCache, fetch: int = 200) -> None:
        super().__init__(db, None, fetch)
        self.encode = encode

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 10) -> list[Hit]:
        if not text.strip():
            raise InvalidInput("search text is empty")
        weights = self.encode(text)
        if scope.sees_nothing or not weights:
            return []
        lucene, terms = sparse_query(scope.space, weights)
        params = {**scope.params(), **_message_filters(filters or Filters()), "lucene": lucene}
        params["weights"] = terms
        fetch = max(self.fetch, 10 * k)
        rows = self.db.query(query("retrieve_messages_sparse"), fetch=fetch, k=k, **params)
        if len(rows) < k:  # scope or filters removed candidates: widen once
            rows = self.db.query(query("retrieve_messages_sparse"), fetch=fetch * 20, k=k, **params)
        return _message_hits(rows, self.name)


class FactVectorRetriever(_VectorRetriever):
    name, layer = "fact_vector", "fact"
    ann_query, exact_query = "retrieve_facts_vector", "retrieve_facts_vector_exact"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _fact_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "fact")


class FactFulltextRetriever(_FulltextRetriever):
    name, layer = "fact_fulltext", "fact"
    ft_query = "retrieve_facts_fulltext"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _fact_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "fact")


class AttributeVectorRetriever(_VectorRetriever):
    name, layer = "attribute_vector", "profile"
    ann_query, exact_query = "retrieve_attributes_vector", "retrieve_attributes_vector_exact"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _attribute_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "profile")


class AttributeFulltextRetriever(_FulltextRetriever):
    name, layer = "attribute_fulltext", "profile"
    ft_query = "retrieve_attributes_fulltext"

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _attribute_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "profile")


class WhoSaidRetriever(_FulltextRetriever):
    """ "Who said X": turns matching the quote as a phrase (boosted) or by its words, with speakers."""

    name, layer, needs = "who_said", "interaction", "quote"
    ft_query = "retrieve_who_said"

    def _lucene(self, text: str) -> str | None:
        return phrase_lucene(text)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return {"session": filters.session, "ts_from": filters.ts_from, "ts_to": filters.ts_to}

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


class AddresseesRetriever(Retriever):
    """ "To whom was this said": one visible message with its ADDRESSES edges (text = message id)."""

    name, layer, needs = "addressees", "interaction", "message_id"

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 1) -> list[Hit]:
        if scope.sees_nothing:
            return []
        rows = self.db.query(query("retrieve_addressees"), message_id=text, **scope.params())
        return _message_hits(rows, self.name)


class SaidToRetriever(Retriever):
    """ "What did A say to B": filters.speaker → filters.addressee turns, ranked by the query if any."""

    name, layer, needs = "said_to", "interaction", "pair"

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 10) -> list[Hit]:
        filters = filters or Filters()
        if not filters.speaker or not filters.addressee:
            raise InvalidInput("said_to needs both a speaker and an addressee")
        if scope.sees_nothing:
            return []
        embedding = self.embed(text) if (self.embed is not None and text.strip()) else None
        rows = self.db.query(
            query("retrieve_said_to"), embedding=embedding, k=k, **_message_filters(filters), **scope.params()
        )
        return _message_hits(rows, self.name)


class ContextRetriever(Retriever):
    """The turns around a message (text = message id), each checked against the scope."""

    name, layer, needs = "context", "interaction", "message_id"

    def __init__(self, db: Database, embed: EmbeddingCache | None = None, window: int = 2) -> None:
        super().__init__(db, embed)
        self.window = window

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 5) -> list[Hit]:
        if scope.sees_nothing:
            return []
        rows = self.db.query(query("retrieve_context"), message_id=text, window=self.window, **scope.params())
        return _message_hits(rows, self.name)[:k] if k < len(rows) else _message_hits(rows, self.name)


class TimelineRetriever(Retriever):
    """A topic's facts oldest first with validity (text = topic; or filters.about alone)."""

    name, layer = "timeline", "fact"

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 20) -> list[Hit]:
        filters = filters or Filters()
        lucene = keyword_lucene(text) if text.strip() else None
        if scope.sees_nothing or (lucene is None and not filters.about):
            return []
        rows = self.db.query(
            query("retrieve_timeline"),
            lucene=lucene,
            fetch=max(self.fetch, 10 * k),
            k=k,
            **_fact_filters(filters),
            **scope.params(),
        )
        return _memory_hits(rows, self.name, "fact")


class ProfileRetriever(Retriever):
    """A participant's profile: visible attributes with provenance (text = participant id or name)."""

    name, layer, needs = "profile", "profile", "participant"

    def profile(self, scope: Scope, participant: str, current_only: bool = False) -> dict[str, Any] | None:
        if not participant.strip():
            raise InvalidInput("participant is empty")
        rows = self.db.query(
            query("retrieve_profile"),
            participant=participant_ref(participant),
            current_only=current_only,
            **scope.params(),
        )
        if not rows:
            return None
        row = rows[0]
        return {"participant": row["participant"], "attributes": [a for a in row["attributes"] if a]}

    def search(self, scope: Scope, text: str = "", filters: Filters | None = None, k: int = 20) -> list[Hit]:
        found = self.profile(scope, text or (filters.participant if filters else "") or "")
        if not found:
            return []
        hits = []
        for attr in found["attributes"][:k]:
            sources = [Evidence.from_row(s) for s in attr.get("sources") or [] if s]
            meta = {"kind": attr.get("kind"), "current": attr.get("current"), "owner": found["participant"]}
            hits.append(Hit("profile", self.name, attr["id"], attr["text"], 1.0, sources, meta))
        return hits


def layers_present(db: Database, space: str) -> set[str]:
    """The memory layers that hold anything in the space ('interaction' always counts)."""
    row = db.query(query("retrieve_layers"), space=space)[0]
    return {"interaction", *(layer for layer in ("fact", "profile") if row[layer])}


class ParticipantDirectory:
    """Names and aliases of a space's participants, for mapping names in a question to filters."""

    def __init__(self, db: Database, limit: int = 2000) -> None:
        self.db = db
        self.limit = limit

    def list(self, space: str) -> list[dict[str, Any]]:
        return self.db.query(query("retrieve_participants"), space=space, limit=self.limit)


def build_tools(
    db: Database, embedder: TextEmbedder, fetch: int = 200, sparse: SparseEncoder | None = None
) -> dict[str, Retriever]:
    """All tools by name, sharing one query-embedding cache and one SPLADE query cache."""
    embed = EmbeddingCache(embedder)
    tools: list[Retriever] = [
        MessageVectorRetriever(db, embed, fetch),
        MessageFulltextRetriever(db, embed, fetch),
        MessageSparseRetriever(db, SparseQueryCache(sparse or sparse_encoder()), fetch),
        FactVectorRetriever(db, embed, fetch),
        FactFulltextRetriever(db, embed, fetch),
        AttributeVectorRetriever(db, embed, fetch),
        AttributeFulltextRetriever(db, embed, fetch),
        WhoSaidRetriever(db, embed, fetch),
        AddresseesRetriever(db, embed),
        SaidToRetriever(db, embed),
        ContextRetriever(db, embed),
        TimelineRetriever(db, embed, fetch),
        ProfileRetriever(db, embed),
    ]
    return {tool.name: tool for tool in tools}
