"""Audio routes: append a spoken turn, ingest a whole recording (background job), poll a
job, and identify the asker of a spoken question (read-only)."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile, status
from starlette.concurrency import run_in_threadpool

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import SPACE_ERRORS, AskerMatchOut, AudioTurnOut, JobOut
from voxmem.core import Voxmem
from voxmem.errors import InvalidInput
from voxmem.pipeline.turns import AudioTurn

router = APIRouter(prefix="/spaces/{space}", tags=["audio"], responses=SPACE_ERRORS)


async def _read(upload: UploadFile) -> bytes:
    raw = await upload.read()
    if not raw:
        raise InvalidInput("empty: the uploaded audio file has no bytes")
    return raw


@router.post(
    "/sessions/{session}/audio-turns",
    response_model=AudioTurnOut,
    status_code=status.HTTP_201_CREATED,
    summary="Append a spoken turn: voice → speaker routing, ASR → message (one transaction)",
)
async def append_audio_turn(
    session: str,
    audio: UploadFile = File(..., description="wav, flac, ogg or mp3; any rate; mono or stereo"),
    turn_id: str | None = Form(None, description="Caller's id; retries with it are idempotent."),
    ts: datetime | None = Form(None),
    policy: str | None = Form(None, description="Override the routing policy (fixed|ema|gated|knn)."),
    vocabulary: str | None = Form(
        None,
        description="Comma-separated names or words the ASR should expect (e.g. the household's "
        "names; at most 50, each at most 40 characters). A hint for spelling, never a speaker label.",
    ),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    turn = AudioTurn(
        session=session,
        audio=await _read(audio),
        ts=ts,
        turn_id=turn_id,
        policy=policy,
        audio_uri=audio.filename,
        vocabulary=tuple((vocabulary or "").split(",")),
    )
    return await run_in_threadpool(svc.pipeline.append_audio, access.space, turn)


@router.post(
    "/sessions/{session}/recordings",
    response_model=JobOut,
    status_code=status.HTTP_202_ACCEPTED,
    summary="Ingest a whole multi-speaker recording as a background job (poll /jobs/{id})",
)
async def ingest_recording(
    session: str,
    audio: UploadFile = File(...),
    recording_id: str = Form(
        ...,
        description="Caller's id for the recording: posting a finished one again is refused (409); "
        "posting one whose job was cut short (Neo4j outage, crash) resumes it.",
    ),
    started_at: datetime | None = Form(None, description="Wall-clock start of the recording."),
    policy: str | None = Form(None),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    raw = await _read(audio)
    job = svc.pipeline.submit_recording(
        access.space, session, recording_id, raw, started_at, policy, audio.filename
    )
    return job.view()


@router.get(
    "/jobs/{job_id}", response_model=JobOut, summary="Status, progress and result of a background job"
)
def get_job(
    job_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.jobs.get(access.space, job_id).view()


@router.post(
    "/asker",
    response_model=AskerMatchOut,
    summary="Who is asking? Read-only voice match: a participant or unknown",
)
async def identify_asker(
    audio: UploadFile = File(...),
    policy: str | None = Query(None),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    raw = await _read(audio)
    _, match = await run_in_threadpool(svc.pipeline.recognise, access.space, raw, policy)
    return match
