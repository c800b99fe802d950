"""Export a space as JSON lines (space key or admin) and import one into a new space (admin)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request, status
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from voxmem.api.deps import SpaceAccess, require_admin, require_space, services
from voxmem.api.schemas import ADMIN_ERRORS, SPACE_ERRORS, ImportOut
from voxmem.core import Voxmem
from voxmem.portability import export_space, import_space

router = APIRouter(tags=["portability"])
NDJSON = "application/x-ndjson"


@router.get(
    "/spaces/{space}/export",
    summary="Export the space as JSON lines (participants, sessions, messages, facts with provenance, ...)",
    response_class=StreamingResponse,
    responses={
        **SPACE_ERRORS,
        200: {
            "description": "One header line, then one line per node and per relationship",
            "content": {NDJSON: {"schema": {"type": "string", "title": "JSON lines"}}},
        },
    },
)
async def export(
    voiceprints: bool = Query(False, description="Include voiceprints and speaker centroids."),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> StreamingResponse:
    lines = await run_in_threadpool(lambda: list(export_space(svc.db, svc.spaces, access.space, voiceprints)))
    filename = f"{access.space}.voxmem.jsonl"
    return StreamingResponse(
        iter(lines), media_type=NDJSON, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


@router.post(
    "/admin/spaces/{space}/import",
    response_model=ImportOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a space from an export file (the request body, JSON lines); all or nothing",
    dependencies=[Depends(require_admin)],
    responses=ADMIN_ERRORS,
    openapi_extra={"requestBody": {"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}}},
)
async def import_(space: str, request: Request, svc: Voxmem = Depends(services)) -> dict:
    body = await request.body()
    return await run_in_threadpool(import_space, svc.db, body.splitlines(), space)
