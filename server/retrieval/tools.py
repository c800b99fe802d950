"""Retrieval tools: thin Python wrappers over the scoped ``cypher/retrieve_*.cypher`` queries.

Each tool is a plain class in the style of neo4j-graphrag-python retrievers: built once
with the database (and the text embedder when it needs vectors), then ``search(...)``
returns a ranked list of :class:`Hit`. The access scope is enforced by the Cypher query
itself (``$space``, ``$access_policy``, ``$asker``, checked by the ``cypher/access/`` fragments every
retrieval query composes); the wrappers only pass it through, so no Python bug here can widen
what an asker sees.

**Adding a tool** touches this module and one ``.cypher`` file: write the query (include
``@access.asker()`` and the rule of what it returns, e.g. ``@access.message(m)``), then a
:class:`Retriever` subclass here decorated with :func:`tool` that names its ``layer``, what it
``needs``, a one-line ``doc`` and its ``queries``, and sets ``layer_search = True`` when it is one of
its layer's plain search tools. The registry :data:`TOOLS` is what everything else reads:
:func:`build_tools` (the service), :func:`search_tools` (the fixed policy and one-round search),
:func:`catalogue` (the LLM planner's prompt) and the learned policy's action space.
``tests/retrieval/test_access_rule.py`` fails when a registered tool's query does not compose
the access rule.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from voxmem.cypher import query
from voxmem.db import Database
from voxmem.embeddings import SparseEncoder, TextEmbedder, sparse_encoder
from voxmem.errors import InvalidInput, QueryFailed
from voxmem.ids import participant_ref
from voxmem.passages import sparse_query
from voxmem.retrieval.scope import AccessScope, present_layers
from voxmem.retrieval.text import keyword_lucene, keyword_terms, phrase_lucene

log = logging.getLogger(__name__)

LAYERS = ("interaction", "fact", "profile")
# Queries written with Cypher 25 SEARCH (index filters) → their pre-0007 form, run on Neo4j 5.26.
LEGACY_QUERIES = {"retrieve_messages_vector": "retrieve_messages_vector_legacy"}


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

    def as_search_row(self) -> Evidence:
        """This turn as the message search tools return it: their addressees carry no confidence,
        the graph tools' (retrieve_context) do. The fused round reads its final turns through
        retrieve_context (:meth:`ContextRetriever.turns`); a turn a search tool found keeps the
        search tools' form there, so /retrieve's rows are what they were before late materialisation."""
        return replace(
            self, addressees=[{k: v for k, v in a.items() if k != "confidence"} for a in self.addressees]
        )


@dataclass
class LeanEvidence(Evidence):
    """A turn a message search tool ranked, known by id and position only (a lean row,
    ``cypher/rows/message.cypher``): the fused round fuses on ids and (session, idx), and reads
    the text, speaker and addressees of its final turns alone, in one scoped query
    (docs/retrieval.md "Latency, eleventh pass"). Never returned as it is."""

    @classmethod
    def from_lean_row(cls, row: dict[str, Any]) -> LeanEvidence:
        return cls(id=row["id"], session=row["session"], idx=row["idx"], text="", ts=None, speaker=None)


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


def _message_hits(rows: list[dict[str, Any]], tool: str, lean: bool = False) -> list[Hit]:
    hits = []
    for row in rows:
        ev = LeanEvidence.from_lean_row(row) if lean else Evidence.from_row(row)
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


class SparseTermStats:
    """Per space, the SPLADE terms held by more than ``share`` of its most recent ``sample`` indexed
    messages (cypher/message_sparse_sample.cypher), cached ``ttl`` seconds.

    Why: the SPLADE tool's Lucene disjunction matched 72-94 % of a 100k space, because a query
    shares a few terms with nearly every passage (the speakers' names lead every
    "Caroline to Melanie: ..." passage of a LoCoMo conversation); Neo4j's full-text procedure
    scores every match whatever its limit, so those terms cost the most and select nothing.
    :func:`voxmem.passages.sparse_query` leaves them out of the Lucene clauses; exact scoring keeps
    them. A space with fewer than ``sample`` indexed messages has no common terms (its query is
    cheap anyway, and a small sample says little). Reading the statistics is one index-ordered read
    of ``sample`` term lists (~25 ms at 100k, load ~10), once per space per ``ttl``, after the
    first time in a background thread while the stale statistics serve. They are
    candidate-selection statistics like Lucene's own idf, never returned to an asker."""

    def __init__(self, db: Database, share: float = 0.2, sample: int = 500, ttl: float = 600.0) -> None:
        self.db = db
        self.share = share
        self.sample = sample
        self.ttl = ttl
        self._cache: dict[str, tuple[float, frozenset[str]]] = {}
        self._refreshing: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, space: str) -> frozenset[str]:
        with self._lock:
            cached = self._cache.get(space)
            stale = cached is not None and time.monotonic() - cached[0] >= self.ttl
            if stale and space not in self._refreshing:  # refreshed off the query's path
                self._refreshing.add(space)
                threading.Thread(target=self._refresh, args=(space,), daemon=True).start()
        if cached is not None:
            return cached[1]
        return self._refresh(space)

    def _refresh(self, space: str) -> frozenset[str]:
        try:
            rows = self.db.query(query("message_sparse_sample"), space=space, sample=self.sample)
            common: frozenset[str] = frozenset()
            if len(rows) >= self.sample:
                df = Counter(t for row in rows for t in set(row["terms"].split()))
                common = frozenset(t for t, n in df.items() if n > self.share * len(rows))
            with self._lock:
                self._cache[space] = (time.monotonic(), common)
            return common
        finally:
            with self._lock:
                self._refreshing.discard(space)


class Retriever:
    """Base class: a named tool over one memory layer, built by :func:`build_tools`."""

    name: ClassVar[str] = "retriever"
    layer: ClassVar[str] = "interaction"  # one of LAYERS
    needs: ClassVar[str] = "query"  # what it reads: 'query' | 'quote' | 'message_id' | 'pair' | 'participant'
    doc: ClassVar[str] = ""  # one line for planners (the LLM planner's tool catalogue)
    layer_search: ClassVar[bool] = False  # one of its layer's plain search tools (fixed policy, /search)
    queries: ClassVar[tuple[str, ...]] = ()  # the cypher/ queries it runs, each composing the access rule
    lean_ranking: ClassVar[bool] = False  # ranking() returns lean message hits (a message search tool)
    max_fetch = 10_000  # widest ANN over-fetch before falling back to an exact scan in scope

    def __init__(
        self,
        db: Database,
        embed: EmbeddingCache | None = None,
        fetch: int = 200,
        sparse: SparseQueryCache | None = None,
    ) -> None:
        self.db = db
        self.embed = embed
        self.fetch = fetch
        self.sparse = sparse

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one of the tool's declared queries (an undeclared one is a bug: the access-rule
        test checks exactly the declared ones)."""
        if name not in self.queries:
            raise RuntimeError(f"tool {self.name} runs {name!r}, which it does not declare in queries")
        params = {"lean": False, **params}  # full rows (@rows.message) unless a ranking asks for lean ones
        if name not in LEGACY_QUERIES:
            return self.db.query(query(name), **params)
        if not self.db.cypher25:  # Neo4j 5.26: no SEARCH clause (docs/scaling.md)
            return self.db.query(query(LEGACY_QUERIES[name]), **params)
        try:
            return self.db.query(query(name), **params)
        except QueryFailed as exc:
            # The index-filtered search failed inside Neo4j (a Lucene error on indexes holding
            # deleted nodes, see QueryFailed): the unfiltered form over-fetches and applies the
            # same access rule after the index, so it returns the same scope, only slower.
            fallback = LEGACY_QUERIES[name]
            log.warning("tool %s: %s failed (%s); running %s", self.name, name, exc.message, fallback)
            return self.db.query(query(fallback), **params)

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        raise NotImplementedError

    def ranking(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        """What fusion needs of the tool: its ranked hits. A message search tool's come from lean
        rows (id, session, idx, score; the access rule and filters still gate every hit inside its
        query), and the fused round reads only its final turns' rows, in one scoped query
        (:meth:`ContextRetriever.turns`): 3 x 50 full rows per round were the largest part of the
        channel queries after scoring at 100k (docs/retrieval.md "Latency, eleventh pass"). Other
        tools rank with their full hits (their support rides along to the fused turns)."""
        if not self.lean_ranking:
            return self.search(scope, text, filters, k)
        return _message_hits(
            self._rows(scope, text, filters or Filters(), k, lean=True), self.name, lean=True
        )

    def _rows(
        self, scope: AccessScope, text: str, filters: Filters, k: int, lean: bool
    ) -> list[dict[str, Any]]:
        """The ranked rows of a search tool's queries, lean (@rows.message) or full."""
        raise NotImplementedError

    def _vector(self, text: str) -> list[float]:
        if self.embed is None:
            raise RuntimeError(f"tool {self.name} needs a text embedder")
        if not text.strip():
            raise InvalidInput("search text is empty")
        return self.embed(text)


R = TypeVar("R", bound=type[Retriever])
TOOLS: dict[str, type[Retriever]] = {}  # name → tool class, in registration order


def tool(cls: R) -> R:
    """Class decorator: register a retrieval tool under its ``name`` (see the module docstring)."""
    if cls.layer not in LAYERS:
        raise ValueError(f"tool {cls.name}: layer {cls.layer!r} is not one of {LAYERS}")
    if not cls.queries:
        raise ValueError(f"tool {cls.name}: declare the cypher queries it runs")
    if cls.name in TOOLS and TOOLS[cls.name] is not cls:
        raise ValueError(f"tool name {cls.name!r} is taken by {TOOLS[cls.name].__name__}")
    TOOLS[cls.name] = cls
    return cls


def search_tools(layers: list[str] | tuple[str, ...] = LAYERS) -> list[type[Retriever]]:
    """The plain search tools of the given layers, in registration order."""
    return [cls for cls in TOOLS.values() if cls.layer_search and cls.layer in layers]


def catalogue() -> dict[str, tuple[str, str]]:
    """Every tool's layer and one-line description, for planners that choose tools by name."""
    return {name: (cls.layer, cls.doc) for name, cls in TOOLS.items()}


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
        "ts_from": filters.ts_from,  # validity overlaps the window, as for facts
        "ts_to": filters.ts_to,
    }


class _VectorRetriever(Retriever):
    """ANN over the shared index with over-fetch, then an exact scan inside the scope if short."""

    ann_query = ""
    exact_query = ""

    def _filters(self, filters: Filters) -> dict[str, Any]:
        raise NotImplementedError

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        raise NotImplementedError

    def _filtered_in_index(self, scope: AccessScope, filters: Filters) -> bool:
        """Whether the index filter alone is the scope: every candidate survives the rule, so the
        search needs no room for dropped ones."""
        return False

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        return self._hits(self._rows(scope, text, filters or Filters(), k, lean=False))

    def _rows(
        self, scope: AccessScope, text: str, filters: Filters, k: int, lean: bool
    ) -> list[dict[str, Any]]:
        if scope.sees_nothing:
            return []
        params = {**scope.params(), **self._filters(filters), "embedding": self._vector(text), "lean": lean}
        # 10 × k leaves room for candidates the rule drops after the index; when the index filter
        # is the whole scope, 4 × k (the search's ef) finds the same top k and costs less
        # (docs/retrieval.md "Latency, third pass", "Latency, seventh pass")
        exact_filter = self._filtered_in_index(scope, filters)
        fetch = max(self.fetch, (4 if exact_filter else 10) * k)
        rows = self.run(self.ann_query, fetch=fetch, k=k, **params)
        if len(rows) < k and len(rows) > 0:
            # other spaces crowd the shared index: widen the over-fetch before any scan
            rows = self.run(self.ann_query, fetch=min(fetch * 20, self.max_fetch), k=k, **params)
        if len(rows) < k:
            rows = self.run(self.exact_query, k=k, **params)
        return rows


class _FulltextRetriever(Retriever):
    """BM25 over the shared Lucene index; widens the over-fetch when too few rows survive."""

    ft_query = ""

    def _filters(self, filters: Filters) -> dict[str, Any]:
        raise NotImplementedError

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        raise NotImplementedError

    def _lucene(self, text: str) -> str | None:
        return keyword_lucene(text)

    def _text_params(self, text: str) -> dict[str, Any]:
        """Parameters of the query besides $lucene that the search text sets (none by default)."""
        return {}

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        return self._hits(self._rows(scope, text, filters or Filters(), k, lean=False))

    def _rows(
        self, scope: AccessScope, text: str, filters: Filters, k: int, lean: bool
    ) -> list[dict[str, Any]]:
        lucene = self._lucene(text)
        if scope.sees_nothing or lucene is None:
            return []
        params = {**scope.params(), **self._filters(filters), "lucene": lucene, "k": k, "lean": lean}
        params.update(self._text_params(text))
        fetch = max(self.fetch, 10 * k)
        widest = fetch * 20
        while True:
            rows = self.run(self.ft_query, fetch=fetch, **params)
            # a query that reports its Lucene hit count (`candidates`) read every match of its
            # index filter when that count is under $fetch: a wider search would return the same rows
            # (message_fulltext reports the limit it used, `fetched`: it may read past $fetch)
            exhausted = bool(rows) and rows[0].get("candidates", fetch) < rows[0].get("fetched", fetch)
            if len(rows) >= k or exhausted or fetch >= widest:
                return rows
            fetch = _wider_fetch(fetch, len(rows), k, widest)


def _wider_fetch(fetch: int, survived: int, k: int, widest: int) -> int:
    """The next full-text over-fetch when only ``survived`` of ``fetch`` hits passed the scope and
    filters and ``k`` are wanted: twice what the survival rate needs, at most ``widest``.

    Why: the private scope keeps ~1 in 6 of a space's hits, so a search for 50 sometimes kept 40 of
    500 and went straight to 10,000 hits (~200 ms at 100k, the private round's p95;
    docs/retrieval.md "Latency, ninth pass"); 1,500 find the same rows. Lucene returns hits by
    score and the rule tests each hit on its own, so any fetch that yields k rows yields the same
    top k as the widest one. None survived: the rate is unknown, go to ``widest``."""
    if survived <= 0:
        return widest
    return min(widest, fetch * -(-2 * k // survived))


@tool
class MessageVectorRetriever(_VectorRetriever):
    name, layer, layer_search, lean_ranking = "message_vector", "interaction", True, True
    doc = "semantic search over conversation turns"
    ann_query, exact_query = "retrieve_messages_vector", "retrieve_messages_vector_exact"
    queries = (ann_query, exact_query)

    def _filtered_in_index(self, scope: AccessScope, filters: Filters) -> bool:
        # open: the index filters by the space (@access.message_search), exactly the scope;
        # participant: by the keys of the asker's sessions (space and session, migration 0011),
        # exactly the scope. Not private (the rule keeps only the asker's own and addressed
        # turns of those sessions), not a speaker/time filter, not Neo4j 5.26 (no index filter):
        # those drop in-scope-looking candidates after the index
        unfiltered = not any(_message_filters(filters).values())
        return unfiltered and scope.access_policy in ("open", "participant") and self.db.cypher25

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _message_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


BM25_EXHAUSTIVE = 2_000  # read every Lucene match when the scope's df say there are at most this many
# a scope of at most this many sessions reads its BM25 counters by one index seek per session (and
# word); a larger one scans the space's counters of each word and keeps its sessions' (measured
# crossover 100-200 sessions at 5 words on the 100k benchmark's 500-session space; docs/retrieval.md
# "BM25 from the asker's scope: the latency won back"). The numbers are the same either way.
BM25_SEEK_SESSIONS = 100


@tool
class MessageFulltextRetriever(_FulltextRetriever):
    """BM25 over conversation turns with the asker's scope's statistics (migration 0013): the query
    reads the scope's document frequencies of the query words, its message count and total length
    from per-session counters kept at ingest, then scores the Lucene candidates exactly with them in
    Cypher (@keyword.scored), as the SPLADE tool scores its candidates. Lucene's own BM25 statistics
    are those of every space in the index: with them a tenant's scores and ranks moved whenever
    another tenant ingested, and carried others' word frequencies (docs/retrieval.md "BM25 from the
    asker's scope"). When the scope's document frequencies of the words sum to at most
    :attr:`exhaustive`, the query reads every Lucene match in the scope's filter (the candidate set
    is then the scope's alone); above, Lucene's top ``fetch`` (the residual)."""

    name, layer, layer_search, lean_ranking = "message_fulltext", "interaction", True, True
    doc = "keyword (BM25) search over conversation turns"
    ft_query = "retrieve_messages_fulltext"
    queries = (ft_query,)
    exhaustive = BM25_EXHAUSTIVE
    seek_sessions = BM25_SEEK_SESSIONS

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _message_filters(filters)

    def _text_params(self, text: str) -> dict[str, Any]:
        return {
            "query_text": " ".join(keyword_terms(text)),
            "exhaustive": self.exhaustive,
            "seek_sessions": self.seek_sessions,
        }

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


@tool
class MessageSparseRetriever(Retriever):
    """Learned sparse (SPLADE) search over speaker-aware passages: Lucene candidates in the space
    through the messages' head terms (over every term when those find too few), exact SPLADE dot
    product over every stored term in Cypher, scope and filters applied there too."""

    name, layer, layer_search, lean_ranking = "message_sparse", "interaction", True, True
    doc = "learned sparse (SPLADE) search over turns with their speakers"
    queries = ("retrieve_messages_sparse_head", "retrieve_messages_sparse")

    @functools.cached_property
    def common(self) -> SparseTermStats:
        """The space's common terms, kept out of the Lucene candidate query (:class:`SparseTermStats`)."""
        return SparseTermStats(self.db)

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        return _message_hits(self._rows(scope, text, filters or Filters(), k, lean=False), self.name)

    def _rows(
        self, scope: AccessScope, text: str, filters: Filters, k: int, lean: bool
    ) -> list[dict[str, Any]]:
        if not text.strip():
            raise InvalidInput("search text is empty")
        if self.sparse is None:
            raise RuntimeError(f"tool {self.name} needs a sparse query encoder")
        weights = self.sparse(text)
        if scope.sees_nothing or not weights:
            return []
        # space-qualified head terms: the disjunction selects the space itself (migration 0012)
        lucene, terms = sparse_query(weights, common=self.common(scope.space), space=scope.space)
        params = {**scope.params(), **_message_filters(filters), "lucene": lucene, "lean": lean}
        params["weights"] = terms
        fetch = max(self.fetch, 10 * k)
        # candidates through the messages' head terms (migration 0010, document-side pruning:
        # docs/retrieval.md "Latency, sixth pass"), each scored with all its terms
        rows = self.run("retrieve_messages_sparse_head", fetch=fetch, k=k, **params)
        if len(rows) < k:  # scope or filters removed candidates, or the rare head terms were too few:
            # widen once, every query term over every stored term
            params["lucene"] = sparse_query(weights)[0]
            rows = self.run("retrieve_messages_sparse", fetch=fetch * 20, k=k, **params)
        return rows


@tool
class FactVectorRetriever(_VectorRetriever):
    name, layer, layer_search = "fact_vector", "fact", True
    doc = "semantic search over extracted facts"
    ann_query, exact_query = "retrieve_facts_vector", "retrieve_facts_vector_exact"
    queries = (ann_query, exact_query)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _fact_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "fact")


@tool
class FactFulltextRetriever(_FulltextRetriever):
    name, layer, layer_search = "fact_fulltext", "fact", True
    doc = "keyword search over extracted facts"
    ft_query = "retrieve_facts_fulltext"
    queries = (ft_query,)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _fact_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "fact")


@tool
class AttributeVectorRetriever(_VectorRetriever):
    name, layer, layer_search = "attribute_vector", "profile", True
    doc = "semantic search over participant profile attributes"
    ann_query, exact_query = "retrieve_attributes_vector", "retrieve_attributes_vector_exact"
    queries = (ann_query, exact_query)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _attribute_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "profile")


@tool
class AttributeFulltextRetriever(_FulltextRetriever):
    name, layer, layer_search = "attribute_fulltext", "profile", True
    doc = "keyword search over profile attributes"
    ft_query = "retrieve_attributes_fulltext"
    queries = (ft_query,)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return _attribute_filters(filters)

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _memory_hits(rows, self.name, "profile")


@tool
class WhoSaidRetriever(_FulltextRetriever):
    """ "Who said X": turns matching the quote as a phrase (boosted) or by its words, with speakers."""

    name, layer, needs = "who_said", "interaction", "quote"
    doc = "find who said a quote; query = the quote"
    ft_query = "retrieve_who_said"
    queries = (ft_query,)

    def _lucene(self, text: str) -> str | None:
        return phrase_lucene(text)

    def _filters(self, filters: Filters) -> dict[str, Any]:
        return {"session": filters.session, "ts_from": filters.ts_from, "ts_to": filters.ts_to}

    def _hits(self, rows: list[dict[str, Any]]) -> list[Hit]:
        return _message_hits(rows, self.name)


@tool
class AddresseesRetriever(Retriever):
    """ "To whom was this said": one visible message with its ADDRESSES edges (text = message id)."""

    name, layer, needs = "addressees", "interaction", "message_id"
    doc = "to whom a turn was addressed; query = a message id from the evidence"
    queries = ("retrieve_addressees",)

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 1
    ) -> list[Hit]:
        if scope.sees_nothing:
            return []
        rows = self.run("retrieve_addressees", message_id=text, **scope.params())
        return _message_hits(rows, self.name)


@tool
class SaidToRetriever(Retriever):
    """ "What did A say to B": filters.speaker → filters.addressee turns, ranked by the query if any."""

    name, layer, needs = "said_to", "interaction", "pair"
    doc = "what speaker said to addressee; needs speaker and addressee"
    queries = ("retrieve_said_to",)

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        filters = filters or Filters()
        if not filters.speaker or not filters.addressee:
            raise InvalidInput("said_to needs both a speaker and an addressee")
        if scope.sees_nothing:
            return []
        embedding = self.embed(text) if (self.embed is not None and text.strip()) else None
        rows = self.run(
            "retrieve_said_to", embedding=embedding, k=k, **_message_filters(filters), **scope.params()
        )
        return _message_hits(rows, self.name)


@tool
class ContextRetriever(Retriever):
    """The turns around a message (text = message id), each checked against the scope."""

    name, layer, needs = "context", "interaction", "message_id"
    doc = "turns around a message; query = a message id from the evidence"
    queries = ("retrieve_context",)
    window = 2  # turns on each side

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 5
    ) -> list[Hit]:
        if scope.sees_nothing:
            return []
        rows = self.run(
            "retrieve_context", message_ids=[text], anchors=[text], window=self.window, **scope.params()
        )
        return _message_hits(rows, self.name)[:k] if k < len(rows) else _message_hits(rows, self.name)

    def turns(
        self, scope: AccessScope, ids: list[str], anchors: list[str], window: int
    ) -> tuple[dict[str, Evidence], dict[str, list[Evidence]]]:
        """Each visible turn of ``ids`` by id, and for each of ``anchors`` (some of ``ids``) the
        visible turns within ``window`` positions of it (itself left out), in one query: the fused
        round's rows (late materialisation) and its neighbour step together. An id the scope
        refuses has no row."""
        rows: dict[str, Evidence] = {}
        around: dict[str, list[Evidence]] = {a: [] for a in anchors}
        if scope.sees_nothing or not ids:
            return rows, around
        params = {**scope.params(), "message_ids": ids, "anchors": anchors, "window": window}
        for row in self.run("retrieve_context", **params):
            if row["id"] == row["anchor"]:
                rows[row["id"]] = Evidence.from_row(row)
            else:
                around[row["anchor"]].append(Evidence.from_row(row))
        return rows, around


@tool
class TimelineRetriever(Retriever):
    """A topic's facts oldest first with validity (text = topic; or filters.about alone)."""

    name, layer = "timeline", "fact"
    doc = "a topic's facts over time with validity"
    queries = ("retrieve_timeline",)

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 20
    ) -> list[Hit]:
        filters = filters or Filters()
        lucene = keyword_lucene(text) if text.strip() else None
        if scope.sees_nothing or (lucene is None and not filters.about):
            return []
        rows = self.run(
            "retrieve_timeline",
            lucene=lucene,
            fetch=max(self.fetch, 10 * k),
            k=k,
            **_fact_filters(filters),
            **scope.params(),
        )
        return _memory_hits(rows, self.name, "fact")


@tool
class ProfileRetriever(Retriever):
    """A participant's profile: visible attributes with provenance (text = participant id or name)."""

    name, layer, needs = "profile", "profile", "participant"
    doc = "a participant's profile; query = participant name"
    queries = ("retrieve_profile",)

    def profile(
        self, scope: AccessScope, participant: str, current_only: bool = False
    ) -> dict[str, Any] | None:
        if not participant.strip():
            raise InvalidInput("participant is empty")
        rows = self.run(
            "retrieve_profile",
            participant=participant_ref(participant),
            current_only=current_only,
            **scope.params(),
        )
        if not rows:
            return None
        row = rows[0]
        return {"participant": row["participant"], "attributes": [a for a in row["attributes"] if a]}

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 20
    ) -> list[Hit]:
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
    return set(present_layers(db.query(query("retrieve_layers"), space=space)[0]))


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
    """Every registered tool by name, sharing one query-embedding cache and one SPLADE query cache."""
    embed = EmbeddingCache(embedder)
    sparse_cache = SparseQueryCache(sparse or sparse_encoder())
    return {name: cls(db, embed, fetch, sparse_cache) for name, cls in TOOLS.items()}
