"""The FastAPI application: routes, error mapping and request-size limits."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from voxmem import __version__
from voxmem.api.docs import mount_docs
from voxmem.api.limits import BodySizeLimit
from voxmem.api.routes import admin, health, jobs, messages
from voxmem.api.routes import audio as audio_routes
from voxmem.api.routes import audit as audit_routes
from voxmem.api.routes import audit as audit_routes
from voxmem.api.routes import identity as identity_routes
from voxmem.api.routes import memory as memory_routes
from voxmem.api.routes import query as query_routes
from voxmem.config import Settings, get_settings
from voxmem.errors import VoxmemError
from voxmem.services import Services

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """Build the app; pass ``services`` to share already-started ones (tests)."""
    settings = settings or (services.settings if services else get_settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        svc = services or Services.build(settings)
        if owned:
            svc.start()
        app.state.services = svc
        try:
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
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)

    @app.exception_handler(VoxmemError)
    async def voxmem_error(_: Request, exc: VoxmemError) -> JSONResponse:
        content: dict = {"error": type(exc).__name__, "detail": exc.message}
        candidates = getattr(exc, "candidates", None)
        if candidates is not None:  # an ambiguous name lists who it could mean (ErrorOut)
            content["candidates"] = candidates
        return JSONResponse(status_code=exc.status_code, content=content)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        malformed = any(e.get("type") == "json_invalid" for e in errors)
        detail = [
            {"where": ".".join(str(p) for p in e.get("loc", ())), "problem": e.get("msg", "")} for e in errors
        ]
        return JSONResponse(
            status_code=400 if malformed else 422,
            content={"error": "MalformedJSON" if malformed else "InvalidInput", "detail": detail},
        )

    app.include_router(health.router)
    app.include_router(admin.router)
    app.include_router(audit_routes.router)
    app.include_router(audit_routes.router)
    app.include_router(messages.router)
    app.include_router(memory_routes.router)
    app.include_router(audio_routes.router)
    app.include_router(identity_routes.router)
    app.include_router(query_routes.router)
    app.include_router(jobs.router)
    return app
