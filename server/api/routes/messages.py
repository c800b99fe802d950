"""Space-scoped conversation routes: append turns, list and search messages."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, status

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import ID_PATTERN, SPACE_ERRORS, MessageOut, SessionListOut, SpaceOut, TurnIn
from voxmem.core import Voxmem
from voxmem.stores.messages import Turn
from voxmem.stores.spaces import Space

router = APIRouter(prefix="/spaces/{space}", tags=["conversation"], responses=SPACE_ERRORS)


@router.get("", response_model=SpaceOut, summary="The space, its policy and size")
def get_space(access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)) -> Space:
    return svc.spaces.get(access.space)


@router.post(
    "/sessions/{session}/turns",
    response_model=MessageOut,
    status_code=status.HTTP_201_CREATED,
    summary="Append a text turn to a session (creates the session on first use)",
)
def append_turn(
    session: str,
    body: TurnIn,
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    turn = Turn(
        session=session,
        speaker=body.speaker,
        text=body.text,
        addressees=body.addressees,
        ts=body.ts,
        turn_id=body.turn_id,
    )
    return svc.pipeline.append_text(access.space, turn)


@router.get("/sessions", response_model=SessionListOut, summary="Sessions, latest first, with size and span")
def list_sessions(
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    return {"sessions": svc.messages.sessions(access.space, limit)}


@router.get("/messages", response_model=list[MessageOut], summary="List messages, filtered")
def list_messages(
    session: str | None = Query(None, pattern=ID_PATTERN),
    speaker: str | None = Query(None, max_length=200, description="Participant id or name."),
    addressee: str | None = Query(None, max_length=200, description="Participant id or name."),
    skip: int = Query(0, ge=0, le=1_000_000_000),
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> list[dict]:
    return svc.messages.list(access.space, session, speaker, addressee, skip, limit)


@router.get("/messages/{message_id}", response_model=MessageOut, summary="One message")
def get_message(
    message_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.messages.get(access.space, message_id)


@router.get("/search", response_model=list[MessageOut], summary="Hybrid search: full-text + vector, RRF")
def search(
    q: str = Query(min_length=1, max_length=2000),
    k: int = Query(10, ge=1, le=100),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> list[dict]:
    return svc.messages.search(access.space, q, k)
