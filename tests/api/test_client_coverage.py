"""The Python client has a method for every keyed route of the API (a new route without one fails)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

import voxmem.client

# Not for API clients: the Neo4j Browser guide and its style sheet (opened by Browser itself).
NOT_CLIENT_ROUTES = {("GET", "/browser/guide"), ("GET", "/browser/style.grass")}


def _norm(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def test_client_covers_every_route(app_client: TestClient) -> None:
    source = Path(voxmem.client.__file__).read_text()
    called = {
        (m, _norm(p))
        for m, p in re.findall(r'_Call\(\s*"(GET|POST|PUT|PATCH|DELETE)",\s*f?"([^"]*)"', source)
    }
    called |= {("GET", _norm(p)) for p in re.findall(r'stream\(\s*"GET",\s*f"([^"]*)"', source)}
    spec = app_client.get("/openapi.json").json()
    routes = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    missing = sorted(f"{m} {p}" for m, p in routes - NOT_CLIENT_ROUTES if (m, _norm(p)) not in called)
    assert not missing, missing
    assert len(routes) >= 38
