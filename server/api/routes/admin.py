"""Admin routes (admin key only): spaces and their API keys."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, status

from voxmem.api.deps import require_admin, services
from voxmem.api.schemas import ADMIN_ERRORS, KeyIn, KeyOut, SpaceDeletedOut, SpaceIn, SpaceListOut, SpaceOut
from voxmem.core import Voxmem
from voxmem.stores.spaces import Space

router = APIRouter(
    prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)], responses=ADMIN_ERRORS
)


@router.post(
    "/spaces", response_model=SpaceOut, status_code=status.HTTP_201_CREATED, summary="Create a space"
)
def create_space(body: SpaceIn, svc: Voxmem = Depends(services)) -> Space:
    return svc.spaces.create(body.id, body.policy)


@router.get("/spaces", response_model=SpaceListOut, summary="List every space (admin)")
def list_spaces(
    skip: int = Query(0, ge=0, le=1_000_000_000),
    limit: int = Query(100, ge=1, le=1000),
    svc: Voxmem = Depends(services),
) -> dict:
    return {"spaces": svc.spaces.list(skip, limit)}


@router.delete(
    "/spaces/{space}", response_model=SpaceDeletedOut, summary="Delete a space and everything in it"
)
def delete_space(space: str, svc: Voxmem = Depends(services)) -> dict:
    return {"space": space, "deleted_nodes": svc.spaces.delete(space)}


@router.post(
    "/spaces/{space}/keys",
    response_model=KeyOut,
    status_code=status.HTTP_201_CREATED,
    summary="Issue an API key",
)
def issue_key(space: str, body: KeyIn | None = None, svc: Voxmem = Depends(services)) -> dict:
    issued = svc.spaces.issue_key(space, label=body.label if body else "")
    return {"key_id": issued.key_id, "space": issued.space, "key": issued.key}


@router.delete(
    "/spaces/{space}/keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Revoke a key"
)
def revoke_key(space: str, key_id: str, svc: Voxmem = Depends(services)) -> None:
    svc.spaces.revoke_key(space, key_id)
