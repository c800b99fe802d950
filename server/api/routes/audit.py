"""Attribution audit route (admin key only): the same report as ``voxmem audit <space> --json``.

The response models live here rather than in ``schemas.py`` because only this route uses
them; the shape is :meth:`voxmem.audit.AuditReport.to_dict`.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from voxmem.api.deps import require_admin, services
from voxmem.api.schemas import ADMIN_ERRORS
from voxmem.audit import run_audit
from voxmem.core import Voxmem

router = APIRouter(
    prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)], responses=ADMIN_ERRORS
)


class AuditFindingOut(BaseModel):
    check: str = Field(description="Name of the check; its query is cypher/<check>.cypher.")
    must_be_zero: bool = Field(description="True for invariants; False for informational counts.")
    meaning: str
    status: Literal["ok", "fail", "info"]
    violations: int
    sample: list[str] = Field(description="Ids of up to 10 offending nodes.")
    inspect: str = Field(
        description="Cypher showing those nodes and their relationships, with the ids written in: "
        "paste it into Neo4j Browser as it is. Empty when nothing was found."
    )


class AuditSummaryOut(BaseModel):
    ok: int
    fail: int
    info: int


class AuditOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "space": "household-1",
                    "failed": False,
                    "summary": {"ok": 5, "fail": 0, "info": 1},
                    "findings": [
                        {
                            "check": "audit_unattributed_messages",
                            "must_be_zero": False,
                            "meaning": "messages whose speaker has no participant yet",
                            "status": "info",
                            "violations": 1,
                            "sample": ["msg_01"],
                            "inspect": "MATCH (m:Message {space: 'household-1'}) WHERE m.id IN ['msg_01'] "
                            "OPTIONAL MATCH (m)-[r:SPOKEN_AS]->(s:Speaker) RETURN m, r, s LIMIT 100;",
                        }
                    ],
                }
            ]
        }
    )

    space: str
    failed: bool = Field(description="True when an invariant (must_be_zero) check found something.")
    summary: AuditSummaryOut = Field(description="How many checks ended ok, failed, or informational.")
    findings: list[AuditFindingOut]


@router.get(
    "/spaces/{space}/audit",
    response_model=AuditOut,
    summary="Attribution audit of a space (404 for an unknown space)",
)
def audit_space(space: str, svc: Voxmem = Depends(services)) -> dict:
    return run_audit(svc.db, space).to_dict()
