"""Request and response bodies of the HTTP API (pydantic models, with OpenAPI examples)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class SpaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"id": "household-1"}]})

    id: str = Field(pattern=ID_PATTERN, description="Space id chosen by the caller.")
    policy: Literal["open", "participant", "private"] = Field(
        "participant", description="Who may read what (see DESIGN: access scopes)."
    )


class SpaceOut(BaseModel):
    id: str
    policy: str
    created_at: str
    messages: int | None = None


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field("", max_length=200, description="Free text to recognise the key later.")


class KeyOut(BaseModel):
    key_id: str
    space: str
    key: str = Field(description="The secret key. Shown once; only its hash is stored.")


class TurnIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "speaker": "Maya",
                    "text": "Dad, can we stop for pizza on the way home?",
                    "addressees": ["Tom"],
                    "ts": "2026-11-02T18:05:00Z",
                    "turn_id": "s1-t3",
                }
            ]
        },
    )

    speaker: str = Field(min_length=1, max_length=200, description="Name of the person speaking.")
    text: str = Field(min_length=1, description="What was said.")
    addressees: list[str] = Field(default_factory=list, max_length=50, description="Names spoken to.")
    ts: datetime | None = Field(None, description="When it was said (ISO-8601); default: now.")
    turn_id: str | None = Field(
        None, pattern=ID_PATTERN, description="Caller's id for the turn; retries with it are idempotent."
    )


class PersonRef(BaseModel):
    id: str
    name: str | None = Field(None, description="Null for a voice nobody has named yet.")


class MessageOut(BaseModel):
    id: str
    session: str
    idx: int
    text: str
    ts: str
    speaker: PersonRef | None
    addressees: list[PersonRef]
    score: float | None = None
    matched_by: list[str] | None = None


class HealthOut(BaseModel):
    status: Literal["ok", "degraded"]
    neo4j: dict
    schema_version: int | None
    models: dict
    offline: dict


# --- responses of every route (issue 15) ------------------------------------------------------
# Response models declare the fields a client may rely on. Models over data produced by other
# subsystems (voice routing, extraction) allow extra fields, so a subsystem that reports one
# more number does not turn a 200 into a 500; the declared fields stay checked.
class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorOut(BaseModel):
    """The one error shape of the API: every 4xx and 5xx body looks like this."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"error": "NotFound", "detail": "unknown space 'household-9'"},
                {
                    "error": "AmbiguousName",
                    "detail": "asker 'Sam' names 2 participants: Sam (p_1a), Sam (p_2b); give the id",
                    "candidates": [{"id": "p_1a", "name": "Sam"}, {"id": "p_2b", "name": "Sam"}],
                },
                {"error": "InvalidInput", "detail": [{"where": "body.text", "problem": "Field required"}]},
            ]
        }
    )

    error: str = Field(description="Error class, e.g. NotFound, Forbidden, InvalidInput, AmbiguousName.")
    detail: str | list[dict[str, Any]] = Field(
        description="What went wrong: a sentence, or for invalid input one {where, problem} per field."
    )
    candidates: list[PersonRef] | None = Field(
        None, description="For an ambiguous name: the participants it could mean."
    )


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route or router: each status with the shared error model."""
    text = {
        400: "Malformed request (bad JSON, bad header)",
        401: "Missing, unknown or revoked API key",
        403: "The key does not grant this space or route",
        404: "Unknown space, session, participant, message, speaker or job",
        409: "Conflict: already exists / already done, or an ambiguous name (candidates listed)",
        413: "Body larger than the configured limit",
        422: "Invalid input (the fields in error are listed)",
        503: "Neo4j unavailable; nothing was written, retry later",
    }
    return {c: {"model": ErrorOut, "description": text.get(c, "Error")} for c in codes}


SPACE_ERRORS = error_responses(400, 401, 403, 404, 409, 413, 422, 503)
ADMIN_ERRORS = error_responses(400, 401, 403, 404, 409, 422, 503)


class SpaceDeletedOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"space": "household-1", "deleted_nodes": 118}]}
    )

    space: str
    deleted_nodes: int = Field(description="Nodes removed (messages, people, facts, keys, the space).")


class SpaceListOut(BaseModel):
    spaces: list[SpaceOut]


class FactOut(_Open):
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "id": "f_1",
                    "content": "Maya is allergic to peanuts",
                    "slot": "allergy",
                    "value": "peanuts",
                    "current": True,
                    "valid_from": "2026-11-02T18:05:00Z",
                    "valid_to": None,
                    "stated_by": [{"id": "p_2", "name": "Tom"}],
                    "addressed_to": [],
                    "about": [{"id": "p_1", "name": "Maya"}],
                    "sources": ["household-1:s1-t3"],
                    "supersedes": [],
                    "conflicts_with": [],
                }
            ]
        },
    )

    id: str
    content: str | None = None
    slot: str | None = None
    value: str | None = None
    current: bool | None = None
    conflict: bool | None = None
    extractor: str | None = None
    confidence: float | None = None
    event_time: str | None = None
    time_text: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    stated_by: list[PersonRef] = []
    addressed_to: list[PersonRef] = []
    about: list[PersonRef] = []
    sources: list[str] = Field([], description="Message ids the fact was derived from (provenance).")
    supersedes: list[str] = []
    conflicts_with: list[str] = []


class AttributeOut(_Open):
    id: str
    kind: str
    text: str | None = None
    slot: str | None = None
    current: bool | None = None
    extractor: str | None = None
    confidence: float | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    holder: PersonRef | None = None
    sources: list[str] = []
    supersedes: list[str] = []


class AuditItemOut(_Open):
    id: str
    kind: str
    detail: Any = None
    message_id: str | None = None
    participants: list[str] | None = None
    resolved: bool | None = None
    created_at: str | None = None


class ParticipantProfileOut(_Open):
    id: str
    name: str | None = None
    aliases: list[str] | None = None
    name_source: str | None = None
    speakers: list[str] = Field(description="Voices (Speaker ids) identified as this person.")
    messages: int
    addressed_in: int
    open_audit: list[dict[str, Any]]
    attributes: dict[str, list[dict[str, Any]]] = Field(
        description="background / preference / relationship, each with its source turns."
    )
    facts: list[FactOut]


class ExtractionOut(_Open):
    message_id: str
    extractor: str
    facts: int
    attributes: int
    superseded: int
    conflicts: int
    addressees: list[dict[str, Any]]
    names: list[dict[str, Any]]


class ReprocessOut(_Open):
    messages: int
    facts: int
    attributes: int
    superseded: int
    conflicts: int
    addressees: int
    extractor: str


class CheckOut(BaseModel):
    clean: bool = Field(description="True when every orphan/leak count is 0.")
    counts: dict[str, int]


class ParticipantDeletedOut(_Open):
    participant: str
    messages: int
    attributes: int
    voiceprints: int
    speakers: int
    audit_items: int
    check: dict[str, int]
    clean: bool


class ImageOut(_Open):
    id: str
    caption: str
    uri: str | None = None
    extraction: ExtractionOut


class JobOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "job_8c2e",
                    "space": "household-1",
                    "kind": "recording",
                    "status": "running",
                    "stage": "asr",
                    "progress": 0.42,
                    "created_at": "2026-11-02T18:05:00+00:00",
                    "finished_at": None,
                    "result": None,
                    "error": None,
                }
            ]
        }
    )

    id: str
    space: str
    kind: str
    status: Literal["queued", "running", "done", "failed", "interrupted"]
    stage: str = ""
    progress: float = Field(0.0, ge=0.0, le=1.0)
    created_at: str
    finished_at: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


class JobListOut(BaseModel):
    jobs: list[JobOut]


class AudioTurnOut(MessageOut):
    model_config = ConfigDict(extra="allow")


class AskerMatchOut(_Open):
    known: bool
    speaker_id: str | None
    participant_id: str | None
    participant_name: str | None
    score: float
    margin: float
    best_candidate: str | None


class SpeakerOut(_Open):
    id: str
    encoder: str | None = None
    n_obs: int | None = None
    merged_into: str | None = None
    forgotten: bool | None = None
    created_at: str | None = None
    participant: dict[str, Any] | None = None
    voiceprints: int
    messages: int


class LinkOut(_Open):
    id: str
    participant_id: str
    participant_name: str | None = None


class MergeOut(_Open):
    source: str
    target: str
    participant_id: str | None = None
    reason: str | None = None
    score: float | None = None


class UnmergeOut(_Open):
    source: str
    target: str


class SplitOut(_Open):
    speaker_id: str
    new_speaker_id: str
    moved_voiceprints: int


class ReconcileOut(_Open):
    merged: list[dict[str, Any]]
    conflicts: list[dict[str, Any]]
    considered: int
    speakers: list[str]


class ForgetOut(_Open):
    participant_id: str
    speakers: int
    voiceprints: int
