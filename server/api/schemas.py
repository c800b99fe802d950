"""Request and response bodies of the HTTP API (pydantic models, with OpenAPI examples)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class Out(BaseModel):
    """Base of every response model. ``obj["field"]`` and ``obj.get("field")`` also work, so code
    written against the untyped (dict) client keeps running on the typed one."""

    def __getitem__(self, name: str) -> Any:
        if name in type(self).model_fields or name in (self.model_extra or {}):
            return getattr(self, name)
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default


class SpaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"id": "household-1"}]})

    id: str = Field(pattern=ID_PATTERN, description="Space id chosen by the caller.")
    policy: Literal["open", "participant", "private"] = Field(
        "participant", description="Who may read what (see DESIGN: access scopes)."
    )


class SpaceOut(Out):
    id: str
    policy: str
    created_at: str
    messages: int | None = None


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field("", max_length=200, description="Free text to recognise the key later.")


class KeyOut(Out):
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


# Largest batch of POST /spaces/{space}/turns/batch; a longer history is sent in several batches
# (the clients' import_turns does it), each retried safely on its own.
MAX_BATCH_TURNS = 1000


class BatchTurnIn(BaseModel):
    """One turn of a batch import: a text turn with its session and a required turn id."""

    model_config = ConfigDict(extra="forbid")

    session: str = Field(pattern=ID_PATTERN, description="Session the turn belongs to.")
    speaker: str = Field(min_length=1, max_length=200, description="Name of the person speaking.")
    text: str = Field(min_length=1, description="What was said.")
    addressees: list[str] = Field(default_factory=list, max_length=50, description="Names spoken to.")
    ts: datetime | None = Field(None, description="When it was said (ISO-8601); default: now.")
    turn_id: str = Field(pattern=ID_PATTERN, description="Caller's id; a retried batch stores nothing twice.")


class TurnBatchIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "turns": [
                        {
                            "session": "2026-11-02-dinner",
                            "speaker": "Maya",
                            "text": "Dad, can we stop for pizza on the way home?",
                            "addressees": ["Tom"],
                            "ts": "2026-11-02T18:05:00Z",
                            "turn_id": "d1-t1",
                        }
                    ]
                }
            ]
        },
    )

    turns: list[BatchTurnIn] = Field(
        min_length=1, max_length=MAX_BATCH_TURNS, description="Turns in conversation order."
    )


class BatchTurnOut(Out):
    turn_id: str
    session: str
    id: str = Field(description="The message id.")
    status: str = Field(description="'stored' now, or 'replayed' (stored by an earlier try).")


class TurnBatchOut(Out):
    stored: int
    replayed: int
    derived: int = Field(description="Turns whose memory was derived by this call.")
    facts: int
    attributes: int
    pending: list[str] = Field(description="Message ids still without memory (derived later by repair).")
    turns: list[BatchTurnOut]


class PersonRef(Out):
    id: str
    name: str | None = Field(None, description="Null for a voice nobody has named yet.")


class MessageOut(Out):
    id: str
    session: str
    idx: int
    text: str
    ts: str
    speaker: PersonRef | None
    addressees: list[PersonRef]
    score: float | None = None
    matched_by: list[str] | None = None


class HealthOut(Out):
    status: Literal["ok", "degraded"]
    neo4j: dict
    schema_version: int | None
    models: dict
    offline: dict


# --- responses of every route (issue 15) ------------------------------------------------------
# Response models declare the fields a client may rely on. Models over data produced by other
# subsystems (voice routing, extraction) allow extra fields, so a subsystem that reports one
# more number does not turn a 200 into a 500; the declared fields stay checked.
class _Open(Out):
    model_config = ConfigDict(extra="allow")


class ErrorOut(Out):
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


class SpaceDeletedOut(Out):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"space": "household-1", "deleted_nodes": 118}]}
    )

    space: str
    deleted_nodes: int = Field(description="Nodes removed (messages, people, facts, keys, the space).")


class SpaceListOut(Out):
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


class CheckOut(Out):
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


class JobOut(Out):
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


class JobListOut(Out):
    jobs: list[JobOut]


class RoutingOut(_Open):
    """How the voice router placed a spoken turn (its ``RoutingDecision`` node)."""

    decision_id: str
    decision: Literal["CREATE", "LINK"] = Field(description="A new voice, or linked to a known one.")
    score: float | None = None
    margin: float | None = None
    policy: str | None = Field(None, description="The voice-routing policy that decided.")
    speaker_id: str
    ts: str | None = None


class AudioTurnOut(MessageOut):
    model_config = ConfigDict(extra="allow")

    duration: float | None = Field(None, description="Seconds of audio.")
    source: str | None = Field(None, description="audio (one spoken turn) or recording.")
    routing: RoutingOut | None = Field(None, description="Null on an idempotent replay of an old turn.")
    idempotent_replay: bool = Field(
        False, description="True when the turn_id was already stored: nothing new was written."
    )


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
    merged_participant_id: str | None = Field(
        None,
        description="The person the voice was identified as before, folded into this one "
        "(what was said to and about them moved over); null when there was none to fold.",
    )


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


ASKER_DOC = (
    "The person asking: participant id (p_…) or name (resolved in the space; a name several people "
    "bear is refused with 409 listing them); omit for the unknown asker."
)


# --- retrieval bodies (query, retrieve, profile) ----------------------------------------------
class QueryIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "question": "What did I ask Tom for on the way home?",
                    "asker": "Maya",
                    "policy": "heuristic",
                },
                {"question": "Who said the garage code is 4417?"},
            ]
        },
    )

    question: str = Field(min_length=1, max_length=2000, description="The question, in plain words.")
    asker: str | None = Field(None, max_length=200, description=ASKER_DOC)
    policy: str | None = Field(
        None, description="Retrieval policy: fixed | heuristic | learned | llm (default: settings)."
    )
    budgets: str | None = Field(
        None, description="Per-round evidence budgets, e.g. '30,8,5'.", examples=["30,8,5"]
    )
    max_rounds: int | None = Field(None, ge=1, le=3, description="At most this many rounds (≤ 3).")
    max_evidence: int = Field(10, ge=1, le=50, description="Evidence items returned with the answer.")
    use_llm: bool = Field(True, description="Let a configured LLM answer (graph-native answers always win).")


class PersonOut(Out):
    id: str
    name: str | None = None
    source: str | None = None
    confidence: float | None = None


class EvidenceOut(Out):
    id: str = Field(description="Message id of the source turn.")
    session: str
    idx: int
    text: str
    ts: str | None
    speaker: PersonOut | None
    addressees: list[PersonOut]
    score: float
    tools: list[str] = Field(description="Tools whose rankings contained this turn.")
    layers: list[str]
    support: list[dict[str, Any]] = Field(
        description="Facts / attributes derived from this turn that matched."
    )
    round: int


class ScopeOut(Out):
    space: str
    policy: str
    asker: str | None
    asker_name: str | None
    identified_by: Literal["id", "voice", "none"]
    rule: str = Field(description="What the asker may read under this policy.")


class QueryOut(Out):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "question": "Who said the garage code is 4417?",
                    "answer": "Tom",
                    "supported": True,
                    "answerer": "graph",
                    "used": ["household-1:kitchen-1"],
                    "evidence": [
                        {
                            "id": "household-1:kitchen-1",
                            "session": "kitchen",
                            "idx": 0,
                            "text": "The garage door code is 4417, don't tell the kids.",
                            "ts": "2026-11-02T18:04:00Z",
                            "speaker": {"id": "p_1", "name": "Tom"},
                            "addressees": [{"id": "p_2", "name": "Ana", "source": "given"}],
                            "score": 0.0328,
                            "tools": ["who_said", "message_fulltext"],
                            "layers": ["interaction"],
                            "support": [],
                            "round": 1,
                        }
                    ],
                    "trace": [
                        {
                            "round": 1,
                            "policy": "heuristic",
                            "actions": [],
                            "hits": [3],
                            "gained": [],
                            "retained": 3,
                            "ms": 41.0,
                            "stop": "evidence suffices: quote found with its speaker",
                        }
                    ],
                    "scope": {
                        "space": "household-1",
                        "policy": "open",
                        "asker": None,
                        "asker_name": None,
                        "identified_by": "none",
                        "rule": "open: every message, fact and attribute",
                    },
                    "policy": "heuristic",
                    "reading": {"kind": "who_said", "quote": "the garage code is 4417"},
                    "notes": [],
                }
            ]
        }
    )

    question: str
    answer: str = Field(description="The answer, or 'not in memory' when the evidence does not support one.")
    supported: bool
    answerer: Literal["graph", "extractive", "llm", "none"]
    used: list[str] = Field(description="Evidence ids the answer rests on.")
    evidence: list[EvidenceOut]
    trace: list[dict[str, Any]] = Field(
        description="One entry per round: actions, hits, gained ids, stop reason."
    )
    scope: ScopeOut
    policy: str
    reading: dict[str, Any] = Field(description="How the question was read (kind, quote, people, ...).")
    notes: list[str] = []
    transcript: str | None = Field(None, description="For spoken questions: the ASR transcript asked.")
    voice: dict[str, Any] | None = Field(None, description="For spoken questions: the read-only voice match.")
    offline: dict[str, str] = Field(
        default_factory=dict, description="Which parts ran offline (deterministic) and which on the LLM."
    )


class SearchIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "text": "pizza on the way home",
                    "asker": "p_6f1c0e…",
                    "k": 5,
                    "layers": ["interaction", "fact"],
                    "speaker": "Maya",
                }
            ]
        },
    )

    text: str = Field(min_length=1, max_length=2000)
    asker: str | None = Field(None, max_length=200, description=ASKER_DOC)
    layers: list[Literal["interaction", "fact", "profile"]] | None = Field(
        None, description="Memory layers to search (default: all three)."
    )
    speaker: str | None = Field(
        None, max_length=200, description="Only turns/facts by this participant (id or name)."
    )
    addressee: str | None = Field(
        None, max_length=200, description="Only turns/facts addressed to this participant."
    )
    about: str | None = Field(
        None, max_length=200, description="Only facts about / attributes of this participant."
    )
    session: str | None = Field(None, max_length=128)
    ts_from: str | None = Field(None, description="ISO-8601; turns at or after / facts valid at or after.")
    ts_to: str | None = Field(None, description="ISO-8601; turns at or before / facts valid at or before.")
    current_only: bool = Field(False, description="Facts and attributes still current only.")
    k: int = Field(10, ge=1, le=100)


class SearchOut(Out):
    scope: ScopeOut
    evidence: list[EvidenceOut]


class ProfileOut(Out):
    participant: dict[str, Any]
    attributes: list[dict[str, Any]] = Field(description="Visible attributes with their source turns.")
    scope: ScopeOut


class ImportOut(Out):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "space": "household-1-copy",
                    "from_space": "household-1",
                    "nodes": 412,
                    "edges": 1290,
                    "by_label": {"Message": 300, "Participant": 5, "Fact": 80},
                    "by_type": {"SPEAKS": 300, "DERIVED_FROM": 95},
                }
            ]
        }
    )

    space: str
    from_space: str = Field(description="The space the export was taken from.")
    nodes: int
    edges: int
    by_label: dict[str, int]
    by_type: dict[str, int]


class SessionOut(Out):
    id: str
    turns: int
    first_ts: str | None
    last_ts: str | None
    participants: list[str | None] = Field(description="Names of the people who took part.")


class SessionListOut(Out):
    sessions: list[SessionOut]


# --- request bodies of the identity and memory routes -----------------------------------------
class LinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    participant_id: str | None = Field(None, description="Existing participant id (p_…).")
    name: str | None = Field(None, max_length=200, description="Or a name: found or created by its key.")


class MergeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(description="Speaker merged away (kept, marked merged_into).")
    target: str = Field(description="Speaker that absorbs it.")
    reason: str = Field("manual", max_length=200)


class SplitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_ids: list[str] = Field(min_length=1, max_length=10_000)


class ReconcileIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session: str | None = None
    dry_run: bool = False


class ReprocessIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session: str | None = Field(
        None, pattern=ID_PATTERN, description="One session; omit for the whole space."
    )


class ImageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    caption: str = Field(min_length=1, max_length=2000, description="What the image shows (indexed as text).")
    uri: str | None = Field(
        None, max_length=2000, description="Where the image is; a local path enables CLIP."
    )
