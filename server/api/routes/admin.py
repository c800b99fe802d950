"""Admin routes (admin key only): spaces and their API keys."""

from __future__ import annotations

from fastapi import APIRouter, Depends, status

from voxmem.api.deps import require_admin, services
from voxmem.api.schemas import KeyIn, KeyOut, SpaceIn, SpaceOut
from voxmem.services import Services

router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)])


@router.post(
    "/spaces", response_model=SpaceOut, status_code=status.HTTP_201_CREATED, summary="Create a space"
)
def create_space(body: SpaceIn, svc: Services = Depends(services)) -> dict:
    return svc.spaces.create(body.id, body.policy)


@router.delete("/spaces/{space}", summary="Delete a space and everything in it")
def delete_space(space: str, svc: Services = Depends(services)) -> dict:
    return {"space": space, "deleted_nodes": svc.spaces.delete(space)}


@router.post(
    "/spaces/{space}/keys",
    response_model=KeyOut,
    status_code=status.HTTP_201_CREATED,
    summary="Issue an API key",
)
def issue_key(space: str, body: KeyIn | None = None, svc: Services = Depends(services)) -> dict:
    issued = svc.spaces.issue_key(space, label=body.label if body else "")
    return {"key_id": issued.key_id, "space": issued.space, "key": issued.key}


@router.delete(
    "/spaces/{space}/keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Revoke a key"
)
def revoke_key(space: str, key_id: str, svc: Services = Depends(services)) -> None:
    svc.spaces.revoke_key(space, key_id)
