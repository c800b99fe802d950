"""Request ids (in/out, in the JSON access log and on log records) and /metrics in Prometheus format."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families


def _samples(client: TestClient) -> dict[tuple[str, tuple], float]:
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def test_request_id_in_and_out_and_in_the_access_log(
    app_client: TestClient, space: str, space_headers: dict, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="voxmem.access"):
        given = app_client.get(f"/spaces/{space}", headers={**space_headers, "X-Request-ID": "trace-42"})
        fresh = app_client.get(f"/spaces/{space}", headers=space_headers)
        weird = app_client.get(f"/spaces/{space}", headers={**space_headers, "X-Request-ID": "a b\tc"})
    assert given.headers["x-request-id"] == "trace-42"
    assert len(fresh.headers["x-request-id"]) == 32 and fresh.headers["x-request-id"] != "trace-42"
    assert weird.headers["x-request-id"] != "a b\tc"  # not echoed into logs verbatim
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "voxmem.access"]
    mine = [line for line in lines if line["request_id"] == "trace-42"]
    assert mine and mine[0]["route"] == "/spaces/{space}" and mine[0]["status"] == 200
    assert all(r.request_id == "trace-42" for r in caplog.records if "trace-42" in r.getMessage())


def test_metrics_count_requests_per_route_template_and_time_operations(
    app_client: TestClient, space: str, space_headers: dict
) -> None:
    before = _samples(app_client)
    turn = app_client.post(
        f"/spaces/{space}/sessions/s1/turns",
        json={"speaker": "Maya", "text": "Pizza tonight?"},
        headers=space_headers,
    )
    assert turn.status_code == 201
    app_client.post(f"/spaces/{space}/query", json={"question": "What about tonight?"}, headers=space_headers)
    app_client.get(f"/spaces/{space}/messages/nope", headers=space_headers)
    after = _samples(app_client)

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    route = "/spaces/{space}/sessions/{session}/turns"
    assert delta("voxmem_http_requests_total", method="POST", route=route, status="201") == 1
    assert (
        delta(
            "voxmem_http_requests_total",
            method="GET",
            route="/spaces/{space}/messages/{message_id}",
            status="404",
        )
        == 1
    )
    assert delta("voxmem_http_request_duration_seconds_count", method="POST", route=route) == 1
    assert delta("voxmem_operation_duration_seconds_count", operation="ingest_text_turn") == 1
    assert delta("voxmem_operation_duration_seconds_count", operation="retrieval_query") == 1
    assert not any(space in str(labels) for _, labels in after)  # ids never become labels
    assert ("voxmem_jobs", (("state", "running"),)) in after
    assert after[("voxmem_neo4j_pool_max", ())] >= 1
