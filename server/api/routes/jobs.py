"""Background jobs of a space: list them, and follow one as server-sent events.

Polling ``GET /jobs/{id}`` (audio routes) still works; the event stream sends the same job
view each time its stage or progress changes, then ends when the job does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import SPACE_ERRORS, JobListOut, JobOut
from voxmem.core import Voxmem

router = APIRouter(prefix="/spaces/{space}/jobs", tags=["jobs"], responses=SPACE_ERRORS)

FINAL = ("done", "failed", "interrupted")


@router.get("", response_model=JobListOut, summary="Jobs of the space, newest first")
def list_jobs(
    status: Literal["queued", "running", "done", "failed", "interrupted"] | None = None,
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    return {"jobs": [j.view() for j in svc.jobs.list(access.space, status, limit)]}


@router.get(
    "/{job_id}/events",
    summary="Follow a job as server-sent events (one 'job' event per change, the last when it ends)",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "text/event-stream; each event's data is a JobOut",
            "content": {"text/event-stream": {"schema": JobOut.model_json_schema()}},
        }
    },
)
async def job_events(
    job_id: str,
    request: Request,
    interval: float = Query(0.25, ge=0.05, le=10.0, description="Seconds between checks."),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> StreamingResponse:
    jobs = svc.jobs
    jobs.get(access.space, job_id)  # 404 before the stream starts

    async def events() -> AsyncIterator[str]:
        last = None
        while True:
            view = (await asyncio.to_thread(jobs.get, access.space, job_id)).view()
            state = (view["status"], view["stage"], view["progress"])
            if state != last:
                last = state
                yield f"event: job\ndata: {json.dumps(view, default=str)}\n\n"
            if view["status"] in FINAL or await request.is_disconnected():
                return
            await asyncio.sleep(interval)

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
