"""The FastAPI application: routes, error mapping and request-size limits."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from voxmem import __version__
from voxmem.api.docs import describe_parameters, mount_docs
from voxmem.api.limits import BodySizeLimit, ErrorShield, JsonDepthLimit, framework_error
from voxmem.api.observability import install as install_observability
from voxmem.api.routes import admin, health, jobs, messages, portability
from voxmem.api.routes import audio as audio_routes
from voxmem.api.routes import audit as audit_routes
from voxmem.api.routes import browser as browser_routes
from voxmem.api.routes import identity as identity_routes
from voxmem.api.routes import ingest as ingest_routes
from voxmem.api.routes import memory as memory_routes
from voxmem.api.routes import query as query_routes
from voxmem.config import Settings, get_settings
from voxmem.core import Voxmem
from voxmem.errors import VoxmemError
from voxmem.mcp_server import build_mcp

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, services: Voxmem | None = None) -> FastAPI:
    """Build the app; pass ``services`` to share already-started ones (tests)."""
    settings = settings or (services.settings if services else get_settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        svc = services or Voxmem.build(settings)
        if owned:
            svc.start()
        app.state.services = svc
        try:
            async with mcp.session_manager.run():  # MCP sessions live as long as the app
                yield
        finally:
            if owned:
                svc.close()

    app = FastAPI(
        title="voxmem",
        version=__version__,
        description="Long-term memory for multi-party spoken conversations, kept in Neo4j.",
        lifespan=lifespan,
        docs_url=None,  # served from a local package by mount_docs (no CDN)
        redoc_url=None,
    )
    mount_docs(app)
    describe_parameters(app)
    # MCP over streamable HTTP at /mcp, one space per key (voxmem.mcp_server)
    mcp = build_mcp(lambda: app.state.services)
    mcp_routes = mcp.streamable_http_app(streamable_http_path="/mcp", host=settings.host).routes
    app.add_middleware(JsonDepthLimit)  # inside the size limit: the body it buffers is bounded
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(ErrorShield)  # any unexpected error is a JSON 500, connection kept
    install_observability(app)  # outermost: request id, access log and metrics see every answer

    @app.exception_handler(VoxmemError)
    async def voxmem_error(_: Request, exc: VoxmemError) -> JSONResponse:
        content: dict = {"error": type(exc).__name__, "detail": exc.message}
        candidates = getattr(exc, "candidates", None)
        if candidates is not None:  # an ambiguous name lists who it could mean (ErrorOut)
            content["candidates"] = candidates
        return JSONResponse(status_code=exc.status_code, content=content, headers=exc.headers or None)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        malformed = any(e.get("type") == "json_invalid" for e in errors)
        detail = [
            {"where": ".".join(str(p) for p in e.get("loc", ())), "problem": _problem(e)} for e in errors
        ]
        return JSONResponse(
            status_code=400 if malformed else 422,
            content={"error": "MalformedJSON" if malformed else "InvalidInput", "detail": detail},
        )

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        status, content = framework_error(exc.status_code, exc.detail, exc.__cause__)
        headers = exc.headers if status == exc.status_code else None
        return JSONResponse(status_code=status, content=content, headers=headers)

    app.include_router(health.router)
    app.include_router(admin.router)
    app.include_router(audit_routes.router)
    app.include_router(browser_routes.router)
    app.include_router(messages.router)
    app.include_router(ingest_routes.router)
    app.include_router(memory_routes.router)
    app.include_router(audio_routes.router)
    app.include_router(identity_routes.router)
    app.include_router(query_routes.router)
    app.include_router(jobs.router)
    app.include_router(portability.router)
    app.router.routes.extend(mcp_routes)
    return app


def _problem(error: dict) -> str:
    """One validation error in words; the two FastAPI wordings a client cannot act on made
    specific: a JSON decode error says where and why, and a body that is not a JSON object
    because it was sent without ``content-type: application/json`` (curl ``-d`` alone sends a
    form) says so instead of "Input should be a valid dictionary", and a form field sent as
    text where a file belongs says how to send the file ("Expected UploadFile" was all it said)."""
    if error.get("type") == "json_invalid" and (why := (error.get("ctx") or {}).get("error")):
        return f"{error.get('msg', '')}: {why}"
    if tuple(error.get("loc", ())) == ("body",) and isinstance(error.get("input"), bytes):
        return "the body must be a JSON object sent with 'content-type: application/json'"
    if "Expected UploadFile" in str(error.get("msg", "")):  # a form field where a file belongs
        field = error.get("loc", ("", ""))[-1]
        return f"'{field}' must be a file part of the multipart form (curl: -F '{field}=@turn.wav')"
    return str(error.get("msg", ""))
