"""Liveness and readiness: Neo4j, schema version and which models are loaded."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from voxmem.api.deps import services
from voxmem.api.schemas import HealthOut
from voxmem.core import Voxmem
from voxmem.errors import DatabaseUnavailable
from voxmem.llm.client import describe as llm_describe

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthOut, summary="Server, Neo4j, schema and model status")
def health(svc: Voxmem = Depends(services)) -> HealthOut:
    try:
        neo4j = {"status": "ok", **svc.db.ping()}
        version = svc.current_schema_version()
    except DatabaseUnavailable as exc:
        neo4j, version = {"status": "unavailable", "detail": exc.message}, None
    models = {
        "text_embedding": {
            "name": svc.embedder.model_name,
            "dimension": svc.settings.text_embedding_dim,
            "loaded": svc.embedder.loaded,
        }
    }
    ok = neo4j["status"] == "ok" and version is not None
    return HealthOut(
        status="ok" if ok else "degraded",
        neo4j=neo4j,
        schema_version=version,
        models=models,
        # live: a local LLM started or stopped after the API came up is reported as it is now
        offline={**svc.offline, **llm_describe(svc.settings)},
    )
