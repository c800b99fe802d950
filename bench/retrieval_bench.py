"""Retrieval benchmark: evidence recall@k and answer-in-evidence on LoCoMo and FriendsQA by
question category, for every channel alone (dense MiniLM, plain BM25, keyword BM25, SPLADE),
fused by RRF in one round (with and without SPLADE) and for the agent policies, same run;
the effect of speaker-aware passages (exact offline scoring of bare text vs "Speaker: text"
for MiniLM and SPLADE); ingest cost per turn; query-encoding latency (ONNX int8 vs torch,
SPLADE); rounds used per policy, attribution exactness, and retrieval latency p50/p95 (no LLM)
at synthetic sizes.

    python -m bench.retrieval_bench                       # everything (long)
    python -m bench.retrieval_bench --latency 0 --locomo 2 --friendsqa 30   # quick

Prints tables, writes results/retrieval/retrieval_bench.json and retrieval_bench.png.
Every dataset space is created fresh (policy open, asker unknown) and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse as sp
from tqdm import tqdm

from bench.fusion_study import HELD_OUT, TUNE
from bench.retrieval_data import (
    BatchLoader,
    Corpus,
    friendsqa,
    locomo,
    product_index,
    synthetic_rows,
    synthetic_sentences,
)
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.cypher import query as product_query
from voxmem.embeddings import sparse_encoder
from voxmem.ids import new_id
from voxmem.passages import passage, sparse_fields
from voxmem.retrieval.agent import POLICIES
from voxmem.retrieval.answer import compose
from voxmem.retrieval.fusion import FUSION_DEPTH, fuse
from voxmem.retrieval.scope import resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.retrieval.text import content_words, normalise
from voxmem.retrieval.tools import Filters, MessageFulltextRetriever, MessageSparseRetriever
from voxmem.stores.messages import lucene_query

KS = (5, 10, 30)
# channels measured through the product's tools (Neo4j), then fused one round by RRF
CHANNELS = [
    "vector",
    "bm25",
    "keyword",
    "splade",
    "fused_no_splade",
    "fused_no_vector",
    "fused_before",
    "fused",
]
# exact offline scoring of the same turns as bare text and as speaker-aware passages (numpy)
OFFLINE = ["x_vector_bare", "x_vector_passage", "x_splade_bare", "x_splade_passage"]


class PlainBM25(MessageFulltextRetriever):
    """Baseline: the question as-is (escaped), no stop-word removal, no planning."""

    name = "bm25_plain"

    def _lucene(self, text: str) -> str | None:
        try:
            return lucene_query(text)
        except Exception:
            return None

    def _text_params(self, text: str) -> dict[str, Any]:
        # scored on the question's own words too, as Lucene matched them (migration 0013)
        return {**super()._text_params(text), "query_text": text}


def _recall(ranked: list[str], gold: set[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold)


def _answer_in(answer: str, texts: list[str]) -> bool:
    """All content words of the gold answer occur in the evidence (or its normalised string does)."""
    blob = normalise(" ".join(texts))
    words = content_words(answer)
    if not words:
        return bool(normalise(answer)) and normalise(answer) in blob
    have = set(blob.split())
    return all(w in have for w in words)


def _evidence_texts(items: list[dict[str, Any]]) -> list[str]:
    """Text, speaker and date of each evidence turn (answers like '7 May 2023' live in the time)."""
    out = []
    for e in items:
        when = ""
        if e.get("ts"):
            try:
                from datetime import datetime

                d = datetime.fromisoformat(e["ts"].replace("Z", "+00:00"))
                when = f"{d.day} {d.strftime('%B %Y')} {d.year}"
            except ValueError:
                when = e["ts"][:10]
        support = " ".join(s.get("text", "") for s in e.get("support") or [])
        out.append(f"{(e.get('speaker') or {}).get('name', '')} {when} {e['text']} {support}")
    return out


def _hit_dicts(hits) -> list[dict[str, Any]]:
    return [s.as_dict() for h in hits for s in h.sources]


def _csr(maps: list[dict[int, float]], width: int) -> sp.csr_matrix:
    rows = [i for i, m in enumerate(maps) for _ in m]
    cols = [t for m in maps for t in m]
    vals = [w for m in maps for w in m.values()]
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(maps), width), dtype=np.float32)


class Offline:
    """Exact scores over one corpus as bare text and as passages (what the indexes approximate)."""

    def __init__(
        self, ids: list[str], dense: dict[str, np.ndarray], sparse: dict[str, sp.csr_matrix]
    ) -> None:
        self.ids = ids
        self.dense = dense
        self.sparse = sparse

    def rankings(self, qv: np.ndarray, qs: sp.csr_matrix, k: int) -> dict[str, list[str]]:
        out = {}
        for kind in ("bare", "passage"):
            for name, scores in (
                ("vector", self.dense[kind] @ qv),
                ("splade", np.asarray((self.sparse[kind] @ qs.T).todense()).ravel()),
            ):
                top = np.argsort(-scores, kind="stable")[:k]
                out[f"x_{name}_{kind}"] = [self.ids[i] for i in top]
        return out


class Evaluator:
    """Runs every method on every question of a loaded corpus and keeps per-question rows."""

    def __init__(
        self, services: Voxmem, retrieval: RetrievalService, policies: list[str], offline: bool = True
    ) -> None:
        self.services = services
        self.with_offline = offline
        self.retrieval = retrieval
        self.policies = policies
        self.bm25 = PlainBM25(services.db, None, fetch=400)
        self.sparse = sparse_encoder()
        self.offline: dict[str, Offline] = {}
        # each corpus's channel rankings at the fused round's depth (bench.fusion_study replays them)
        self.rankings: dict[str, Any] = {}
        self.ingest: dict[str, list[float]] = defaultdict(list)

    def load(self, corpus: Corpus, addressed_by: str) -> str:
        """Index speaker-aware passages as ingest does (addressees only when given), in batches."""
        space = f"bench-ret-{corpus.name}-{uuid.uuid4().hex[:6]}"
        self.services.spaces.create(space, "open")
        texts = [r.text for r in corpus.rows]
        started = time.perf_counter()
        vectors, index = product_index(self.services.embedder, corpus.rows, addressed_by == "given")
        self.ingest["batched_passage_ms_per_turn"].append((time.perf_counter() - started) * 1000 / len(texts))
        BatchLoader(self.services.db, addressed_by=addressed_by).load(
            space, corpus.rows, vectors, index=index
        )
        if not self.with_offline:
            return space
        started = time.perf_counter()
        bare_vectors = self.services.embedder.embed(texts)
        self.ingest["batched_bare_dense_ms_per_turn"].append(
            (time.perf_counter() - started) * 1000 / len(texts)
        )
        width = 30522
        passage_sparse = [
            {int(t[1:]): w for t, w in zip(row["sparse_terms"].split(), row["sparse_weights"], strict=True)}
            for row in index
        ]
        self.offline[space] = Offline(
            [f"{space}:{r.turn_id}" for r in corpus.rows],
            {"bare": bare_vectors, "passage": vectors},
            {"bare": _csr(self.sparse.encode(texts), width), "passage": _csr(passage_sparse, width)},
        )
        return space

    def run(self, corpus: Corpus, space: str, limit: int | None, bar: tqdm) -> list[dict[str, Any]]:
        scope = resolve_scope(self.services.db, space, None)
        agent = self.retrieval.agent()
        tools = self.retrieval.tools
        offline = self.offline.get(space)
        rows = []
        k = max(KS)
        depth = max(k, FUSION_DEPTH)  # the fused round's depth, so its rankings can be replayed
        block: dict[str, Any] = {
            "turns": [[r.turn_id, r.session, r.idx, r.speaker, r.text] for r in corpus.rows],
            "questions": [],
        }
        self.rankings[corpus.name] = block
        for qa in subsample(corpus.qas, limit):
            gold = {f"{space}:{e}" for e in qa.evidence}
            row: dict[str, Any] = {
                "qid": qa.qid,
                "corpus": corpus.name,
                "category": qa.category,
                "n_gold": len(gold),
            }
            deep = {
                "vector": tools["message_vector"].search(scope, qa.question, Filters(), k=depth),
                "keyword": tools["message_fulltext"].search(scope, qa.question, Filters(), k=depth),
                "splade": tools["message_sparse"].search(scope, qa.question, Filters(), k=depth),
            }
            block["questions"].append(
                {
                    "qid": qa.qid,
                    "category": qa.category,
                    "question": qa.question,
                    "gold": sorted(qa.evidence),
                    "ranks": {
                        ch: [[h.id.split(":", 1)[1], round(h.score, 6)] for h in found]
                        for ch, found in deep.items()
                    },
                }
            )
            hits = {ch: found[:k] for ch, found in deep.items()}
            ranked: dict[str, list[dict[str, Any]]] = {
                "vector": _hit_dicts(hits["vector"]),
                "bm25": _hit_dicts(self.bm25.search(scope, qa.question, Filters(), k=k)),
                "keyword": _hit_dicts(hits["keyword"]),
                "splade": _hit_dicts(hits["splade"]),
                "fused_no_splade": [e.as_dict() for e in fuse([hits["vector"], hits["keyword"]])],
                # the round before the fusion study: RRF k = 60 over each channel's top 30
                "fused_before": [e.as_dict() for e in fuse(list(hits.values()))],
                # the product's one fused round (/retrieve): RetrievalService.search's own fusion and
                # neighbour step over the same three rankings it would fetch (vector, BM25, SPLADE at
                # depth 50, in its order), without querying them twice
                "fused": self.retrieval.fuse_round(scope, list(deep.values()), None, k=k),
                # the same round without the MiniLM channel (BM25 + SPLADE): whether a cheaper
                # default round would keep recall (docs/retrieval.md "Latency, ninth pass")
                "fused_no_vector": self.retrieval.fuse_round(
                    scope, [deep["keyword"], deep["splade"]], None, k=k
                ),
            }
            if offline is not None:
                qv = self.services.embedder.embed_queries([qa.question])[0]
                qs = _csr(self.sparse.encode([qa.question]), 30522)
                for name, ids in offline.rankings(qv, qs, k).items():
                    for kk in KS:
                        row[f"{name}_r@{kk}"] = _recall(ids, gold, kk)
            for name in self.policies:
                policy, _, rounds = name.partition("@")  # "heuristic@1": the agent after round 1
                runner = self.retrieval.agent(max_rounds=int(rounds)) if rounds else agent
                started = time.perf_counter()
                result = runner.run(qa.question, scope, POLICIES[policy]())
                row[f"{name}_ms"] = (time.perf_counter() - started) * 1000
                row[f"{name}_rounds"] = len(result.trace)
                ranked[name] = [e.as_dict() for e in result.evidence]
                if qa.is_speaker:
                    answer = compose(result)
                    row[f"{name}_attribution"] = normalise(answer.answer) == normalise(qa.answer)
                    row[f"{name}_attribution_answered"] = answer.answerer == "graph"
                    row[f"{name}_attribution_read"] = result.reading.kind in (
                        "who_said",
                        "addressee",
                        "said_to",
                    )
            for method, items in ranked.items():
                ids = [e["id"] for e in items]
                for kk in KS:
                    row[f"{method}_r@{kk}"] = _recall(ids, gold, kk)
                row[f"{method}_aie@10"] = _answer_in(qa.answer, _evidence_texts(items[:10]))
            rows.append(row)
            bar.update(1)
        return rows

    def ingest_cost(self, corpus: Corpus, n: int = 100) -> dict[str, Any]:
        """Per-turn encoding as the turn route does it (one turn at a time): without the issue-18
        indexing (bare-text MiniLM) vs with it (speaker-aware passage MiniLM + SPLADE), interleaved
        turn by turn with the order alternating (ABBA), so the shared machine's load hits both
        alike; medians over ``n`` turns, warm, and the median of the per-turn differences/ratios."""
        rows = subsample(corpus.rows, n)
        self.services.embedder.embed_one(rows[0].text)
        self.sparse.encode([rows[0].text])

        def without(r: Any) -> float:
            t = time.perf_counter()
            self.services.embedder.embed_one(r.text)
            return (time.perf_counter() - t) * 1000

        def with_index(r: Any) -> float:
            text = passage(r.text, r.speaker)
            t = time.perf_counter()
            self.services.embedder.embed_one(text)
            self.sparse.encode([text])
            return (time.perf_counter() - t) * 1000

        before, after, splade = [], [], []
        for i, r in enumerate(rows):
            if i % 2 == 0:
                before.append(without(r))
                after.append(with_index(r))
            else:
                after.append(with_index(r))
                before.append(without(r))
            t = time.perf_counter()
            self.sparse.encode([passage(r.text, r.speaker)])
            splade.append((time.perf_counter() - t) * 1000)
        batched = {k: round(statistics.fmean(v), 2) for k, v in self.ingest.items()}
        return {
            "turns": len(rows),
            "per_turn_today_ms_p50": round(float(np.median(before)), 2),
            "per_turn_passage_plus_splade_ms_p50": round(float(np.median(after)), 2),
            "per_turn_added_ms_p50": round(float(np.median(np.subtract(after, before))), 2),
            "per_turn_ratio_p50": round(float(np.median(np.divide(after, before))), 3),
            "per_turn_splade_alone_ms_p50": round(float(np.median(splade)), 2),
            "torch_threads": _torch_threads(),
            **batched,
            "loadavg": [round(x, 2) for x in os.getloadavg()],
        }


def _torch_threads() -> int | None:
    try:
        import torch

        return int(torch.get_num_threads())
    except ImportError:
        return None


def query_encoding(services: Voxmem, n: int = 200) -> dict[str, Any]:
    """Query-encoding latency: ONNX int8 MiniLM (the query path) vs torch, and SPLADE."""
    questions = synthetic_sentences(n + 10, seed=123)
    encoder = sparse_encoder()
    out: dict[str, Any] = {"loadavg_before": [round(x, 2) for x in os.getloadavg()]}
    for name, fn in (
        ("minilm_onnx_int8", lambda q: services.embedder.embed_queries([q])),
        ("minilm_torch", lambda q: services.embedder.embed([q])),
        ("splade", lambda q: encoder.encode([q])),
    ):
        for q in questions[:10]:
            fn(q)
        times = []
        for q in questions[10:]:
            t = time.perf_counter()
            fn(q)
            times.append((time.perf_counter() - t) * 1000)
        out[name] = _percentiles(times)
    vectors = services.embedder.embed(questions)
    onnx = services.embedder.embed_queries(questions)
    out["onnx_vs_torch_cosine_min"] = round(float((vectors * onnx).sum(axis=1).min()), 5)
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def subsample(items: list[Any], limit: int | None) -> list[Any]:
    """At most ``limit`` items, evenly spaced (keeps the category mix of the whole list)."""
    if limit is None or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def summarise(rows: list[dict[str, Any]], methods: list[str]) -> dict[str, Any]:
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_cat[row["category"]].append(row)
    by_cat["ALL"] = rows
    table: dict[str, Any] = {}
    for cat, items in sorted(by_cat.items()):
        table[cat] = {"n": len(items)}
        for m in methods:
            for k in KS:
                table[cat][f"{m}_r@{k}"] = round(statistics.fmean(r[f"{m}_r@{k}"] for r in items), 4)
            if f"{m}_aie@10" in items[0]:
                table[cat][f"{m}_aie@10"] = round(statistics.fmean(float(r[f"{m}_aie@10"]) for r in items), 4)
    return table


def rounds_summary(rows: list[dict[str, Any]], policies: list[str]) -> dict[str, Any]:
    out = {}
    for p in policies:
        counts = Counter(r[f"{p}_rounds"] for r in rows)
        ms = [r[f"{p}_ms"] for r in rows]
        out[p] = {
            "mean_rounds": round(statistics.fmean(r[f"{p}_rounds"] for r in rows), 3),
            "histogram": {str(k): counts[k] for k in sorted(counts)},
            "agent_ms_p50": round(float(np.percentile(ms, 50)), 1),
            "agent_ms_p95": round(float(np.percentile(ms, 95)), 1),
        }
        attributed = [r for r in rows if f"{p}_attribution" in r]
        if attributed:
            out[p]["attribution_questions"] = len(attributed)
            out[p]["attribution_exact"] = round(
                statistics.fmean(float(r[f"{p}_attribution"]) for r in attributed), 4
            )
            out[p]["attribution_answered"] = round(
                statistics.fmean(float(r[f"{p}_attribution_answered"]) for r in attributed), 4
            )
            read = [r for r in attributed if r.get(f"{p}_attribution_read")]
            out[p]["attribution_read_as_who_said"] = len(read)
            if read:
                out[p]["attribution_exact_when_read"] = round(
                    statistics.fmean(float(r[f"{p}_attribution"]) for r in read), 4
                )
    return out


def print_table(title: str, table: dict[str, Any], methods: list[str]) -> None:
    """Recall@10 per category and method (R@5 and R@30 are in the JSON)."""
    print(f"\n{title}: evidence recall@10")
    width = max(len(m) for m in methods) + 2
    print(f"{'category':<16}{'n':>6}" + "".join(f"{m:>{width}}" for m in methods))
    for cat, vals in table.items():
        print(f"{cat:<16}{vals['n']:>6}" + "".join(f"{vals[f'{m}_r@10']:>{width}.3f}" for m in methods))
    aie = [m for m in methods if f"{m}_aie@10" in table["ALL"]]
    print(f"{'answer-in-evidence@10':<22}" + "".join(f"{m}={table['ALL'][f'{m}_aie@10']:.3f}  " for m in aie))


# --- latency ----------------------------------------------------------------------------------
def _percentiles(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(values, 50)), 1),
        "p95": round(float(np.percentile(values, 95)), 1),
        "n": len(values),
    }


def latency(
    services: Voxmem,
    retrieval: RetrievalService,
    sizes: list[int],
    n_queries: int,
    keep: bool,
    space: str | None = None,
    load_only: bool = False,
) -> dict[str, Any]:
    """Load a synthetic space up to each size and time retrieval (no LLM), warm.

    ``space`` names a space to fill (created if missing) and keep, so the slow load can run once
    under ``nice`` and the timing later, on a quiet machine, against the loaded space (messages
    already there are not written again); ``load_only`` stops after loading."""
    if space is None:
        space = f"bench-ret-latency-{uuid.uuid4().hex[:6]}"
        services.spaces.create(space, "open")
    else:
        keep = True
        if not services.db.query("MATCH (s:Space {id: $space}) RETURN s.id AS id", space=space):
            services.spaces.create(space, "open")
    already = services.db.query("MATCH (m:Message {space: $space}) RETURN count(m) AS n", space=space)[0]["n"]
    rng = np.random.default_rng(5)
    pool_texts = synthetic_sentences(3000)
    if max(sizes) > already:  # the pool's encodings are only needed to write messages
        pool = services.embedder.embed(pool_texts)
        pool_sparse = [sparse_fields(w) for w in sparse_encoder().encode(pool_texts)]
    loader = BatchLoader(services.db, batch=2000)
    results: dict[str, Any] = {}
    loaded = already
    questions = synthetic_sentences(n_queries + 20, seed=99)
    sparse_tool = retrieval.tools["message_sparse"]
    previous = PreviousSparse(services.db, sparse_tool.embed, sparse_tool.fetch, sparse_tool.sparse)
    try:
        for size in sorted(sizes):
            rows = list(synthetic_rows(loaded, size - loaded))
            started = time.perf_counter()
            if rows:
                picks = rng.integers(0, len(pool), len(rows))
                vectors = pool[picks] + rng.normal(0, 0.04, (len(rows), pool.shape[1]))
                vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
                # SPLADE terms of the same pool sentence (no noise: a sparse vector has no neighbourhood)
                index = [
                    {"sparse_terms": pool_sparse[i][0], "sparse_weights": pool_sparse[i][1]} for i in picks
                ]
                with tqdm(total=len(rows), desc=f"load synthetic to {size}", unit="msg") as bar:
                    loader.load(space, rows, vectors, progress=bar.update, index=index)
            load_s = max(time.perf_counter() - started, 1e-3)
            services.db.execute("CALL db.awaitIndexes(1800)")
            loaded = max(loaded, size)
            if load_only:
                results[str(size)] = {"space": space, "loaded": len(rows), "load_s": round(load_s, 1)}
                continue
            asker = services.db.query(
                "MATCH (p:Participant {space: $space}) RETURN p.id AS id ORDER BY p.key LIMIT 1", space=space
            )[0]["id"]
            entry: dict[str, Any] = {
                "space": space,
                "load_s": round(load_s, 1),
                "load_msgs_per_s": round(len(rows) / load_s, 1) if rows else None,
                "loadavg_before": [round(x, 2) for x in os.getloadavg()],
            }
            modes: dict[str, Callable[[str], Any]] = {}
            # query embedding is timed on its own, then cached, so every mode below measures the same
            # thing: graph retrieval + fusion (+ planning for the agent), without the text encoder
            times = []
            for q in questions[20:]:
                t = time.perf_counter()
                services.embedder.embed_queries([q])
                times.append((time.perf_counter() - t) * 1000)
            entry["query_embedding"] = _percentiles(times)
            retrieval.embed.prime(questions)
            listener = _listener(services, space)
            # the loop switches the kept space's policy per scope; put the original back after, or a
            # later open-scope run on this space silently sees nothing (it was left at 'participant')
            original_policy = services.db.query(
                "MATCH (s:Space {id: $space}) RETURN s.policy AS p", space=space
            )[0]["p"]
            for policy_name, asker_id, who in (
                ("open", None, ""),
                ("participant", asker, "+asker"),
                ("private", asker, "+asker"),
                ("participant", listener, "+listener"),
            ):
                services.db.execute(
                    "MATCH (s:Space {id: $space}) SET s.policy = $p", space=space, p=policy_name
                )
                scope = resolve_scope(services.db, space, asker_id)
                tag = f"{policy_name}{who}"
                sparse_cache = retrieval.tools["message_sparse"].sparse
                if sparse_cache is not None:
                    for q in questions:  # SPLADE query weights cached too, like the embeddings
                        sparse_cache(q)
                modes = {
                    f"message_vector[{tag}]": lambda q, s=scope: retrieval.tools["message_vector"].search(
                        s, q, k=10
                    ),
                    f"message_fulltext[{tag}]": lambda q, s=scope: retrieval.tools["message_fulltext"].search(
                        s, q, k=10
                    ),
                    # at the depth the fused round asks each tool for
                    f"message_sparse[{tag}]": lambda q, s=scope: retrieval.tools["message_sparse"].search(
                        s, q, k=FUSION_DEPTH
                    ),
                    f"hybrid_round[{tag}]": lambda q, s=scope: retrieval.search(s, q, None, None, k=10),
                    # the same round and SPLADE tool before the latency pass (stored weights read
                    # per term)
                    f"hybrid_round_previous[{tag}]": lambda q, s=scope: _round_previous(
                        retrieval, previous, s, q
                    ),
                    f"message_sparse_previous[{tag}]": lambda q, s=scope: previous.search(
                        s, q, k=FUSION_DEPTH
                    ),
                    # the same round before issue 18 (MiniLM + BM25 only), timed in the same loop
                    f"hybrid_round_no_sparse[{tag}]": lambda q, s=scope: _round_without_sparse(
                        retrieval, s, q
                    ),
                    f"agent_heuristic[{tag}]": lambda q, s=scope: retrieval.agent().run(
                        q, s, POLICIES["heuristic"]()
                    ),
                    # the same agent with round 1 fused like its later rounds (before the agent's
                    # round 1 became the fused round: docs/retrieval.md "The agent's evidence")
                    f"agent_heuristic_before[{tag}]": lambda q, s=scope: _agent_before(retrieval).run(
                        q, s, POLICIES["heuristic"]()
                    ),
                }
                for fn in modes.values():
                    for q in questions[:20]:  # warm-up: plans cached, pages hot
                        fn(q)
                # interleaved: each question runs every mode, in a rotating order, so load drifts
                # on the shared machine hit all modes alike
                times: dict[str, list[float]] = {name: [] for name in modes}
                names = list(modes)
                for i, q in enumerate(tqdm(questions[20:], desc=f"{size} {tag}", leave=False)):
                    for name in names[i % len(names) :] + names[: i % len(names)]:
                        t = time.perf_counter()
                        modes[name](q)
                        times[name].append((time.perf_counter() - t) * 1000)
                for name, values in times.items():
                    entry[name] = _percentiles(values)
            services.db.execute(
                "MATCH (s:Space {id: $space}) SET s.policy = $p", space=space, p=original_policy
            )
            entry["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
            results[str(size)] = entry
    finally:
        if not keep:
            services.spaces.delete(space, batch=5000)
    return results


def _listener(services: Voxmem, space: str, every: int = 10) -> str:
    """A participant who took part in every ``every``-th session of the synthetic space and never
    spoke: the selective scope (issue 17: within 2 × open), where the Lucene filter keeps its
    session clause. Made once, idempotent (a few edges, no messages)."""
    return services.db.execute(
        "MATCH (sp:Space {id: $space}) "
        "MERGE (p:Participant {space: $space, key: 'bench-listener'}) "
        "ON CREATE SET p.id = $id, p.name = 'Bench Listener' "
        "WITH p MATCH (s:Session) WHERE s.space = $space AND s.id IS NOT NULL "
        "WITH p, s ORDER BY s.id WITH p, collect(s) AS sessions "
        "FOREACH (s IN [i IN range(0, size(sessions) - 1, $every) | sessions[i]] | "
        "  MERGE (p)-[:PARTICIPATED_IN]->(s)) "
        "RETURN p.id AS id",
        space=space,
        id=new_id("p"),
        every=every,
    )[0]["id"]


class PreviousSparse(MessageSparseRetriever):
    """The SPLADE tool as it was before the latency pass (docs/retrieval.md "Latency pass"): each
    candidate scored with ``m.sparse_weights[i]`` read inside the reduce. Timed beside the shipped
    tool."""

    name = "message_sparse_previous"

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        text = product_query(name)
        new = "WITH m, split(m.sparse_terms, ' ') AS terms, m.sparse_weights AS stored"
        old = "WITH m, split(m.sparse_terms, ' ') AS terms"
        if new not in text or "* stored[i]" not in text:
            raise RuntimeError("retrieve_messages_sparse changed: update PreviousSparse")
        text = text.replace(new, old).replace("* stored[i]", "* m.sparse_weights[i]")
        return self.db.query(text, **params)


def _round_previous(
    retrieval: RetrievalService, previous: PreviousSparse, scope: Any, q: str, k: int = 10
) -> list[Any]:
    """The fused round as it was before the latency pass: RetrievalService.search with the SPLADE
    tool before it (PreviousSparse); same depth, RRF k and neighbour step."""
    tools = [retrieval.tools["message_vector"], retrieval.tools["message_fulltext"], previous]
    retrieval.embed.prime([q])
    depth = max(k, FUSION_DEPTH)
    rankings = list(retrieval.executor.map(lambda t: t.search(scope, q, Filters(), k=depth), tools))
    return retrieval.fuse_round(scope, rankings, None, k)


def _agent_before(retrieval: RetrievalService) -> Any:
    """The service's agent as it was before it reused the fused round: RRF k = ``rrf_k`` (60) in
    every round, round 1 over each action's top budget, no neighbour step."""
    agent = retrieval.agent()
    agent.rrf_k, agent.neighbours = retrieval.settings.rrf_k, None
    return agent


def _round_without_sparse(retrieval: RetrievalService, scope: Any, q: str, k: int = 10) -> list[Any]:
    """The one fused round before issue 18 (MiniLM + BM25, RRF k = 60 over each tool's top 30, no
    SPLADE, no neighbour expansion), on the same executor."""
    names = ["message_vector", "message_fulltext"]
    retrieval.embed.prime([q])
    depth = max(k, 30)
    rankings = list(
        retrieval.executor.map(lambda n: retrieval.tools[n].search(scope, q, Filters(), k=depth), names)
    )
    return fuse(rankings, k=retrieval.settings.rrf_k)[:k]


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        (name, data)
        for name, data in (("LoCoMo", report.get("locomo")), ("FriendsQA", report.get("friendsqa")))
        if data
    ]
    n = len(panels) + (1 if report.get("latency") else 0)
    if n == 0:
        return
    fig, axes = plt.subplots(1, n, figsize=(8 * n, 6.0), squeeze=False)
    for ax, (name, data) in zip(axes[0], panels, strict=False):
        cats = list(data["table"])
        methods = data["methods"]
        width = 0.8 / len(methods)
        for i, m in enumerate(methods):
            ax.bar(
                np.arange(len(cats)) + i * width,
                [data["table"][c][f"{m}_r@10"] for c in cats],
                width,
                label=m,
            )
        ax.set_xticks(np.arange(len(cats)) + 0.4 - width / 2, cats, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"{name}: evidence recall@10 by category")
        ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    if report.get("latency"):
        ax = axes[0][-1]
        lat = report["latency"]
        names = [k for k in next(iter(lat.values())) if isinstance(next(iter(lat.values()))[k], dict)]
        width = 0.8 / max(1, len(lat))
        for i, (size, entry) in enumerate(sorted(lat.items(), key=lambda kv: int(kv[0]))):
            ax.bar(
                np.arange(len(names)) + i * width,
                [entry[k]["p95"] for k in names],
                width,
                label=f"{size} p95",
            )
            ax.scatter(
                np.arange(len(names)) + i * width,
                [entry[k]["p50"] for k in names],
                color="k",
                s=10,
                zorder=3,
                label="p50" if i == 0 else None,
            )
        ax.axhline(150, color="r", linestyle="--", linewidth=1, label="150 ms target")
        ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=35, ha="right", fontsize=7)
        ax.set_ylabel("ms (log scale)")
        ax.set_yscale("log")
        ax.set_title(f"retrieval latency (no LLM, {os.cpu_count()} cores)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


SECTIONS = {
    "locomo": "LoCoMo evidence recall (open space, unknown asker)",
    "friendsqa": "FriendsQA evidence recall (all scenes in one space)",
}


def print_section(report: dict[str, Any], key: str) -> None:
    print_table(SECTIONS[key], report[key]["table"], report[key]["methods"])
    for split, table in report[key].get("splits", {}).items():
        print_table(f"{SECTIONS[key]}, {split} conversations", table, report[key]["methods"])
    print(json.dumps(report[key]["rounds"], indent=1))


def print_latency(latency: dict[str, Any], cores: int | None) -> None:
    print(
        f"\nRetrieval latency, ms (no LLM, warm, {cores} cores, in-process, query embedding timed separately)"
    )
    for size, entry in latency.items():
        load = entry.get("load_msgs_per_s")
        print(
            f"  {size} messages in {entry.get('space')} (load {load} msg/s, loadavg "
            f"{entry.get('loadavg_before')} -> {entry.get('loadavg_after')})"
        )
        for name, vals in entry.items():
            if isinstance(vals, dict):
                print(f"    {name:<40} p50 {vals['p50']:>7.1f}  p95 {vals['p95']:>7.1f}  (n={vals['n']})")


def print_report(report: dict[str, Any]) -> None:
    for key in SECTIONS:
        if report.get(key):
            print_section(report, key)
    if report.get("latency"):
        print_latency(report["latency"], report.get("cores"))


def merge(folders: list[Path], out: Path) -> int:
    """Combine runs made in separate processes (e.g. datasets and latency) into one report and plot."""
    report: dict[str, Any] = {"merged_from": [str(f) for f in folders]}
    for folder in folders:
        part = json.loads((folder / "retrieval_bench.json").read_text())
        for key, value in part.items():
            if (
                key in ("locomo", "friendsqa", "latency", "ingest", "query_encoding") and value
            ) or key not in report:
                report[key] = value
    out.mkdir(parents=True, exist_ok=True)
    (out / "retrieval_bench.json").write_text(json.dumps(report, indent=1))
    plot(report, out / "retrieval_bench.png")
    print_report(report)
    print(f"\nwrote {out / 'retrieval_bench.json'} and {out / 'retrieval_bench.png'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--locomo", type=int, default=7, help="LoCoMo conversations to use (0 = skip).")
    parser.add_argument("--friendsqa", type=int, default=136, help="FriendsQA scenes to use (0 = skip).")
    parser.add_argument(
        "--max-questions",
        type=int,
        default=None,
        help="Per corpus (LoCoMo: per conversation), evenly spaced.",
    )
    parser.add_argument(
        "--conversations",
        default="",
        help="LoCoMo sample ids to use instead of the first --locomo (e.g. conv-43,conv-44,conv-47).",
    )
    parser.add_argument(
        "--offline", type=int, default=1, help="Exact offline bare/passage scoring (1) or not (0)."
    )
    parser.add_argument(
        "--policies",
        default="fixed,heuristic",
        help="Agent policies; 'name@N' runs the policy for at most N rounds (heuristic@1: round 1, "
        "then the person step, which runs whatever the rounds).",
    )
    parser.add_argument("--latency", default="10000,100000", help="Synthetic sizes ('0' = skip).")
    parser.add_argument("--latency-queries", type=int, default=100)
    parser.add_argument(
        "--latency-space",
        default=None,
        help="Fill this space (created if missing, kept) for the latency phase; a later run with the "
        "same name times the loaded space without writing (load under nice, time under the quiet lock).",
    )
    parser.add_argument(
        "--latency-load-only", action="store_true", help="Load the latency space and stop (no timing)."
    )
    parser.add_argument("--query-encoding", type=int, default=1, help="Time query encoders (1) or not (0).")
    parser.add_argument("--out", type=Path, default=Path("results/retrieval"))
    parser.add_argument("--keep", action="store_true", help="Keep the benchmark spaces.")
    parser.add_argument(
        "--rankings",
        type=Path,
        default=None,
        help="Also write each question's channel rankings (depth 50) here, for bench.fusion_study.",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        help="Merge earlier runs' output folders into --out (no new measurement).",
    )
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.out)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    settings = Settings()
    services = Voxmem.build(settings)
    services.start()
    retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
    policies = [p for p in args.policies.split(",") if p]
    methods = [*CHANNELS, *(OFFLINE if args.offline else []), *policies]
    evaluator = Evaluator(services, retrieval, policies, offline=bool(args.offline))
    report: dict[str, Any] = {
        "cores": os.cpu_count(),
        "neo4j": services.db.ping(),
        "policies": policies,
        "budgets": list(retrieval.budgets),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "note": "the dev machine is shared with other engineers' jobs: see loadavg for contention",
    }
    random.seed(0)
    try:
        if args.locomo:
            corpora = locomo(args.locomo)
            if args.conversations:
                wanted = set(args.conversations.split(","))
                corpora = [c for c in locomo(None) if c.name in wanted]
            total = sum(len(subsample(c.qas, args.max_questions)) for c in corpora)
            rows: list[dict[str, Any]] = []
            with tqdm(total=total, desc="LoCoMo questions") as bar:
                for corpus in corpora:
                    space = evaluator.load(corpus, addressed_by="turn_taking")
                    try:
                        rows += evaluator.run(corpus, space, args.max_questions, bar)
                    finally:
                        if not args.keep:
                            services.spaces.delete(space)
            report["locomo"] = {
                "methods": methods,
                "conversations": [c.name for c in corpora],
                "table": summarise(rows, methods),
                # fusion weights were chosen on the tune conversations only (bench/fusion_study.py)
                "splits": {
                    split: summarise(part, methods)
                    for split, names in (("tune", TUNE), ("held_out", HELD_OUT))
                    if (part := [r for r in rows if r["corpus"] in names])
                },
                "rounds": rounds_summary(rows, policies),
                "skipped": {c.name: c.skipped for c in corpora},
            }
            print_section(report, "locomo")
            report["ingest"] = evaluator.ingest_cost(corpora[0])
            print("\ningest cost per turn (ms):", json.dumps(report["ingest"]))
        if args.friendsqa:
            corpus = friendsqa(args.friendsqa)
            space = evaluator.load(corpus, addressed_by="given")
            try:
                with tqdm(
                    total=len(subsample(corpus.qas, args.max_questions)), desc="FriendsQA questions"
                ) as bar:
                    rows = evaluator.run(corpus, space, args.max_questions, bar)
            finally:
                if not args.keep:
                    services.spaces.delete(space)
            report["friendsqa"] = {
                "methods": methods,
                "table": summarise(rows, methods),
                "rounds": rounds_summary(rows, policies),
                "scenes": args.friendsqa,
                "messages": len(corpus.rows),
            }
            print_section(report, "friendsqa")
        if args.query_encoding:
            report["query_encoding"] = query_encoding(services)
            print(f"\nquery encoding, ms ({os.cpu_count()} cores):", json.dumps(report["query_encoding"]))
        sizes = [int(s) for s in args.latency.split(",") if s and int(s) > 0]
        if sizes:
            report["latency"] = latency(
                services,
                retrieval,
                sizes,
                args.latency_queries,
                args.keep,
                space=args.latency_space,
                load_only=args.latency_load_only,
            )
            print_latency(report["latency"], os.cpu_count())
    finally:
        services.close()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval_bench.json").write_text(json.dumps(report, indent=1))
    plot(report, args.out / "retrieval_bench.png")
    if args.rankings and evaluator.rankings:
        args.rankings.parent.mkdir(parents=True, exist_ok=True)
        meta = {"cores": os.cpu_count(), "loadavg_start": report["loadavg_start"], "depth": FUSION_DEPTH}
        done = {**meta, "loadavg_end": [round(x, 2) for x in os.getloadavg()], "corpora": evaluator.rankings}
        args.rankings.write_text(json.dumps(done))
        print(f"wrote the channel rankings to {args.rankings} (python -m bench.fusion_study --cache …)")
    print(f"\nwrote {args.out / 'retrieval_bench.json'} and {args.out / 'retrieval_bench.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
