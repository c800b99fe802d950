"""Retrieval routes for agents: ask a question (text or spoken), scoped search, participant profile.

The asker decides what evidence may come back (access scopes, MODEL.md): a text question
names the asker by participant id (or nobody); a spoken question is matched to a
participant by voice, read-only, with the voice stack (``voxmem.voice``) — unrecognised
voices are the unknown asker. Every response names the scope applied.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.schemas import SPACE_ERRORS
from voxmem.errors import InvalidInput, VoxmemError
from voxmem.retrieval.service import parse_budgets, retrieval_for
from voxmem.retrieval.tools import Filters
from voxmem.services import Services

router = APIRouter(prefix="/spaces/{space}", tags=["retrieval"], responses=SPACE_ERRORS)

ASKER_DOC = (
    "The person asking: participant id (p_…) or name (resolved in the space; a name several people "
    "bear is refused with 409 listing them); omit for the unknown asker."
)


class NotImplementedYet(VoxmemError):
    status_code = 501


# --- bodies --------------------------------------------------------------------------------
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
        None, description="Retrieval policy: fixed | heuristic | llm (default: settings)."
    )
    budgets: str | None = Field(
        None, description="Per-round evidence budgets, e.g. '30,8,5'.", examples=["30,8,5"]
    )
    max_rounds: int | None = Field(None, ge=1, le=3, description="At most this many rounds (≤ 3).")
    max_evidence: int = Field(10, ge=1, le=50, description="Evidence items returned with the answer.")
    use_llm: bool = Field(True, description="Let a configured LLM answer (graph-native answers always win).")


class PersonOut(BaseModel):
    id: str
    name: str | None = None
    source: str | None = None
    confidence: float | None = None


class EvidenceOut(BaseModel):
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


class ScopeOut(BaseModel):
    space: str
    policy: str
    asker: str | None
    asker_name: str | None
    identified_by: Literal["id", "voice", "none"]
    rule: str = Field(description="What the asker may read under this policy.")


class QueryOut(BaseModel):
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


class SearchOut(BaseModel):
    scope: ScopeOut
    evidence: list[EvidenceOut]


class ProfileOut(BaseModel):
    participant: dict[str, Any]
    attributes: list[dict[str, Any]] = Field(description="Visible attributes with their source turns.")
    scope: ScopeOut


# --- helpers --------------------------------------------------------------------------------
def _validate(model: type[BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from exc


async def _spoken_question(svc: Services, space: str, raw: bytes, text: str | None) -> tuple[str, dict]:
    """(question text, voice match) for an audio question; 501 when no voice stack is installed."""
    try:
        from voxmem.voice.stack import voice_stack
    except ImportError as exc:  # pragma: no cover - depends on the deployment
        raise NotImplementedYet(
            "spoken questions need the voice stack (voxmem.voice), not installed"
        ) from exc
    stack = voice_stack(svc)

    def work() -> tuple[str, dict]:
        clip = stack.turns.prepare(raw)
        embedding = stack.voice.embed(clip)
        router_ = stack.voice.router()
        match = svc.db.read(lambda tx: router_.identify(tx, space, embedding))
        question = text or stack.voice.asr.transcribe(clip.samples).text.strip()
        return question, match

    return await run_in_threadpool(work)


_QUERY_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": QueryIn.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["audio"],
                    "properties": {
                        "audio": {
                            "type": "string",
                            "format": "binary",
                            "description": "The spoken question (wav/flac/ogg/mp3). The asker is recognised "
                            "by voice, read-only; an unknown voice is the unknown asker.",
                        },
                        "question": {
                            "type": "string",
                            "description": "Optional text; default: ASR transcript.",
                        },
                        "policy": {"type": "string"},
                        "budgets": {"type": "string"},
                        "max_evidence": {"type": "integer"},
                    },
                }
            },
        },
    }
}


# --- routes ---------------------------------------------------------------------------------
@router.post(
    "/query",
    response_model=QueryOut,
    summary="Ask: text question (+ asker id) or spoken question (asker by voice) → answer with evidence",
    openapi_extra=_QUERY_BODY,
)
async def ask(
    request: Request, access: SpaceAccess = Depends(require_space), svc: Services = Depends(services)
) -> dict:
    content_type = request.headers.get("content-type", "")
    retrieval = retrieval_for(svc)
    extra: dict[str, Any] = {}
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        audio = form.get("audio")
        if audio is None or isinstance(audio, str):
            raise InvalidInput("multipart query needs an 'audio' file part")
        raw = await audio.read()
        if not raw:
            raise InvalidInput("empty: the uploaded audio file has no bytes")
        fields = {k: v for k, v in form.items() if k != "audio" and isinstance(v, str) and v != ""}
        question_text, match = await _spoken_question(svc, access.space, raw, fields.get("question"))
        if not question_text:
            raise InvalidInput("no speech recognised in the spoken question")
        body = _validate(QueryIn, {**fields, "question": question_text})
        scope = retrieval.scope(access.space, match.get("participant_id"), identified_by="voice")
        extra = {"transcript": question_text, "voice": match}
    else:
        try:
            data = json.loads(await request.body() or b"null")
        except json.JSONDecodeError as exc:
            raise RequestValidationError(
                [{"type": "json_invalid", "loc": ("body",), "msg": str(exc)}]
            ) from exc
        body = _validate(QueryIn, data)
        scope = retrieval.scope(access.space, body.asker)
    budgets = parse_budgets(body.budgets) if body.budgets else None
    answer = await run_in_threadpool(
        retrieval.ask,
        scope,
        body.question,
        body.policy,
        budgets,
        body.max_rounds,
        body.use_llm,
        body.max_evidence,
    )
    result = answer.as_dict()
    # Which parts ran on deterministic offline components and which on the configured LLM.
    result["offline"] = {
        "planner": "llm" if result["policy"] == "llm" else f"offline ({result['policy']})",
        "answerer": "llm" if result["answerer"] == "llm" else f"offline ({result['answerer']})",
        "llm": svc.offline.get("llm", "none"),
    }
    return {**result, **extra}


@router.post("/retrieve", response_model=SearchOut, summary="Scoped search over memory layers, fused by RRF")
def retrieve(
    body: SearchIn, access: SpaceAccess = Depends(require_space), svc: Services = Depends(services)
) -> dict:
    retrieval = retrieval_for(svc)
    scope = retrieval.scope(access.space, body.asker)
    filters = Filters(
        speaker=body.speaker,
        addressee=body.addressee,
        about=body.about,
        session=body.session,
        ts_from=body.ts_from,
        ts_to=body.ts_to,
        current_only=body.current_only,
        participant=body.about,
    )
    evidence = retrieval.search(scope, body.text, body.layers, filters, body.k)
    return {"scope": scope.describe(), "evidence": evidence}


@router.get(
    "/retrieve/profile/{participant}",
    response_model=ProfileOut,
    summary="A participant's profile (attributes with provenance) as the asker may see it",
)
def profile(
    participant: str,
    asker: str | None = Query(None, max_length=200, description=ASKER_DOC),
    current_only: bool = Query(False),
    access: SpaceAccess = Depends(require_space),
    svc: Services = Depends(services),
) -> dict:
    retrieval = retrieval_for(svc)
    scope = retrieval.scope(access.space, asker)
    return retrieval.profile(scope, participant, current_only)
