"""Memory routes: facts and attributes (current or with history), profiles, audit items,
reprocessing, participant deletion with its orphan check, and images on messages."""

from __future__ import annotations

from dataclasses import asdict
from typing import Literal

from fastapi import APIRouter, Depends, Query

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import (
    SPACE_ERRORS,
    AttributeOut,
    AuditItemOut,
    CheckOut,
    ExtractionOut,
    FactOut,
    ImageIn,
    ImageOut,
    ParticipantDeletedOut,
    ParticipantProfileOut,
    ReprocessIn,
    ReprocessOut,
)
from voxmem.core import Voxmem
from voxmem.cypher import query
from voxmem.errors import NotFound
from voxmem.ids import participant_ref
from voxmem.memory.images import ClipEmbedder, ImageStore
from voxmem.stores.facts import StoredAttribute, StoredFact

router = APIRouter(prefix="/spaces/{space}", tags=["memory"], responses=SPACE_ERRORS)


@router.get(
    "/facts",
    response_model=list[FactOut],
    summary="Facts: current by default, history=true adds superseded ones",
)
def list_facts(
    participant: str | None = Query(
        None, max_length=200, description="Participant id or name (about/stated by)."
    ),
    slot: str | None = Query(None, max_length=100),
    history: bool = Query(False, description="Include superseded facts (valid_to set, current false)."),
    skip: int = Query(0, ge=0, le=1_000_000_000),
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> list[StoredFact]:
    return svc.facts.facts(access.space, participant_ref(participant), slot, history, skip, limit)


@router.get(
    "/attributes",
    response_model=list[AttributeOut],
    summary="Profile attributes: current by default, history=true for all",
)
def list_attributes(
    participant: str | None = Query(None, max_length=200),
    kind: Literal["background", "preference", "relationship"] | None = None,
    history: bool = False,
    skip: int = Query(0, ge=0, le=1_000_000_000),
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> list[StoredAttribute]:
    return svc.facts.attributes(access.space, participant_ref(participant), kind, history, skip, limit)


@router.get(
    "/participants/{participant}/profile",
    response_model=ParticipantProfileOut,
    summary="A participant's names, attributes and facts",
)
def profile(
    participant: str,
    history: bool = False,
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    row = svc.participants.profile(access.space, participant_ref(participant))
    if row is None:
        raise NotFound(f"unknown participant {participant!r}")
    pid = row["participant"]["id"]
    attributes = svc.facts.attributes(access.space, pid, None, history, 0, 500)
    facts = svc.facts.facts(access.space, pid, None, history, 0, 500)
    return {
        **row["participant"],
        "speakers": row["speakers"],
        "messages": row["messages"],
        "addressed_in": row["addressed_in"],
        "open_audit": row["open_audit"],
        "attributes": {
            kind: [
                {k: v for k, v in asdict(a).items() if k not in ("holder", "supersedes")}
                for a in attributes
                if a.kind == kind
            ]
            for kind in ("background", "preference", "relationship")
        },
        "facts": facts,
    }


@router.get(
    "/audit",
    response_model=list[AuditItemOut],
    summary="Audit items: identity conflicts, placeholder merges, conflicting facts",
)
def audit(
    resolved: bool | None = None,
    limit: int = Query(100, ge=1, le=1000),
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> list[dict]:
    return [
        r["item"]
        for r in svc.db.query(query("memory_audit_list"), space=access.space, resolved=resolved, limit=limit)
    ]


@router.post(
    "/memory/reprocess",
    response_model=ReprocessOut,
    summary="Re-run extraction for a session or the whole space (idempotent)",
)
def reprocess(
    body: ReprocessIn, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.memory.reprocess(access.space, body.session)


@router.post(
    "/messages/{message_id}/extract",
    response_model=ExtractionOut,
    summary="Re-run extraction for one message (idempotent)",
)
def extract_one(
    message_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.memory.process_message(access.space, message_id)


@router.get("/memory/check", response_model=CheckOut, summary="Orphan check: every count must be 0")
def check(access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)) -> dict:
    counts = svc.memory.check(access.space)
    return {"clean": all(v == 0 for v in counts.values()), "counts": counts}


@router.delete(
    "/participants/{participant_id}",
    response_model=ParticipantDeletedOut,
    summary="Delete a participant, their messages, derived "
    "memory nobody else supports, profile and voices; returns the orphan/leak check",
)
def delete_participant(
    participant_id: str, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    return svc.memory.delete_participant(access.space, participant_id)


@router.post(
    "/messages/{message_id}/images",
    response_model=ImageOut,
    status_code=201,
    summary="Attach an image with a caption to a message, then re-extract that message",
)
def add_image(
    message_id: str,
    body: ImageIn,
    access: SpaceAccess = Depends(require_space),
    svc: Voxmem = Depends(services),
) -> dict:
    store = ImageStore(svc.db, ClipEmbedder(svc.settings))
    image = store.attach(access.space, message_id, body.caption, body.uri)
    image["extraction"] = svc.memory.process_message(access.space, message_id)
    return image
