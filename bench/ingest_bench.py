"""Ingestion benchmark (issue 17, item 3): bulk import and the per-turn route, interleaved.

    nice -n 10 python -m bench.ingest_bench                     # defaults below
    nice -n 10 python -m bench.ingest_bench --rounds 3 --bulk-turns 200 --turns-per-client 3

Turns are real: the LoCoMo dev conversations in /work/shared/data (text, speaker, timestamp,
session), offline extraction (the default extractor), on the Neo4j of the current settings
(``source /work/bench-env.sh``: the shared main server). Each round measures, one after the
other in a fresh space each (so load changes hit every mode alike):

* **bulk** — ``TurnPipeline.import_turns`` (the batch path: one message transaction, batched
  MiniLM/SPLADE, memory derived in chunked transactions), messages/s including memory;
* **sequential** — the same kind of turns through ``TurnPipeline.append_text`` one by one
  (the per-turn path in process: the old way of loading a history), turns/s;
* **route, 1 and 8 clients** — ``POST /spaces/{space}/sessions/{session}/turns`` over HTTP
  (uvicorn in this process, the app of ``voxmem.api``), each client its own session, turns/s
  of the whole run, each client in a LoCoMo conversation of its own (other people; ``--same-people``
  puts all in one: the same two participants written by eight transactions at once deadlock
  and retry in Neo4j); **route-8-old** the same with model-call coalescing switched off (each
  request its own MiniLM/SPLADE calls, as before ``voxmem.embeddings.Coalescer``).

Reports medians over rounds, the bulk/sequential ratio per round, core count and the load
average around each measurement. Writes results/ingest/ingest.json and ingest.png.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import socket
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

DATA = Path("/work/shared/data/locomo/locomo_dev.json")
OUT = Path(__file__).resolve().parent.parent / "results" / "ingest"


@functools.cache
def _all_turns() -> tuple[Turn, ...]:
    """Every LoCoMo dev turn in conversation order (session ``c<conv>-s<n>``, timestamps a
    minute apart from the session's date)."""
    data = json.loads(DATA.read_text())
    turns: list[Turn] = []
    for c, conv in enumerate(data):
        talk = conv["conversation"]
        n = 1
        while f"session_{n}" in talk:
            start = _session_date(talk.get(f"session_{n}_date_time"))
            for i, t in enumerate(talk[f"session_{n}"]):
                turns.append(
                    Turn(
                        session=f"c{c}-s{n}",
                        speaker=t["speaker"],
                        text=t["text"],
                        ts=start + timedelta(minutes=i),
                        turn_id=t["dia_id"].replace(":", "-") + f"-c{c}",
                    )
                )
            n += 1
    return tuple(turns)


def locomo_turns(limit: int, offset: int = 0) -> list[Turn]:
    """``limit`` LoCoMo turns starting at ``offset`` (wrapping around)."""
    turns = _all_turns()
    return [turns[(offset + i) % len(turns)] for i in range(limit)]


def conversation_starts() -> list[int]:
    """Index of each LoCoMo conversation's first turn in :func:`locomo_turns`' order."""
    turns = _all_turns()
    return [
        i
        for i, t in enumerate(turns)
        if i == 0 or turns[i - 1].session.split("-")[0] != t.session.split("-")[0]
    ]


SAME_PEOPLE = False


def _session_date(text: str | None) -> datetime:
    try:
        return datetime.strptime(text or "", "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return datetime(2023, 5, 1, tzinfo=UTC)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Space:
    """A fresh benchmark space, deleted afterwards."""

    def __init__(self, svc: Voxmem, tag: str) -> None:
        self.svc = svc
        self.id = f"bench-ingest-{tag}-{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> str:
        self.svc.spaces.create(self.id, "participant")
        return self.id

    def __exit__(self, *exc: object) -> None:
        self.svc.spaces.delete(self.id)


class RetryCounter(logging.Handler):
    """Counts the Neo4j driver's transaction retries (its ``neo4j.session`` warnings), by cause:
    a deadlock between concurrent turns costs a retry of ~1 s each."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.deadlocks = 0
        self.other = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "will be retried" not in message:
            return
        if "Deadlock" in message:
            self.deadlocks += 1
        else:
            self.other += 1


RETRIES = RetryCounter()
logging.getLogger("neo4j.session").addHandler(RETRIES)


# Stages timed inside a mode (seconds, wall): the two models' ONNX/torch runs (MiniLM ``_pool``,
# SPLADE ``_weights``), what their encode calls spend around them (tokenising, padding, pooling,
# term selection), and the extractor; the rest of a mode's time is Neo4j and the pipeline's Python.
STAGES = ("minilm", "splade", "tokenize_pool", "extract")


class Work:
    """What a mode costs besides wall time: Cypher statements sent (every ``tx.run`` of the
    product goes through the driver's ``ManagedTransaction.run``) and seconds per stage
    (:data:`STAGES`); the model seconds per message are the floor no transaction batching can
    go below."""

    def __init__(self) -> None:
        self.statements = 0
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self._lock = threading.Lock()

    @property
    def model_s(self) -> float:
        return self.seconds["minilm"] + self.seconds["splade"]

    def install(self, svc: Voxmem) -> None:
        import neo4j

        import voxmem.embeddings as emb

        run = neo4j.ManagedTransaction.run

        def counted_run(tx: Any, *args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self.statements += 1
            return run(tx, *args, **kwargs)

        neo4j.ManagedTransaction.run = counted_run  # type: ignore[method-assign]
        emb._pool = self._timed(emb._pool, "minilm")
        emb.SparseEncoder._weights = self._timed(emb.SparseEncoder._weights, "splade")  # type: ignore[method-assign]
        # whole encode calls, minus the model runs inside them (subtracted in ``stages``)
        # (the coalescer holds the bound method it was built with; Uncoalesced calls _encode)
        for model in (svc.embedder, svc.sparse):
            model._batched._run = self._timed(model._batched._run, "tokenize_pool")  # type: ignore[assignment]
            model._encode = self._timed(model._encode, "tokenize_pool")  # type: ignore[method-assign]
        extractor = svc.memory.extractor
        extractor.extract = self._timed(extractor.extract, "extract")  # type: ignore[method-assign]

    def stages(self, before: dict[str, float]) -> dict[str, float]:
        """Seconds per stage since ``before`` (a copy of ``seconds``)."""
        out = {k: self.seconds[k] - before[k] for k in STAGES}
        out["tokenize_pool"] -= out["minilm"] + out["splade"]
        return {k: round(v, 3) for k, v in out.items()}

    def _timed(self, fn: Callable[..., Any], stage: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds[stage] += time.perf_counter() - t0

        return timed


WORK = Work()


def measure(name: str, run: Callable[[], int]) -> dict[str, Any]:
    before = load()
    deadlocks, other = RETRIES.deadlocks, RETRIES.other
    statements, model_s, stages = WORK.statements, WORK.model_s, dict(WORK.seconds)
    t0 = time.perf_counter()
    n = run()
    seconds = time.perf_counter() - t0
    row = {"mode": name, "n": n, "seconds": round(seconds, 2), "per_s": round(n / seconds, 3)}
    row |= {"statements": WORK.statements - statements, "model_s": round(WORK.model_s - model_s, 2)}
    row["stages_s"] = WORK.stages(stages)
    row["stages_s"]["neo4j_and_rest"] = round(seconds - sum(row["stages_s"].values()), 3)
    row |= {"load_before": before, "load_after": load()}
    row |= {"deadlock_retries": RETRIES.deadlocks - deadlocks, "other_retries": RETRIES.other - other}
    after = row["load_after"][0]
    print(
        f"  {name:<12} {n:5d} turns  {seconds:8.1f} s  {row['per_s']:8.2f}/s  load {before[0]} -> {after}"
        f"  deadlock retries {row['deadlock_retries']}  statements {row['statements']}"
        f"  model {row['model_s']} s",
        flush=True,
    )
    return row


def bulk(svc: Voxmem, turns: list[Turn]) -> int:
    with Space(svc, "bulk") as space:
        result = svc.pipeline.import_turns(space, turns)
        assert result.stored == len(turns) and not result.pending, result.as_dict()
        return result.derived


def sequential(svc: Voxmem, turns: list[Turn]) -> int:
    with Space(svc, "seq") as space:
        for turn in turns:
            svc.pipeline.append_text(space, turn)
        return len(turns)


def route(svc: Voxmem, base_url: str, clients: int, per_client: int, offset: int) -> int:
    """``clients`` threads, each posting ``per_client`` consecutive LoCoMo turns to its own session."""
    with Space(svc, f"route{clients}") as space:
        key = svc.spaces.issue_key(space, label="bench").key
        errors: list[str] = []

        def client(k: int) -> None:
            # client k talks in a conversation of its own (LoCoMo has 7, other people each), as
            # concurrent clients of one server mostly do; SAME_PEOPLE puts all in conversation 0
            starts = conversation_starts()
            start = 0 if SAME_PEOPLE else starts[k % len(starts)]
            turns = locomo_turns(per_client, start + offset + 40 * k)
            with httpx.Client(base_url=base_url, timeout=600.0) as http:
                for i, t in enumerate(turns):
                    body = {"speaker": t.speaker, "text": t.text, "turn_id": f"k{k}-{i}"}
                    body["ts"] = t.ts.isoformat() if t.ts else None
                    r = http.post(
                        f"/spaces/{space}/sessions/client-{k}/turns",
                        json=body,
                        headers={"Authorization": f"Bearer {key}"},
                    )
                    if r.status_code != 201:
                        errors.append(f"{r.status_code} {r.text[:200]}")

        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise RuntimeError(f"{len(errors)} turn(s) refused: {errors[:3]}")
        return clients * per_client


class Uncoalesced:
    """The model calls as before coalescing (each caller runs its own model call), to measure
    the per-turn route old and new interleaved in one process."""

    def __init__(self, svc: Voxmem) -> None:
        self.models: list[Any] = [svc.embedder, svc.sparse]

    def __enter__(self) -> None:
        for model in self.models:
            model._saved = model._batched
            model._batched = lambda texts, m=model: list(m._encode(list(texts)))

    def __exit__(self, *exc: object) -> None:
        for model in self.models:
            model._batched = model._saved


def route_uncoalesced(svc: Voxmem, base_url: str, clients: int, per_client: int, offset: int) -> int:
    with Uncoalesced(svc):
        return route(svc, base_url, clients, per_client, offset)


def serve(svc: Voxmem) -> tuple[str, Callable[[], None]]:
    """The HTTP app on a free loopback port, in a thread of this process."""
    import uvicorn

    from voxmem.api.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(services=svc), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)

    def stop() -> None:
        server.should_exit = True
        thread.join(10)

    return f"http://127.0.0.1:{port}", stop


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(result["medians"])
    fig, ax = plt.subplots(figsize=(7, 4))
    medians = [result["medians"][m] for m in modes]
    ax.bar(modes, medians, color=["#3b7dd8", "#999999", "#e08a2c", "#d8553b", "#bbbbbb"][: len(modes)])
    for i, m in enumerate(modes):
        points = [r["per_s"] for r in result["runs"] if r["mode"] == m]
        ax.scatter([i] * len(points), points, color="black", s=12, zorder=3)
        ax.annotate(f"{result['medians'][m]:.2f}", (i, result["medians"][m]), ha="center", va="bottom")
    ax.set_ylabel("turns (messages) per second, with memory")
    ax.set_yscale("log")
    ax.set_title(
        f"voxmem ingestion, {result['cores']} cores, load {result['load_start'][0]}-{result['load_end'][0]} "
        f"(median of {result['rounds']} rounds)",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bulk-turns", type=int, default=200)
    parser.add_argument("--sequential-turns", type=int, default=12)
    parser.add_argument("--turns-per-client", type=int, default=3)
    parser.add_argument("--clients", default="1,8")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--no-old-route",
        dest="old_route",
        action="store_false",
        help="skip the route without model-call coalescing",
    )
    parser.add_argument(
        "--same-people",
        action="store_true",
        help="every route client in the same conversation (same two people)",
    )
    args = parser.parse_args()
    global SAME_PEOPLE
    SAME_PEOPLE = args.same_people
    logging.basicConfig(level=logging.WARNING)

    settings = Settings()
    svc = Voxmem.build(settings)
    WORK.install(svc)
    svc.start()
    svc.sparse.warm_up()
    base_url, stop = serve(svc)
    clients = [int(c) for c in args.clients.split(",") if c]
    result: dict[str, Any] = {
        "command": "python -m bench.ingest_bench " + " ".join(f"{k}={v}" for k, v in vars(args).items()),
        "cores": os.cpu_count(),
        "load_start": load(),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "neo4j": settings.neo4j_uri,
        "extractor": svc.memory.extractor.name,
        "stored_vectors": svc.embedder.backend,
        "splade": svc.sparse.backend,
        "data": "LoCoMo dev (real turns)",
        "rounds": args.rounds,
        "runs": [],
    }
    print(
        f"cores {result['cores']}, load average {result['load_start']}, extractor {result['extractor']}, "
        f"stored vectors {svc.embedder.backend}, SPLADE {svc.sparse.backend}",
        flush=True,
    )
    try:
        # warm-up: every path once, untimed (model first calls, query plans)
        bulk(svc, locomo_turns(10, 3000))
        sequential(svc, locomo_turns(2, 3100))
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", flush=True)
            offset = 400 * r
            bulk_turns = locomo_turns(args.bulk_turns, offset)
            seq_turns = locomo_turns(args.sequential_turns, offset)
            runs = [measure("bulk", lambda t=bulk_turns: bulk(svc, t))]
            runs.append(measure("sequential", lambda t=seq_turns: sequential(svc, t)))
            for c in clients:
                runs.append(
                    measure(
                        f"route-{c}", lambda c=c, o=offset: route(svc, base_url, c, args.turns_per_client, o)
                    )
                )
            if args.old_route:
                c = max(clients)
                runs.append(
                    measure(
                        f"route-{c}-old",
                        lambda c=c, o=offset: route_uncoalesced(svc, base_url, c, args.turns_per_client, o),
                    )
                )
            for row in runs:
                row["round"] = r
            result["runs"] += runs
    finally:
        stop()
        svc.close()
    modes = list(dict.fromkeys(row["mode"] for row in result["runs"]))
    result["medians"] = {
        m: statistics.median(r["per_s"] for r in result["runs"] if r["mode"] == m) for m in modes
    }
    per_round = {
        r: {row["mode"]: row["per_s"] for row in result["runs"] if row["round"] == r}
        for r in range(args.rounds)
    }
    bulk_rows = [r for r in result["runs"] if r["mode"] == "bulk"]
    result["bulk_statements_median"] = statistics.median(r["statements"] for r in bulk_rows)
    # the floor: model inference alone, per message, in the bulk runs (2 cores, this load)
    per_msg = [1000 * r["model_s"] / r["n"] for r in bulk_rows]
    result["bulk_model_ms_per_msg_median"] = statistics.median(per_msg)
    # where a bulk message's time goes, ms per message per stage (medians over rounds)
    result["bulk_stage_ms_per_msg_median"] = {
        k: round(statistics.median(1000 * r["stages_s"][k] / r["n"] for r in bulk_rows), 2)
        for k in bulk_rows[0]["stages_s"]
    }
    result["ratio_bulk_over_sequential"] = statistics.median(
        v["bulk"] / v["sequential"] for v in per_round.values() if v.get("sequential")
    )
    olds = [m for m in modes if m.endswith("-old")]
    for old in olds:
        new = old.removesuffix("-old")
        ratios = [v[new] / v[old] for v in per_round.values() if v.get(old) and v.get(new)]
        result[f"ratio_{new}_over_old"] = statistics.median(ratios) if ratios else None
        print(f"{new} / {old} (median of per-round ratios): {result[f'ratio_{new}_over_old']:.2f}x")
    result["load_end"] = load()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ingest.json").write_text(json.dumps(result, indent=2) + "\n")
    plot(result, args.out / "ingest.png")
    print("medians (/s):", {m: round(v, 2) for m, v in result["medians"].items()})
    print(f"bulk / sequential (median of per-round ratios): {result['ratio_bulk_over_sequential']:.1f}x")
    print(
        f"bulk: {result['bulk_statements_median']} Cypher statements per {args.bulk_turns} turns, "
        f"model inference {result['bulk_model_ms_per_msg_median']:.1f} ms per message (medians)"
    )
    print("bulk ms per message by stage (medians):", result["bulk_stage_ms_per_msg_median"])
    print(f"cores {result['cores']}, load average start {result['load_start']}, end {result['load_end']}")
    print(f"wrote {args.out / 'ingest.json'} and ingest.png")


if __name__ == "__main__":
    main()
