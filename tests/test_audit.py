"""The attribution audit passes on data written through the API and catches planted violations."""

from __future__ import annotations

from fastapi.testclient import TestClient

from voxmem.audit import run_audit
from voxmem.services import Services


def _by_name(findings):
    return {f.check.name: f for f in findings}


def test_audit_clean_then_detects_planted_violations(
    app_client: TestClient, services: Services, space: str, space_headers: dict
) -> None:
    for i, (who, to, text) in enumerate(
        [
            ("Ana", "Ben", "Ben, checkout is at noon."),
            ("Ben", "Ana", "Thanks Ana."),
            ("Ana", None, "Bye all."),
        ]
    ):
        body = {"speaker": who, "text": text, "addressees": [to] if to else [], "turn_id": f"t{i}"}
        assert (
            app_client.post(
                f"/spaces/{space}/sessions/s1/turns", json=body, headers=space_headers
            ).status_code
            == 201
        )

    clean = run_audit(services.db, space)
    assert not [f.check.name for f in clean if f.failed]

    other = f"{space}-other"
    services.spaces.create(other)
    try:
        services.db.execute(
            """
            MATCH (m:Message {space: $space, idx: 0})
            CREATE (x:Participant {space: $other, id: 'p_intruder', key: 'intruder', name: 'Intruder'})
            CREATE (x)-[:SPEAKS]->(m)
            CREATE (:Fact {space: $space, id: 'fact_orphan', content: 'no source'})
            """,
            space=space,
            other=other,
        )
        found = _by_name(run_audit(services.db, space))
        assert found["audit_cross_space_edges"].failed and found["audit_cross_space_edges"].violations == 1
        assert found["audit_message_speakers"].failed and found["audit_message_speakers"].violations == 1
        assert found["audit_memory_provenance"].sample == ["fact_orphan"]
        assert not found["audit_next_chain"].failed
    finally:
        services.spaces.delete(other)
