"""Scaling benchmark (issue 17): retrieval latency at 10k / 100k / 1M messages, open and
selective scopes, on a corpus built from real public turns.

    nice -n 10 python -m bench.scale --sizes 10000,100000      # load up to each size, measure
    python -m bench.scale --drop                                # delete every scale space

    # a big store: load at nice 19 first, then measure with the quiet lock held only while timing
    nice -n 19 python -m bench.scale --load-only --sizes 100000,1000000 --batch 2000 --writers 2 \
        --yield-to /work/quiet.lock
    nice -n 19 python -m bench.scale --sizes 1000000 --queries 200 --budget 600 \
        --quiet-lock /work/quiet.lock --lock-name "who, bench.scale"

**Corpus, honestly stated.** The turns are the real public ones in /work/shared/data: the 7
LoCoMo dev conversations (4,124 turns, two people each) and the FriendsQA dev scenes (2,847
turns, 2-14 speakers), cut into units (a LoCoMo conversation, or 20 FriendsQA scenes). To reach
a size, units are *copied*: each copy gets its own sessions and its own participants (same
display names, distinct keys), so the same texts repeat across copies and spaces. Each unique
speaker-aware passage is embedded once (torch MiniLM, as stored by the product, and SPLADE-tiny),
cached on disk under ``$VOXMEM_CACHE_DIR/scale/``; a copy's vectors get a small seeded Gaussian
perturbation (cosine ~0.99 to the original) so the shared HNSW index does not hold thousands of
identical vectors. Half of the messages go to one big space (``scale-main``, the one queried);
the other half to other spaces of one unit copy each (they crowd the shared indexes, as other
tenants do). Loaded with the benchmark's batched ``UNWIND`` loader (bench/cypher/load_messages).

**Scopes.** open (unknown asker), participant + asker and private + asker, where the asker is a
participant of copy 0 of the first LoCoMo unit: they see one conversation (~400 turns) of a space
holding half the messages, the most selective scope the data gives.

**Measured, interleaved** (every question runs every mode in a shuffled order, so load changes
hit all modes alike): the fused one-round retrieval (``RetrievalService.search``: MiniLM +
keyword BM25 + SPLADE, RRF), the heuristic agent, each raw tool (the index queries with scope)
as shipped and in their pre-0007 form (``*_legacy``: index over-fetch, then filter), the bm25s and
exact-numpy baselines over the same space in process (scope applied as a mask), and the query
embedding (ONNX int8 MiniLM, uncached: every question text is new to the encoder). Retrieval
modes use cached query vectors, as after the first tool of a round. Also: load rate, store size
(Neo4j data directory) and resident memory (Neo4j and this process). Writes
results/scale/scale.json and scale.png; prints core count and load average.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.cypher import query as bench_query
from bench.retrieval_data import Row, friendsqa, locomo
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.embeddings import sparse_encoder
from voxmem.ids import name_key
from voxmem.passages import passage, sparse_fields
from voxmem.retrieval.agent import POLICIES
from voxmem.retrieval.scope import AccessScope, resolve_scope
from voxmem.retrieval.service import RetrievalService
from voxmem.retrieval.text import keyword_lucene, keyword_terms
from voxmem.retrieval.tools import MessageFulltextRetriever, MessageVectorRetriever

PREFIX = "scale-"
MAIN = "scale-main"
OUT = Path("results/scale")
NOISE = 0.007  # per-component sigma of a copy's perturbation: noise norm ~0.14, cosine ~0.99


class LegacyVector(MessageVectorRetriever):
    """The pre-0007 query: the shared index over-fetches, then space and scope filter."""

    name = "message_vector_legacy"
    ann_query, exact_query = "retrieve_messages_vector_legacy", "retrieve_messages_vector_exact"
    queries = (ann_query, exact_query)


class LegacyFulltext(MessageFulltextRetriever):
    name = "message_fulltext_legacy"
    ft_query = "retrieve_messages_fulltext_legacy"
    queries = (ft_query,)


@dataclass
class Unit:
    """A block of real turns copied as a whole: one LoCoMo conversation or 20 FriendsQA scenes."""

    name: str
    rows: list[Row]


def units() -> list[Unit]:
    out = [Unit(c.name, c.rows) for c in locomo()]
    fq = friendsqa()
    scenes: dict[str, list[Row]] = {}
    for r in fq.rows:
        scenes.setdefault(r.session, []).append(r)
    names = list(scenes)
    for i in range(0, len(names), 20):
        out.append(Unit(f"friendsqa-{i // 20}", [r for n in names[i : i + 20] for r in scenes[n]]))
    return out


def questions() -> list[str]:
    """Real questions: LoCoMo's and FriendsQA's, shuffled with a fixed seed."""
    qs = [q.question for c in locomo() for q in c.qas] + [q.question for q in friendsqa().qas]
    random.Random(3).shuffle(qs)
    return list(dict.fromkeys(q for q in qs if q.strip()))


class Vectors:
    """Embedding and SPLADE fields of each unique passage, computed once, cached on disk."""

    def __init__(self, services: Voxmem, all_units: list[Unit]) -> None:
        self.passages = sorted({passage(r.text, r.speaker, r.addressees) for u in all_units for r in u.rows})
        digest = hashlib.sha1("\x00".join(self.passages).encode()).hexdigest()[:12]
        path = services.settings.cache_dir / "scale" / f"vectors-{digest}.npz"
        if path.exists():
            data = np.load(path, allow_pickle=True)
            self.dense, terms, weights = data["dense"], list(data["terms"]), list(data["weights"])
        else:
            started = time.perf_counter()
            self.dense = services.embedder.embed(self.passages)
            fields = [sparse_fields(w) for w in sparse_encoder().encode(self.passages)]
            terms = [t for t, _ in fields]
            weights = [np.asarray(w, dtype=np.float32) for _, w in fields]
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(
                path,
                dense=self.dense,
                terms=np.array(terms, dtype=object),
                weights=np.array(weights, dtype=object),
            )
            print(f"embedded {len(self.passages)} unique passages in {time.perf_counter() - started:.0f} s")
        self.index = {p: i for i, p in enumerate(self.passages)}
        self.terms, self.weights = terms, weights


def _copy_rng(space: str, unit: Unit, copy: int) -> np.random.Generator:
    """The copy's perturbation generator, seeded from its name: the same in every run (``hash()``
    of a string is salted per process, so it would not be)."""
    seed = int.from_bytes(hashlib.sha1(f"{space}/{unit.name}/{copy}".encode()).digest()[:4], "big")
    return np.random.default_rng(seed)


def _payload(
    space: str, unit: Unit, copy: int, vec: Vectors, rng: np.random.Generator
) -> list[dict[str, Any]]:
    rows = []
    for r in unit.rows:
        i = vec.index[passage(r.text, r.speaker, r.addressees)]
        v = vec.dense[i] + rng.normal(0.0, NOISE, vec.dense.shape[1])
        v = v / np.linalg.norm(v)

        def person(name: str) -> dict[str, str]:
            key = f"{name_key(name)}-{unit.name}-c{copy}"
            return {
                "key": key,
                "id": "p_" + hashlib.sha1(f"{space}/{key}".encode()).hexdigest()[:16],
                "name": name,
            }

        rows.append(
            {
                "id": f"{space}:{unit.name}:c{copy}:{r.turn_id}",
                "session": f"{unit.name}:c{copy}:{r.session}",
                "idx": r.idx,
                "text": r.text,
                "ts": r.ts.isoformat(),
                "source": "text",
                "speaker": person(r.speaker),
                "addressees": [person(a) for a in r.addressees if name_key(a) != name_key(r.speaker)],
                "embedding": v.astype(np.float32).tolist(),
                "passage": vec.passages[i],
                "sparse_terms": vec.terms[i],
                "sparse_weights": [float(x) for x in vec.weights[i]],
            }
        )
    return rows


class Layout:
    """Which unit copies live in which space; grows in place from one size to the next."""

    def __init__(
        self,
        services: Voxmem,
        all_units: list[Unit],
        vec: Vectors,
        batch: int,
        writers: int = 1,
        yield_to: Path | None = None,
    ) -> None:
        self.services, self.units, self.vec, self.batch = services, all_units, vec, batch
        self.writers, self.yield_to = writers, yield_to
        self._lock = threading.Lock()
        state = services.db.query(
            "MATCH (m:Message) WHERE m.space STARTS WITH $prefix RETURN m.space AS space, count(*) AS n",
            prefix=PREFIX,
        )
        self.counts = {r["space"]: r["n"] for r in state}
        self.main_copies = self._copies(MAIN)
        self.others = sorted(s for s in self.counts if s != MAIN)

    def _copies(self, space: str) -> int:
        rows = self.services.db.query(
            "MATCH (s:Session {space: $space}) RETURN count(DISTINCT split(s.id, ':')[0] + ':'"
            " + split(s.id, ':')[1]) AS n",
            space=space,
        )
        return int(rows[0]["n"]) if rows else 0

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self.counts.values())

    def _main_count(self) -> int:
        with self._lock:
            return self.counts.get(MAIN, 0)

    def _wait_for_quiet(self) -> None:
        """A long load at nice 19 still takes cache and memory bandwidth from someone's timing run:
        while ``yield_to`` (the shared quiet lock) exists, no batch starts."""
        while self.yield_to is not None and self.yield_to.exists():
            time.sleep(10)

    def _write(self, space: str, unit: Unit, copy: int) -> int:
        if not self.services.db.query("MATCH (s:Space {id: $id}) RETURN s.id AS id", id=space):
            self.services.spaces.create(space, "open")
        payload = _payload(space, unit, copy, self.vec, _copy_rng(space, unit, copy))
        for start in range(0, len(payload), self.batch):
            self.services.db.execute(
                bench_query("load_messages"),
                space=space,
                rows=payload[start : start + self.batch],
                addressed_by="given",
            )
        sessions = sorted({p["session"] for p in payload})
        for start in range(0, len(sessions), 200):
            self.services.db.execute(
                bench_query("link_next"), space=space, sessions=sessions[start : start + 200]
            )
        with self._lock:
            self.counts[space] = self.counts.get(space, 0) + len(payload)
        return len(payload)

    def _write_main(self) -> int:
        self._wait_for_quiet()
        unit = self.units[self.main_copies % len(self.units)]
        written = self._write(MAIN, unit, self.main_copies // len(self.units))
        self.main_copies += 1
        return written

    def _write_other(self) -> int:
        self._wait_for_quiet()
        j = len(self.others)
        space = f"{PREFIX}o{j:05d}"
        self.others.append(space)
        return self._write(space, self.units[j % len(self.units)], 0)

    def grow(self, size: int) -> dict[str, Any]:
        """Add copies until ``size`` messages: main and other spaces, half each.

        With two writers, one thread writes the main space and one the other spaces: a Neo4j write
        transaction runs on one core, and the two halves take no common lock (different spaces,
        sessions and participants), so two transactions at a time use both cores."""
        started, written, shown = time.perf_counter(), [0], [self.total]

        def progress(n: int) -> None:
            with self._lock:
                written[0] += n
                total = sum(self.counts.values())
                if total - shown[0] < 10_000 and total < size:  # a line per 10k: readable in a log
                    return
                shown[0], elapsed = total, time.perf_counter() - started
            print(
                f"  loaded {total:,} / {size:,} messages, {written[0] / elapsed:.0f} msg/s over"
                f" {elapsed:.0f} s, load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )

        if self.writers == 1:
            while self.total < size:
                main = self._main_count()
                progress(self._write_main() if main <= self.total - main else self._write_other())
        else:
            half = size // 2

            def main_half() -> None:
                while self._main_count() < half:
                    progress(self._write_main())

            def other_half() -> None:
                while self.total - self._main_count() < size - half:
                    progress(self._write_other())

            with ThreadPoolExecutor(max_workers=2) as pool:
                for job in [pool.submit(main_half), pool.submit(other_half)]:
                    job.result()
        self.services.db.execute("CALL db.awaitIndexes(3600)")
        seconds = time.perf_counter() - started
        return {
            "written": written[0],
            "seconds": round(seconds, 1),
            "msgs_per_s": round(written[0] / seconds, 1) if written[0] else None,
            "writers": self.writers,
        }


def _provenance(settings: Settings, argv: list[str] | None) -> dict[str, Any]:
    """Which tree, command and server produced a point: points of different runs sit side by
    side in scale.json, so each carries its own."""

    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], capture_output=True, text=True, check=False).stdout.strip()

    return {
        "commit": git("rev-parse", "--short", "HEAD"),
        "bench_scale_modified": bool(git("status", "--porcelain", "--", "bench/scale.py")),
        "command": "python -m bench.scale " + " ".join(argv if argv is not None else sys.argv[1:]),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "neo4j_uri": settings.neo4j_uri,
        "neo4j_home": str(settings.resolved_neo4j_home(settings.neo4j_version)),
        "neo4j_heap": settings.neo4j_heap,
        "neo4j_pagecache": settings.neo4j_pagecache,
    }


def _load_log(home: Path) -> Path:
    """The store's own load history (one line per loading run), kept beside its data directory so
    a later measuring run can report how the store it measures was loaded."""
    return home / "voxmem-scale-load.jsonl"


def _pct(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(values, 50)), 1),
        "p95": round(float(np.percentile(values, 95)), 1),
        "p99": round(float(np.percentile(values, 99)), 1),
        "n": len(values),
    }


def _du(path: Path) -> int:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=False).stdout
    return int(out.split()[0]) if out else 0


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _neo4j_pid(home: Path) -> int | None:
    out = subprocess.run(
        ["pgrep", "-f", f"{home}/plugins"], capture_output=True, text=True, check=False
    ).stdout
    pids = [int(p) for p in out.split()]
    return pids[0] if pids else None


_BASELINE_ROWS = "MATCH (m:Message {space: $space}) RETURN m.id AS id, m.text AS text, m.embedding AS e"


class Baselines:
    """In-process baselines over the main space: bm25s and exact numpy cosine, scope as a mask."""

    def __init__(self, services: Voxmem) -> None:
        import bm25s

        self.ids: list[str] = []
        texts: list[str] = []
        blocks: list[np.ndarray] = []
        step = 50_000

        def fill(tx: Any) -> None:
            # streamed row by row into float32 blocks: at 500k messages a list of Python float
            # lists would take ~6 GB, the matrix takes 0.8 GB
            for i, r in enumerate(tx.run(_BASELINE_ROWS, space=MAIN)):
                if i % step == 0:
                    blocks.append(np.empty((step, len(r["e"])), np.float32))
                blocks[-1][i % step] = r["e"]
                self.ids.append(r["id"])
                texts.append(r["text"])

        services.db.read(fill)
        self.matrix = np.concatenate(blocks)[: len(self.ids)] if blocks else np.empty((0, 0), np.float32)
        self.retriever = bm25s.BM25()
        corpus = bm25s.tokenize(texts, stopwords="en", show_progress=False)
        self.retriever.index(corpus, show_progress=False)
        self.mask: dict[str, np.ndarray] = {}

    def set_scope(self, name: str, visible: set[str] | None) -> None:
        self.mask[name] = (
            np.ones(len(self.ids), bool) if visible is None else np.isin(self.ids, list(visible))
        )

    def numpy(self, scope: str, qv: np.ndarray, k: int = 10) -> list[str]:
        scores = self.matrix @ qv
        scores[~self.mask[scope]] = -np.inf
        top = np.argpartition(-scores, k)[:k]
        return [self.ids[i] for i in top[np.argsort(-scores[top])]]

    def bm25(self, scope: str, text: str, k: int = 10) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        scores = self.retriever.get_scores(tokens)  # every document's score, then the scope mask
        scores = np.where(self.mask[scope], scores, -np.inf)
        top = np.argpartition(-scores, k)[:k]
        return [self.ids[i] for i in top[np.argsort(-scores[top])]]


def _asker(services: Voxmem) -> str:
    rows = services.db.query(
        "MATCH (p:Participant {space: $space})-[:SPEAKS]->(m:Message) WHERE p.key ENDS WITH $suffix"
        " RETURN p.id AS id, count(m) AS n ORDER BY n DESC LIMIT 1",
        space=MAIN,
        suffix="-conv-26-c0",
    )
    return str(rows[0]["id"])


def _visible(services: Voxmem, scope: AccessScope) -> set[str] | None:
    if scope.access_policy == "open":
        return None
    if scope.access_policy == "participant":
        q = (
            "MATCH (a:Participant {space: $space, id: $asker})-[:PARTICIPATED_IN]->(s:Session)"
            " MATCH (m:Message {space: $space, session: s.id}) RETURN m.id AS id"
        )
    else:
        q = (
            "MATCH (a:Participant {space: $space, id: $asker}) MATCH (m:Message {space: $space})"
            " WHERE (a)-[:SPEAKS]->(m) OR (m)-[:ADDRESSES]->(a) RETURN m.id AS id"
        )
    return {r["id"] for r in services.db.query(q, space=MAIN, asker=scope.asker)}


def _renice(pid: int, nice: int) -> None:
    """Set the niceness of every thread of ``pid`` (Linux nices threads, not processes)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.setpriority(os.PRIO_PROCESS, int(task.name), nice)


@contextlib.contextmanager
def quiet(lock: Path | None, who: str, minutes: float, neo4j_pid: int | None) -> Iterator[dict[str, Any]]:
    """Only the timed questions run under the shared quiet lock, at normal priority (this process
    and the Neo4j server's threads), while loading, the baselines and the caches are prepared at
    the caller's nice level. Waits while someone else holds the lock; gives it back afterwards."""
    info: dict[str, Any] = {"lock": str(lock) if lock else None}
    if lock is None:
        yield info
        return
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            print(f"waiting for {lock}: {lock.read_text().strip() if lock.exists() else ''}", flush=True)
            time.sleep(60)
    until = time.strftime("%H:%M UTC", time.gmtime(time.time() + minutes * 60))
    os.write(fd, f"{who}, until {until}\n".encode())
    os.close(fd)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        for task in Path("/proc/self/task").iterdir():
            os.setpriority(os.PRIO_PROCESS, int(task.name), 0)
        if neo4j_pid:
            _renice(neo4j_pid, 0)
        info |= {"held_from_utc": time.strftime("%H:%M:%S", time.gmtime()), "uptime_before": _uptime()}
        yield info
    finally:
        info |= {"held_to_utc": time.strftime("%H:%M:%S", time.gmtime()), "uptime_after": _uptime()}
        if neo4j_pid:
            _renice(neo4j_pid, own)
        lock.unlink(missing_ok=True)
        os.setpriority(os.PRIO_PROCESS, 0, own)


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def measure(
    services: Voxmem,
    retrieval: RetrievalService,
    qs: list[str],
    n: int,
    warm: int,
    budget_s: float | None = None,
    skip: tuple[str, ...] = (),
    lock: Callable[[], contextlib.AbstractContextManager[dict[str, Any]]] = contextlib.nullcontext,  # type: ignore[assignment]
) -> dict[str, Any]:
    """Every mode on every question, interleaved in a shuffled order per question. ``budget_s``
    ends the timed questions early (the count measured is reported per mode); ``skip`` leaves out
    modes by name prefix (the pre-0007 participant query takes seconds per call at 1M)."""
    asker = _asker(services)
    base = Baselines(services)
    legacy_v = LegacyVector(services.db, retrieval.embed, fetch=200)
    legacy_f = LegacyFulltext(services.db, fetch=200)
    tools = retrieval.tools
    scopes: dict[str, AccessScope] = {}
    visible: dict[str, int | None] = {}
    for policy, who in (("open", None), ("participant", asker), ("private", asker)):
        services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = $p", space=MAIN, p=policy)
        scope = resolve_scope(services.db, MAIN, who)
        tag = policy if who is None else f"{policy}+asker"
        scopes[tag] = scope
        seen = _visible(services, scope)
        base.set_scope(tag, seen)
        visible[tag] = None if seen is None else len(seen)
    services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = 'open'", space=MAIN)
    modes: dict[str, Callable[[str], Any]] = {}
    for tag, scope in scopes.items():
        modes |= {
            f"fused[{tag}]": lambda q, s=scope: retrieval.search(s, q, ["interaction"], None, k=10),
            f"agent[{tag}]": lambda q, s=scope: retrieval.agent().run(q, s, POLICIES["heuristic"]()),
            f"vector[{tag}]": lambda q, s=scope: tools["message_vector"].search(s, q, k=10),
            f"vector_legacy[{tag}]": lambda q, s=scope: legacy_v.search(s, q, k=10),
            f"fulltext[{tag}]": lambda q, s=scope: tools["message_fulltext"].search(s, q, k=10),
            f"fulltext_legacy[{tag}]": lambda q, s=scope: legacy_f.search(s, q, k=10),
            f"sparse[{tag}]": lambda q, s=scope: tools["message_sparse"].search(s, q, k=10),
            f"numpy_exact[{tag}]": lambda q, t=tag: base.numpy(t, np.asarray(retrieval.embed(q), np.float32)),
            f"bm25s[{tag}]": lambda q, t=tag: base.bm25(t, q),
        }
    modes = {name: run for name, run in modes.items() if not name.startswith(skip)}
    timed = qs[: warm + n]
    retrieval.embed.prime(timed)
    for q in timed:
        tools["message_sparse"].sparse(q)  # type: ignore[misc]
    # each scope carries its access policy (resolved above); tools pass it to Cypher as given
    times: dict[str, list[float]] = {name: [] for name in modes}
    times["query_embedding"] = []
    rng = random.Random(11)
    with lock() as held:
        loadavg_start, started = list(os.getloadavg()), time.perf_counter()
        for i, q in enumerate(timed):
            if budget_s is not None and i > warm and time.perf_counter() - started > budget_s:
                break
            order = list(modes)
            rng.shuffle(order)
            for name in order:
                t = time.perf_counter()
                modes[name](q)
                if i >= warm:
                    times[name].append((time.perf_counter() - t) * 1000)
            fresh = f"{q} ({i})"  # new to every cache: the encoder's own latency
            t = time.perf_counter()
            services.embedder.embed_queries([fresh])
            if i >= warm:
                times["query_embedding"].append((time.perf_counter() - t) * 1000)
            print(f"  question {i + 1} / {len(timed)}, {time.perf_counter() - started:.0f} s", flush=True)
        seconds, loadavg_end = round(time.perf_counter() - started, 1), list(os.getloadavg())
    return {
        "loadavg_timed": [loadavg_start, loadavg_end],
        "asker": asker,
        "visible": visible,
        "skipped": list(skip),
        "timed_seconds": seconds,
        "quiet": held,
        "modes": {k: _pct(v) for k, v in times.items() if v},
    }


PLOTTED = (
    "fused",
    "agent",
    "vector",
    "vector_legacy",
    "fulltext",
    "fulltext_legacy",
    "sparse",
    "numpy_exact",
    "bm25s",
)


def plot(report: dict[str, Any], path: Path) -> None:
    """p95 against store size: one panel per scope (open, the selective participant scope and
    private), the shipped queries solid, their pre-0007 forms dashed, baselines dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted((s for s in report["sizes"] if "latency" in report["sizes"][s]), key=int)
    scopes = ("open", "participant+asker", "private+asker")
    fig, axes = plt.subplots(1, len(scopes), figsize=(16, 5), sharey=True)
    colours = plt.get_cmap("tab10")
    for ax, scope in zip(axes, scopes, strict=True):
        for mode in (*PLOTTED, "query_embedding"):
            name = mode if mode == "query_embedding" else f"{mode}[{scope}]"
            xs = [int(s) for s in sizes if name in report["sizes"][s]["latency"]["modes"]]
            ys = [report["sizes"][str(x)]["latency"]["modes"][name]["p95"] for x in xs]
            style = (
                "--"
                if "legacy" in mode
                else ":"
                if mode in ("numpy_exact", "bm25s", "query_embedding")
                else "-"
            )
            base = mode.removesuffix("_legacy")
            colour = colours(([*PLOTTED, "query_embedding"].index(base)) % 10)
            ax.plot(xs, ys, style, marker="o", color=colour, label=mode)
        ax.axhline(150, color="grey", lw=0.8, ls=":")
        for s in sizes:  # each point is its own run: its load average and commit under it
            entry = report["sizes"][s]
            commit = entry.get("provenance", {}).get("commit", "?")
            ax.annotate(
                f"load {entry['loadavg_before_queries'][0]:.1f}\n{commit}",
                (int(s), 0.02),
                xycoords=("data", "axes fraction"),
                ha="center",
                fontsize=7,
                color="grey",
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("messages in the store")
        ax.set_title(f"p95, scope {scope}")
    axes[0].set_ylabel("p95 ms (150 ms target dotted)")
    axes[-1].legend(fontsize=7)
    loads = [report["sizes"][s]["loadavg_before_queries"][0] for s in sizes]
    fig.suptitle(
        f"bench.scale: {report['cores']} cores shared, load average {min(loads):.0f}-{max(loads):.0f}"
        " (each size a separate run: compare within a size, not across)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _plan_lines(plan: Any, depth: int = 0) -> list[str]:
    args = plan.get("args", {})
    detail = str(args.get("Details", ""))[:110].replace("\n", " ")
    line = (
        f"{'  ' * depth}{plan['operatorType'].split('@')[0]:<34} rows {int(args.get('Rows', 0)):>7}"
        f"  db hits {int(args.get('DbHits', 0)):>8}  {detail}"
    )
    return [line] + [ln for child in plan.get("children", []) for ln in _plan_lines(child, depth + 1)]


def _db_hits(plan: Any) -> int:
    return int(plan.get("args", {}).get("DbHits", 0)) + sum(_db_hits(c) for c in plan.get("children", []))


def profile(services: Voxmem, retrieval: RetrievalService, text: str) -> str:
    """PROFILE of the message vector and full-text queries, pre-0007 (legacy) and as shipped, in
    the main space under the open and the selective (participant + asker) scopes."""
    from voxmem.cypher import query as product_query

    asker = _asker(services)
    embedding = retrieval.embed(text)
    lucene = keyword_lucene(text)
    out = [f"PROFILE, {MAIN}, question {text!r}, {os.cpu_count()} cores, load average {os.getloadavg()}"]
    for name, param in (
        ("retrieve_messages_vector_legacy", "embedding"),
        ("retrieve_messages_vector", "embedding"),
        ("retrieve_messages_fulltext_legacy", "lucene"),
        ("retrieve_messages_fulltext", "lucene"),
    ):
        for policy, who in (("open", None), ("participant", asker)):
            params = {
                "space": MAIN,
                "access_policy": policy,
                "asker": who,
                "k": 10,
                "fetch": 200,
                "session": None,
                "speaker": None,
                "addressee": None,
                "ts_from": None,
                "ts_to": None,
                "lean": False,  # full rows, as the tools read them (cypher/rows/message.cypher)
                param: embedding if param == "embedding" else lucene,
                # the BM25 words and exhaustive read of retrieve_messages_fulltext (migration 0013)
                "query_text": " ".join(keyword_terms(text)),
                "exhaustive": MessageFulltextRetriever.exhaustive,
                "seek_sessions": MessageFulltextRetriever.seek_sessions,
            }
            with services.db.driver.session(database=services.db.database) as session:
                body = "\n".join(
                    ln for ln in product_query(name).splitlines() if not ln.lstrip().startswith("//")
                )
                head = "CYPHER 25 " if body.startswith("CYPHER 25") else ""  # the version comes first
                result = session.run(head + "PROFILE " + body.removeprefix("CYPHER 25").lstrip(), **params)
                rows = len(list(result))
                plan = result.consume().profile
            out.append(
                f"\n== {name}, {policy}{'' if who is None else '+asker'}: {rows} rows, "
                f"{_db_hits(plan)} db hits"
            )
            out += _plan_lines(plan)
    return "\n".join(out)


def drop(services: Voxmem) -> int:
    spaces = [
        r["id"]
        for r in services.db.query(
            "MATCH (s:Space) WHERE s.id STARTS WITH $prefix RETURN s.id AS id", prefix=PREFIX
        )
    ]
    total = sum(services.spaces.delete(s, batch=5000) for s in spaces)
    print(f"dropped {len(spaces)} spaces, {total} nodes")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="Total messages to measure at, ascending.")
    parser.add_argument("--queries", type=int, default=60, help="Timed questions per size.")
    parser.add_argument("--warm", type=int, default=8, help="Untimed warm-up questions per size.")
    parser.add_argument("--batch", type=int, default=1000, help="Messages per loader transaction.")
    parser.add_argument(
        "--budget", type=float, default=None, help="Seconds of timed questions at most (per size)."
    )
    parser.add_argument(
        "--skip", default="", help="Comma-separated mode-name prefixes to leave out (e.g. vector_legacy)."
    )
    parser.add_argument(
        "--quiet-lock",
        type=Path,
        default=None,
        help="Hold this lock file (waiting while it exists) during the timed questions only, at normal"
        " priority for this process and the Neo4j server; everything before runs at the caller's nice.",
    )
    parser.add_argument("--lock-name", default="bench.scale", help="Who holds --quiet-lock (its text).")
    parser.add_argument(
        "--load-only",
        action="store_true",
        help="Load up to each size without measuring (run it at nice 19; measure later with the same"
        " --sizes: the load history is kept beside the store and reported with the point).",
    )
    parser.add_argument(
        "--writers",
        type=int,
        choices=(1, 2),
        default=1,
        help="Loader threads: 2 writes the main space and the other spaces at the same time.",
    )
    parser.add_argument(
        "--yield-to",
        type=Path,
        default=None,
        help="While this file exists (the shared quiet lock), the loader starts no batch.",
    )
    parser.add_argument("--drop", action="store_true", help="Delete every scale space and exit.")
    parser.add_argument("--plot", action="store_true", help="Redraw scale.png from scale.json and exit.")
    parser.add_argument(
        "--profile", action="store_true", help="PROFILE the message queries (loaded store) and exit."
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.plot:
        plot(json.loads((args.out / "scale.json").read_text()), args.out / "scale.png")
        return 0
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    settings = Settings()
    services = Voxmem.build(settings)
    services.start()
    try:
        if args.drop:
            drop(services)
            return 0
        retrieval = RetrievalService(settings, services.db, services.embedder, chat_model=None)
        if args.profile:
            text = questions()[0]
            report_text = profile(services, retrieval, text)
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "profile.txt").write_text(report_text + "\n")
            print(report_text)
            return 0
        out_json = args.out / "scale.json"
        report: dict[str, Any] = json.loads(out_json.read_text()) if out_json.exists() else {}
        report |= {
            "cores": os.cpu_count(),
            "neo4j": services.db.ping(),
            "sizes": report.get("sizes", {}),
            "corpus": "real LoCoMo + FriendsQA dev turns, units copied across spaces (see bench/scale.py)",
        }
        all_units = units()
        vec = Vectors(services, all_units)
        report["unique_passages"] = len(vec.passages)
        layout = Layout(services, all_units, vec, args.batch, args.writers, args.yield_to)
        qs = questions()
        home = settings.resolved_neo4j_home(settings.neo4j_version)
        provenance = _provenance(settings, argv)
        for size in [int(s) for s in args.sizes.split(",") if s]:
            print(f"size {size:,}: cores {os.cpu_count()}, load average {os.getloadavg()}")
            entry: dict[str, Any] = {"loadavg_before_load": list(os.getloadavg())}
            before = layout.total
            entry["load"] = layout.grow(size)
            if entry["load"]["written"]:
                segment = {"from": before, "to": layout.total, **entry["load"], **provenance}
                segment["loadavg_before"], segment["loadavg_after"] = (
                    entry["loadavg_before_load"],
                    list(os.getloadavg()),
                )
                with _load_log(home).open("a") as log:
                    log.write(json.dumps(segment) + "\n")
            if args.load_only:
                gb = _du(home / "data") / 1e9
                print(f"loaded {layout.total:,} messages: {entry['load']}, store {gb:.2f} GB")
                continue
            history = _load_log(home)
            entry["load_history"] = (
                [json.loads(line) for line in history.read_text().splitlines()] if history.exists() else []
            )
            entry["provenance"] = provenance
            entry["messages"] = layout.total
            entry["main_space_messages"] = layout.counts.get(MAIN, 0)
            entry["spaces"] = len(layout.counts)
            pid = _neo4j_pid(home)
            minutes = (args.budget or 600) / 60 + 3  # warm-up questions and the closing question
            entry["latency"] = measure(
                services,
                retrieval,
                qs,
                args.queries,
                args.warm,
                budget_s=args.budget,
                skip=tuple(m for m in args.skip.split(",") if m),
                lock=functools.partial(quiet, args.quiet_lock, args.lock_name, minutes, pid),
            )
            entry["loadavg_before_queries"], entry["loadavg_after"] = entry["latency"]["loadavg_timed"]
            entry["store_bytes"] = _du(home / "data")
            entry["rss_mb"] = {"neo4j": _rss_mb(pid) if pid else None, "bench": _rss_mb(os.getpid())}
            report["sizes"][str(layout.total)] = entry
            args.out.mkdir(parents=True, exist_ok=True)
            out_json.write_text(json.dumps(report, indent=1))
            plot(report, args.out / "scale.png")
            print_entry(layout.total, entry)
    finally:
        services.close()
    return 0


def print_entry(size: int, entry: dict[str, Any]) -> None:
    lat = entry["latency"]
    print(
        f"\n{size:,} messages ({entry['spaces']} spaces, main {entry['main_space_messages']:,}); load "
        f"{entry['load']}; store {entry['store_bytes'] / 1e9:.2f} GB; RSS MB {entry['rss_mb']}; "
        f"load average {entry['loadavg_before_queries']} -> {entry['loadavg_after']}; "
        f"visible {lat['visible']}"
    )
    print(f"{'mode':44} {'p50':>8} {'p95':>8} {'p99':>8}")
    for name, v in sorted(lat["modes"].items()):
        print(f"{name:44} {v['p50']:>8} {v['p95']:>8} {v['p99']:>8}")
    print("median of p50s:", statistics.median(v["p50"] for v in lat["modes"].values()))


if __name__ == "__main__":
    raise SystemExit(main())
