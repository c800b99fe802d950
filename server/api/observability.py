"""Request ids, structured access logs and Prometheus metrics (``GET /metrics``).

Every request gets an id: the caller's ``X-Request-ID`` when it is a sane token, else a new
one; it is echoed in the response header, put on every log record emitted while the request
runs (``record.request_id``) and written in one JSON access-log line per request
(logger ``voxmem.access``). Metrics are per route *template* (``/spaces/{space}/query``), never
per raw path, so a space or message id cannot blow up the label set.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID = contextvars.ContextVar("voxmem_request_id", default="-")
_VALID_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
access_log = logging.getLogger("voxmem.access")

# Requests whose latency is an ingestion or retrieval timing, by route template.
OPERATIONS = {
    ("POST", "/spaces/{space}/sessions/{session}/turns"): "ingest_text_turn",
    ("POST", "/spaces/{space}/sessions/{session}/audio-turns"): "ingest_audio_turn",
    ("POST", "/spaces/{space}/sessions/{session}/recordings"): "ingest_recording_upload",
    ("POST", "/spaces/{space}/query"): "retrieval_query",
    ("POST", "/spaces/{space}/retrieve"): "retrieval_search",
    ("GET", "/spaces/{space}/retrieve/profile/{participant}"): "retrieval_profile",
    ("GET", "/spaces/{space}/search"): "retrieval_message_search",
}
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


def _stamp_request_ids() -> None:
    """Every log record gets ``request_id`` (use ``%(request_id)s`` in a log format): the id of
    the request being served, ``-`` outside one. Installed once per process."""
    factory = logging.getLogRecordFactory()
    if getattr(factory, "voxmem_request_id", False):
        return

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        record.request_id = REQUEST_ID.get()
        return record

    make.voxmem_request_id = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(make)


class Metrics:
    """The app's own registry (several apps in one process, as in tests, do not collide)."""

    def __init__(self, services: Callable[[], Any]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "voxmem_http_requests",
            "HTTP requests by method, route template and status code.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "voxmem_http_request_duration_seconds",
            "HTTP request latency by method and route template.",
            ["method", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.operations = Histogram(
            "voxmem_operation_duration_seconds",
            "Ingestion and retrieval timings (the whole request of that operation).",
            ["operation"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_StateCollector(services))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)
        operation = OPERATIONS.get((method, route))
        if operation is not None and status < 400:
            self.operations.labels(operation).observe(seconds)


class _StateCollector(Collector):
    """Read at scrape time: background jobs by state and the Neo4j driver's connection pool."""

    def __init__(self, services: Callable[[], Any]) -> None:
        self.services = services

    def collect(self) -> Iterator[GaugeMetricFamily]:
        svc = self.services()
        if svc is None:
            return
        jobs = GaugeMetricFamily("voxmem_jobs", "Background jobs of this process by state.", labels=["state"])
        counts = svc.jobs.counts()
        for state in ("queued", "running", "done", "failed", "interrupted"):
            jobs.add_metric([state], counts.get(state, 0))
        yield jobs
        pool = _pool_stats(svc.db.driver)
        if pool is not None:
            conns = GaugeMetricFamily(
                "voxmem_neo4j_pool_connections", "Neo4j driver connections by state.", labels=["state"]
            )
            conns.add_metric(["in_use"], pool["in_use"])
            conns.add_metric(["idle"], pool["idle"])
            yield conns
            yield GaugeMetricFamily(
                "voxmem_neo4j_pool_max", "Neo4j driver pool size limit.", value=pool["max"]
            )


def _pool_stats(driver: Any) -> dict[str, int] | None:
    """The neo4j driver has no public pool API; read its pool defensively (None if it changed)."""
    try:
        pool = driver._pool
        conns = [c for deque in pool.connections.values() for c in deque]
        in_use = sum(1 for c in conns if c.in_use)
        return {
            "in_use": in_use,
            "idle": len(conns) - in_use,
            "max": pool.pool_config.max_connection_pool_size,
        }
    except Exception:
        return None


class RequestContext:
    """Pure ASGI middleware (streaming responses such as job events pass through untouched)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _VALID_ID.match(given) else uuid.uuid4().hex
        token = REQUEST_ID.set(request_id)
        status = 500
        start = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - start
            route = _template(scope)
            self.metrics.observe(scope["method"], route, status, seconds)
            access_log.info(
                json.dumps(
                    {
                        "event": "request",
                        "request_id": request_id,
                        "method": scope["method"],
                        "route": route,
                        "status": status,
                        "ms": round(seconds * 1000, 1),
                    }
                )
            )
            REQUEST_ID.reset(token)


def _template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


def install(app: FastAPI) -> None:
    """Request ids, access log and ``/metrics`` on ``app`` (services read from ``app.state``)."""
    metrics = Metrics(lambda: getattr(app.state, "services", None))
    app.add_middleware(RequestContext, metrics=metrics)
    _stamp_request_ids()

    @app.get("/metrics", include_in_schema=False)
    def prometheus(_: Request) -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
