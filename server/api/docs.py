"""Swagger UI served from the ``swagger-ui-bundle-v2`` package, so ``/docs`` works offline, and
one glossary of the parameters every route shares.

FastAPI's default page loads its JavaScript and CSS from a CDN; a server without internet
(the usual case for a local memory server) then shows a blank page.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/docs-assets"


def mount_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) with its assets under ``/docs-assets``; build the app with
    ``docs_url=None`` so FastAPI's CDN page is not registered too."""
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — API",
            oauth2_redirect_url="/docs/oauth2-redirect",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()


# What each shared path or query parameter means, said once: the routes name ``space``, ``limit``
# and the rest in dozens of places, and the docs showed most of them with no word at all (what
# ``participant`` takes, what ``k`` counts). A route's own description wins over this one.
PARAMETERS: dict[str, str] = {
    "space": "Space id (letters, digits, '_', '.', ':', '-'; up to 128); a space key opens only its space.",
    "session": "Session id, chosen by the caller (same characters as a space id); a new id starts a session.",
    "message_id": "Message id as the API returned it (`id` of a turn).",
    "participant": "A participant id (`p_...`) or a name as spoken (any case).",
    "participant_id": "A participant id (`p_...`), as listed by /speakers or a turn's `speaker.id`.",
    "speaker_id": "A voice's id (`spk_...`), as listed by GET /spaces/{space}/speakers.",
    "job_id": "Job id returned when the job was submitted.",
    "key_id": "Key id (`key_...`) returned when the key was issued; the secret itself is never needed.",
    "skip": "Rows to skip before the first one returned (paging).",
    "limit": "Most rows returned.",
    "k": "Most results returned.",
    "q": "Words to search for in turns (full text and meaning).",
    "slot": "Only facts of this slot (e.g. `checkout_time`), as a fact's `slot` shows it.",
    "kind": "Only attributes of this kind.",
    "history": "Include superseded values (no longer current) as well.",
    "current_only": "Only current attributes, without the ones later turns superseded.",
    "resolved": "true: only resolved audit items; false: only open ones; absent: both.",
    "status": "Only jobs in this state.",
    "policy": "Override the space's speaker routing policy for this call (fixed|ema|gated|knn).",
    "speaker": "Only turns spoken by this participant (id or name).",
    "addressee": "Only turns addressed to this participant (id or name).",
    "person": "The person the Browser guide's person slides show: a name as spoken (any case) or an id.",
    "contains": "The word the Browser guide's fact-sources slide looks for in facts.",
}


def describe_parameters(app: FastAPI) -> None:
    """Let the app's OpenAPI schema carry :data:`PARAMETERS` for every parameter without a
    description of its own. FastAPI builds the schema once and caches it; filling is idempotent."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                for parameter in operation.get("parameters", []):
                    meaning = PARAMETERS.get(parameter["name"])
                    if meaning and not parameter.get("description"):
                        parameter["description"] = meaning
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
