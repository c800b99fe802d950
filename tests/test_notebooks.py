"""The exploration notebook's code cells run, in order, against a real space."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from voxmem.services import Services

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "explore_memory.ipynb"


def test_notebook_cells_run_against_a_space(
    app_client: TestClient, services: Services, space: str, space_headers: dict, monkeypatch, capsys
) -> None:
    for i, (who, to, text) in enumerate(
        [("Ana", "Ben", "Ben, I prefer tea."), ("Ben", "Ana", "Noted, Ana.")]
    ):
        body = {"speaker": who, "text": text, "addressees": [to], "turn_id": f"t{i}"}
        assert (
            app_client.post(
                f"/spaces/{space}/sessions/s1/turns", json=body, headers=space_headers
            ).status_code
            == 201
        )
    # A voice nobody has named (name null) is addressed: the notebook crashed on it (TypeError).
    services.db.execute(
        """
        MATCH (m:Message {space: $space, idx: 1})
        CREATE (p:Participant {space: $space, id: 'p_9f8e7d6c5b', aliases: []})
        CREATE (m)-[:ADDRESSES {source: 'given', confidence: 1.0}]->(p)
        """,
        space=space,
    )
    monkeypatch.setenv("VOXMEM_NOTEBOOK_SPACE", space)
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
    out = capsys.readouterr().out
    assert "[s1 #0] Ana -> Ben: Ben, I prefer tea." in out
    assert "{'speaker': 'Ana', 'addressee': 'Ben', 'messages': 1}" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("[s1 #1] Ben -> "))
    assert sorted(line.split(" -> ")[1].split(": ")[0].split(", ")) == ["Ana", "unnamed voice 9f8e7d"]
    assert "attribution audit of space" in out and "FAIL" not in out
