"""Schema fuzzing (schemathesis) of every documented route against a real HTTP server on
the real Neo4j: zero 5xx and every answer as documented (finding 10). Few examples per route,
so CI stays bounded; the caller's space and key are filled in, so requests reach the handlers
instead of 401/404."""

from __future__ import annotations

import socket
import sys
import threading
import time
import uuid

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from schemathesis.core.errors import SerializationNotPossible
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from voxmem.api.app import create_app

pytestmark = pytest.mark.integration

# Finding 10 also found 21 response-schema violations and 38 undocumented status codes: each
# answer is checked against the OpenAPI document too. (Schemathesis's "positive data acceptance"
# is not: a schema-valid upload that is not audio, or a session id outside the id rule, is
# rightly a documented 422.)
CONFORMANCE = [status_code_conformance, response_schema_conformance, content_type_conformance]


@pytest.fixture(scope="module")
def live_server(services):
    """uvicorn in a thread serving the app over the session's services (one lifespan)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def fuzz_space(services):
    space = f"fuzz-{uuid.uuid4().hex[:8]}"
    services.spaces.create(space, "participant")
    key = services.spaces.issue_key(space, label="fuzz").key
    yield space, key
    services.spaces.delete(space)


def _drop_broken_lazy_modules() -> None:
    """Hypothesis reads ``__file__`` of every loaded module; speechbrain registers lazy modules
    for optional backends (k2_fsa) whose attribute access raises ImportError once an earlier
    test imported speechbrain. Such placeholders cannot be used anyway, so they are dropped."""
    for name, module in list(sys.modules.items()):
        try:
            getattr(module, "__file__", None)
        except ImportError:
            del sys.modules[name]


def test_no_server_error(live_server, fuzz_space) -> None:
    """Every operation, a few generated requests each; every 5xx is collected and reported."""
    space, key = fuzz_space
    _drop_broken_lazy_modules()
    schema = schemathesis.openapi.from_url(f"{live_server}/openapi.json")
    failures: list[str] = []
    skipped: list[str] = []
    calls = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
        def run(case) -> None:
            nonlocal calls
            if case.path_parameters and "space" in case.path_parameters:
                case.path_parameters["space"] = space
            response = case.call(headers={"Authorization": f"Bearer {key}"}, timeout=60)
            calls += 1
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:200]}"
                )
            try:  # every answer is documented: its status code, its body schema, its content type
                case.validate_response(response, checks=CONFORMANCE)
            except FailureGroup as found:
                failures.extend(f"{case.method} {case.formatted_path} -> {f}" for f in found.exceptions)

        try:
            run()
        except SerializationNotPossible:  # a body type schemathesis cannot build (ndjson import)
            skipped.append(operation.label)
    assert calls > 0
    assert failures == [], "\n".join(failures)
