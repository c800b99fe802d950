"""Identity management routes: voices (Speaker nodes), their people, merge/split/forget."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import (
    SPACE_ERRORS,
    ForgetOut,
    LinkIn,
    LinkOut,
    MergeIn,
    MergeOut,
    ReconcileIn,
    ReconcileOut,
    SpeakerOut,
    SplitIn,
    SplitOut,
    UnmergeOut,
)
from voxmem.core import Voxmem

router = APIRouter(prefix="/spaces/{space}/speakers", tags=["identity"], responses=SPACE_ERRORS)


@router.get(
    "",
    response_model=list[SpeakerOut],
    summary="Voices of the space with their participant and observation counts",
)
def list_speakers(
    access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> list[dict]:
    return svc.identity.list(access.space)


@router.post(
    "/{speaker_id}/link", response_model=LinkOut, summary="Identify a voice as a participant, by hand"
)
def link(
    speaker_id: str,
    body: LinkIn,
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    return svc.identity.link(access.space, speaker_id, body.participant_id, body.name)


@router.post("/merge", response_model=MergeOut, summary="Merge two voices (reversible; audited)")
def merge(
    body: MergeIn, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.identity.merge(access.space, body.source, body.target, body.reason)


@router.post("/{speaker_id}/unmerge", response_model=UnmergeOut, summary="Undo a merge of this voice")
def unmerge(
    speaker_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.identity.unmerge(access.space, speaker_id)


@router.post(
    "/{speaker_id}/split",
    response_model=SplitOut,
    summary="Move some messages of a voice to a new voice (audited)",
)
def split(
    speaker_id: str,
    body: SplitIn,
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    return svc.identity.split(access.space, speaker_id, body.message_ids)


@router.post(
    "/reconcile",
    response_model=ReconcileOut,
    summary="Conservative post-session merge of fragments of one voice",
)
def reconcile(
    body: ReconcileIn, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.identity.reconcile(access.space, body.session, body.dry_run)


@router.delete(
    "/voiceprints/{participant_id}",
    response_model=ForgetOut,
    summary="Forget a person's voice (delete voiceprints)",
)
def forget(
    participant_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.identity.forget_voice(access.space, participant_id)
