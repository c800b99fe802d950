"""Retrieval routes for agents: ask a question (text or spoken), scoped search, participant profile.

The asker decides what evidence may come back (access scopes, MODEL.md): a text question
names the asker by participant id or name (or nobody); a spoken question is matched to a
participant by voice, read-only, with the voice stack (``voxmem.voice``) — unrecognised
voices are the unknown asker. Every response names the scope applied.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool

from voxmem.api.deps import SpaceAccess, require_space, services
from voxmem.api.limits import json_problem
from voxmem.api.schemas import ASKER_DOC, SPACE_ERRORS, ProfileOut, QueryIn, QueryOut, SearchIn, SearchOut
from voxmem.core import Voxmem
from voxmem.errors import InvalidInput
from voxmem.retrieval.service import parse_budgets
from voxmem.retrieval.tools import Filters

router = APIRouter(prefix="/spaces/{space}", tags=["retrieval"], responses=SPACE_ERRORS)


# Bodies (QueryIn, SearchIn, ...) live in voxmem.api.schemas so clients can import them alone.


# --- helpers --------------------------------------------------------------------------------
def _validate(model: type[BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from exc


async def _spoken_question(svc: Voxmem, space: str, raw: bytes, text: str | None) -> tuple[str, dict]:
    """(question text, voice match) for an audio question."""

    def work() -> tuple[str, dict]:
        clip, match = svc.pipeline.recognise(space, raw)
        question = text or svc.voice.asr.transcribe(clip.samples).text.strip()
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
    request: Request, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    content_type = request.headers.get("content-type", "")
    retrieval = svc.retrieval
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
        except ValueError as exc:  # not JSON, not UTF-8, or a number past Python's digit limit
            raise RequestValidationError(
                [{"type": "json_invalid", "loc": ("body",), "msg": json_problem(exc)}]
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
    body: SearchIn, access: SpaceAccess = Depends(require_space), svc: Voxmem = Depends(services)
) -> dict:
    retrieval = svc.retrieval
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
    layers: list[str] | None = None if body.layers is None else list(body.layers)
    evidence = retrieval.search(scope, body.text, layers, filters, body.k)
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
    svc: Voxmem = Depends(services),
) -> dict:
    retrieval = svc.retrieval
    scope = retrieval.scope(access.space, asker)
    return retrieval.profile(scope, participant, current_only)
