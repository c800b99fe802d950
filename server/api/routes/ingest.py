"""Bulk ingestion: a history of text turns in one request (``voxmem.pipeline.batch``).

Thin: the body is validated by its schema (at most ``MAX_BATCH_TURNS`` turns, each with a
session and a turn id; a bad turn is a 422 and nothing is written), then one call on the
turn pipeline. The request body is bounded by the app's size limit (413).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, status

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import SPACE_ERRORS, TurnBatchIn, TurnBatchOut
from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

router = APIRouter(prefix="/spaces/{space}", tags=["conversation"], responses=SPACE_ERRORS)


@router.post(
    "/turns/batch",
    response_model=TurnBatchOut,
    status_code=status.HTTP_200_OK,
    summary="Import a batch of text turns with their memory (idempotent by turn_id)",
)
def import_turns(
    body: TurnBatchIn, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    turns = [
        Turn(
            session=t.session,
            speaker=t.speaker,
            text=t.text,
            addressees=t.addressees,
            ts=t.ts,
            turn_id=t.turn_id,
        )
        for t in body.turns
    ]
    return svc.pipeline.import_turns(access.space, turns).as_dict()
