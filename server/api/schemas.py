"""Request and response bodies of the HTTP API (pydantic models, with OpenAPI examples)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

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
