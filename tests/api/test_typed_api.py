"""Typed API (issue 15): every route declares a response model and the shared error model, and the
asker of /query, /retrieve and /retrieve/profile may be given by participant id or by name."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from voxmem.core import Voxmem


def _turn(client: TestClient, space: str, headers: dict, speaker: str, text: str, to: list[str]) -> dict:
    r = client.post(
        f"/spaces/{space}/sessions/s1/turns",
        json={"speaker": speaker, "text": text, "addressees": to},
        headers=headers,
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_every_route_has_a_typed_response_and_the_error_model(app_client: TestClient) -> None:
    spec = app_client.get("/openapi.json").json()
    untyped, no_errors = [], []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if path in ("/metrics",):  # Prometheus text, not JSON
                continue
            ok = [c for c in op["responses"] if c.startswith("2")]
            for code in ok:
                if code == "204":
                    continue
                content = op["responses"][code].get("content", {})
                if "application/json" in content:
                    schema = content["application/json"].get("schema") or {}
                    # a $ref to a component or a list of them (not a bare "object")
                    ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
                else:  # event streams, JSON lines, HTML, text: a declared media type with a schema
                    ref = any(c.get("schema") for c in content.values())
                if not ref:
                    untyped.append(f"{method.upper()} {path}")
            errors = [c for c in op["responses"] if c[0] in "45" and c != "422"]
            for code in errors:
                schema = op["responses"][code]["content"]["application/json"]["schema"]
                if schema.get("$ref") != "#/components/schemas/ErrorOut":
                    no_errors.append(f"{method.upper()} {path} {code}")
            if path.startswith(("/spaces", "/admin")) and not errors:  # the keyed routes
                no_errors.append(f"{method.upper()} {path}: no error responses")
    assert not untyped, untyped
    assert not no_errors, no_errors
    assert spec["components"]["schemas"]["ErrorOut"]["examples"]


def test_every_parameter_in_the_openapi_docs_says_what_it_takes(app_client: TestClient) -> None:
    """/docs listed 81 of 88 parameters (`space`, `participant`, `k`, `limit` ...) on 40 of 43
    routes: an agent could not tell that `participant` takes a name or an id, or what `k` counts.
    Shared names get their meaning from one glossary (voxmem.api.docs.PARAMETERS)."""
    spec = app_client.get("/openapi.json").json()
    bare = [
        f"{method.upper()} {path} {parameter['name']}"
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        for parameter in op.get("parameters", [])
        if not parameter.get("description", "").strip()
    ]
    assert not bare, bare
    profile = spec["paths"]["/spaces/{space}/participants/{participant}/profile"]["get"]["parameters"]
    assert "or a name" in next(p for p in profile if p["name"] == "participant")["description"]


def test_errors_have_one_shape(app_client: TestClient, space: str, space_headers: dict) -> None:
    missing = app_client.get(f"/spaces/{space}/messages/nope", headers=space_headers)
    invalid = app_client.post(f"/spaces/{space}/sessions/s1/turns", json={"text": "x"}, headers=space_headers)
    no_key = app_client.get(f"/spaces/{space}")
    for r, code in ((missing, 404), (invalid, 422), (no_key, 401)):
        assert r.status_code == code, r.text
        body = r.json()
        assert set(body) <= {"error", "detail", "candidates"} and body["error"] and body["detail"]


def test_asker_by_id_or_name_and_ambiguous_names_refused(
    app_client: TestClient, space: str, space_headers: dict, services: Voxmem
) -> None:
    maya = _turn(app_client, space, space_headers, "Maya", "Tom, the garage code is 4417.", ["Tom"])
    _turn(app_client, space, space_headers, "Tom", "Thanks Maya, got it.", ["Maya"])
    maya_id = maya["speaker"]["id"]
    base = f"/spaces/{space}"

    for asker in (maya_id, "Maya", "  maya "):
        r = app_client.post(
            f"{base}/retrieve", json={"text": "garage code", "asker": asker}, headers=space_headers
        )
        assert r.status_code == 200, r.text
        assert r.json()["scope"]["asker"] == maya_id
    r = app_client.post(
        f"{base}/query", json={"question": "What is the garage code?", "asker": "Tom"}, headers=space_headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["scope"]["asker_name"] == "Tom"
    r = app_client.get(f"{base}/retrieve/profile/Tom", params={"asker": "Maya"}, headers=space_headers)
    assert r.status_code == 200, r.text
    assert r.json()["scope"]["asker"] == maya_id

    unknown = app_client.post(f"{base}/retrieve", json={"text": "x", "asker": "Zed"}, headers=space_headers)
    assert unknown.status_code == 404 and unknown.json()["error"] == "NotFound"

    # Two people both called "Sam" by alias: the name is refused, with both listed.
    services.db.execute(
        "MATCH (p:Participant {space: $space}) SET p.aliases = coalesce(p.aliases, []) + ['sam']", space=space
    )
    r = app_client.post(f"{base}/query", json={"question": "code?", "asker": "Sam"}, headers=space_headers)
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["error"] == "AmbiguousName"
    assert sorted(c["name"] for c in body["candidates"]) == ["Maya", "Tom"]
    assert maya_id in body["detail"]
    # the exact name still wins over an alias
    r = app_client.post(f"{base}/retrieve", json={"text": "x", "asker": "maya"}, headers=space_headers)
    assert r.status_code == 200 and r.json()["scope"]["asker"] == maya_id


def test_the_api_doc_names_every_required_request_field_and_the_admin_key(app_client: TestClient) -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    api = doc[: doc.index("## Access scopes")]
    spec = app_client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    missing = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for content in op.get("requestBody", {}).get("content", {}).values():
                schema = content.get("schema", {})
                schema = schemas.get(schema.get("$ref", "").rsplit("/", 1)[-1], schema)
                for field in schema.get("required", []):
                    if f"**`{field}`**" not in api:
                        missing.append(f"{method.upper()} {path}: {field}")
            for param in op.get("parameters", []):
                if param["required"] and param["in"] == "query" and f"**`{param['name']}`**" not in api:
                    missing.append(f"{method.upper()} {path}: ?{param['name']}")
    assert not missing, missing
    assert "`voxmem-admin-dev-key`" in api and "VOXMEM_ADMIN_KEY" in api


def test_every_full_route_the_docs_name_exists(app_client: TestClient) -> None:
    """A route written in full in README or docs/ (``DELETE /spaces/{space}/…``) is one the
    server has: docs/security.md sent 'forget voice' to /spaces/{space}/voiceprints/{p}, a 404;
    the route is /spaces/{space}/speakers/voiceprints/{p}."""
    root = Path(__file__).resolve().parents[2]
    served = {
        (method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
        for path, ops in app_client.get("/openapi.json").json()["paths"].items()
        for method in ops
    }
    named = re.compile(r"`(GET|POST|DELETE|PUT|PATCH) (/(?:spaces|admin)/[^`\s?]*)")
    unknown = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for method, path in named.findall(doc.read_text()):
            if "…" not in path and (method, re.sub(r"\{[^}]*\}", "{}", path)) not in served:
                unknown.append(f"{doc.name}: {method} {path}")
    assert not unknown, unknown
