"""The notebooks run top to bottom with nbclient against a real space and draw their plots.

Each notebook reads its parameters from the environment in its first cell
(``VOXMEM_NOTEBOOK_SPACE``, ``VOXMEM_NOTEBOOK_PERSON``; the Neo4j connection from the usual
``VOXMEM_NEO4J_*`` settings), which the kernel inherits from this process. The kernel is the
venv's ipykernel under the name ``python3``: jupyter_client finds its spec in
``<sys.prefix>/share/jupyter/kernels`` and runs it with ``sys.executable``, so no
``ipykernel install --user`` step is needed.
"""

from __future__ import annotations

import base64
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from fastapi.testclient import TestClient
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from voxmem.core import Voxmem

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
T0 = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# (session, minute, speaker, addressee, text): names, addressees, and a fact of Maya's that changes.
TURNS = [
    ("kitchen", 0, "Maya", "Priya", "Mom, my checkout is at 11 am."),
    ("kitchen", 1, "Priya", "Maya", "Fine, Maya, I will drive you."),
    ("kitchen", 2, "Tom", "Maya", "Maya, do you want tea?"),
    ("kitchen", 3, "Maya", "Tom", "Yes please, Tom."),
    ("evening", 180, "Maya", "Priya", "Please change my checkout to noon."),
    ("evening", 181, "Priya", "Maya", "Noted, Maya."),
]


def execute(name: str, timeout: int = 180, probe: str | None = None) -> nbformat.NotebookNode:
    """Run a notebook in a fresh python3 kernel; any cell error raises CellExecutionError.
    ``probe``: a code cell run after the notebook's own, in the same kernel (to read its state)."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    if probe:
        nb.cells.append(nbformat.v4.new_code_cell(probe))
    NotebookClient(
        nb, kernel_name="python3", timeout=timeout, resources={"metadata": {"path": "."}}
    ).execute()
    if keep := os.environ.get("VOXMEM_NOTEBOOK_KEEP"):  # a directory to look at the executed notebooks
        Path(keep).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, Path(keep) / name)
    return nb


def text_of(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif "text/plain" in out.get("data", {}):
                parts.append(out.data["text/plain"])
    return "\n".join(parts)


def pngs(nb: nbformat.NotebookNode) -> list[bytes]:
    """Decoded PNG images the notebook displayed (matplotlib's inline backend)."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                found.append(base64.b64decode(data["image/png"]))
    return found


@pytest.fixture
def loaded_space(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict, monkeypatch
) -> str:
    """A small space written through the API, plus two things the notebooks must cope with."""
    for i, (session, minute, who, to, text) in enumerate(TURNS):
        body = {
            "speaker": who,
            "text": text,
            "addressees": [to],
            "turn_id": f"t{i}",
            "ts": (T0 + timedelta(minutes=minute)).isoformat(),
        }
        r = app_client.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text
    services.db.execute(
        """
        MATCH (m:Message {space: $space, session: 'kitchen', idx: 1})
        // a voice nobody has named (name null) is addressed: the first notebook crashed on it
        CREATE (p:Participant {space: $space, id: 'p_9f8e7d6c5b', aliases: [],
                               display: 'unnamed voice 9f8e7d'})
        CREATE (m)-[:ADDRESSES {source: 'given', confidence: 1.0}]->(p)
        // a fact without a source turn: an invariant the audit must report as failed
        CREATE (:Fact {space: $space, id: 'fact_orphan_nb', content: 'Nobody said this.', current: true})
        """,
        space=space,
    )
    monkeypatch.setenv("VOXMEM_NOTEBOOK_SPACE", space)
    monkeypatch.setenv("VOXMEM_NOTEBOOK_PERSON", "maya")
    return space


def test_committed_notebooks_carry_no_outputs() -> None:
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == ["attribution_audit.ipynb", "explore_memory.ipynb", "fact_timeline.ipynb"]
    for name in names:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == "python3"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name}: strip outputs"


def test_python3_kernel_is_this_virtualenv() -> None:
    """'python3' resolves to the venv's ipykernel with no machine-level kernelspec install."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys; print(sys.prefix)")])
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    assert nb.cells[0].outputs[0].text.strip() == sys.prefix


def test_explore_memory_lists_turns_and_draws_the_network(loaded_space: str) -> None:
    nb = execute("explore_memory.ipynb")
    out = text_of(nb)
    assert f"space {loaded_space!r}" in out
    assert "[kitchen #0] Maya -> Priya: Mom, my checkout is at 11 am." in out
    line = next(ln for ln in out.splitlines() if ln.startswith("[kitchen #1] Priya -> "))
    assert sorted(line.split(" -> ")[1].split(": ")[0].split(", ")) == ["Maya", "unnamed voice 9f8e7d"]
    weighted = {tuple(ln.split()[:3]) for ln in out.splitlines() if " turns  weight " in ln}
    assert ("Maya", "->", "Priya") in weighted and ("Tom", "->", "Maya") in weighted
    assert "6 turns shown" in out
    images = pngs(nb)
    assert len(images) == 1 and images[0].startswith(PNG_MAGIC) and len(images[0]) > 5_000


@pytest.mark.parametrize("person", ["maya", "Maya"])
def test_fact_timeline_shows_the_change(loaded_space: str, person: str, monkeypatch) -> None:
    """The person is taken as the API takes one: 'Maya' as spoken finds her facts (it found none)."""
    monkeypatch.setenv("VOXMEM_NOTEBOOK_PERSON", person)
    nb = execute("fact_timeline.ipynb")
    out = text_of(nb)
    lines = [ln for ln in out.splitlines() if "[checkout_time]" in ln]
    assert len(lines) == 2, out
    old, new = (ln.split(maxsplit=1)[1] for ln in lines)  # oldest first, after their '#n'
    assert old.startswith("replaced 2026-11-02 08:00 until 2026-11-02 11:00") and "11 am" in old
    assert new.startswith("current  2026-11-02 11:00") and "noon" in new and "(replaces: " in new
    chain = next(ln for ln in out.splitlines() if "  <-  " in ln)
    assert "noon" in chain.split("  <-  ")[0] and "11 am" in chain.split("  <-  ")[1]
    images = pngs(nb)
    assert len(images) == 1 and images[0].startswith(PNG_MAGIC) and len(images[0]) > 5_000


def test_fact_timeline_labels_do_not_run_over_each_other(
    app_client: TestClient, space: str, space_headers: dict, monkeypatch
) -> None:
    """Tom's facts from the demo: two turns two days apart, each giving two facts without a slot
    at one time. Each bar's 40-character label was drawn at its start, so the second turn's
    labels sat on top of each other (and the first ran into them) and none could be read."""
    turns = [
        (0, "Priya", "I can, but only until noon. I have a client call at one."),
        (2 * 24 * 60 + 18, "Priya", "Priya, I moved my client call to Friday, so I am free all Thursday."),
        (2 * 24 * 60 + 15, "Maya", "Then grandma can come and watch you play."),
    ]
    for i, (minute, to, text) in enumerate(turns):
        body = {"speaker": "Tom", "text": text, "addressees": [to], "turn_id": f"tom{i}"}
        body["ts"] = (T0 + timedelta(minutes=minute)).isoformat()
        r = app_client.post(f"/spaces/{space}/sessions/s{i}/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text
    monkeypatch.setenv("VOXMEM_NOTEBOOK_SPACE", space)
    monkeypatch.setenv("VOXMEM_NOTEBOOK_PERSON", "Tom")
    probe = (
        "from matplotlib.backends.backend_agg import FigureCanvasAgg\n"
        "renderer = FigureCanvasAgg(fig).get_renderer()  # the inline backend closed the figure\n"
        "boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]\n"
        "print('labels', len(boxes), 'overlapping', "
        "sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]))"
    )
    out = text_of(execute("fact_timeline.ipynb", probe=probe))
    facts = [ln for ln in out.splitlines() if re.search(r"(current|replaced) +2026-", ln)]
    assert len(facts) >= 4, out  # enough facts close together for labels to collide
    assert "overlapping 0" in out, out


def test_attribution_audit_of_a_clean_space_says_so(
    app_client: TestClient, space: str, space_headers: dict, monkeypatch
) -> None:
    """On a clean space the offenders section printed nothing at all, which reads like a cell
    that did not run; it now says that no check found anything."""
    for i, (session, _, who, to, text) in enumerate(TURNS[:2]):
        body = {"speaker": who, "text": text, "addressees": [to], "turn_id": f"c{i}"}
        r = app_client.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text
    monkeypatch.setenv("VOXMEM_NOTEBOOK_SPACE", space)
    out = text_of(execute("attribution_audit.ipynb"))
    assert "0 failed" in out and f"no offenders: all 9 checks found nothing in {space!r}" in out, out


@pytest.mark.parametrize(
    ("name", "env", "said"),
    [
        (
            "explore_memory.ipynb",
            {"VOXMEM_NOTEBOOK_SPACE": "no-such-space-nb"},
            "unknown space 'no-such-space-nb'",
        ),
        (
            "fact_timeline.ipynb",
            {"VOXMEM_NOTEBOOK_SPACE": "no-such-space-nb"},
            "unknown space 'no-such-space-nb'",
        ),
        ("fact_timeline.ipynb", {"VOXMEM_NOTEBOOK_PERSON": "Mayya"}, "person 'Mayya' is not a participant"),
    ],
)
def test_a_misspelt_space_or_person_stops_with_a_clear_error(
    loaded_space: str, name: str, env: dict, said: str, monkeypatch
) -> None:
    """A typo in the space or the person ran both notebooks to the end with '(0 turns shown)',
    '(0 facts about or stated by ...)' and empty plots; it now stops in the first cell, saying so."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(CellExecutionError) as failed:
        execute(name)
    assert said in str(failed.value)


def test_attribution_audit_reports_and_inspects_findings(loaded_space: str) -> None:
    nb = execute("attribution_audit.ipynb")
    out = text_of(nb)
    assert f"attribution audit of space {loaded_space!r}" in out
    provenance = next(ln for ln in out.splitlines() if "(audit_memory_provenance)" in ln)
    assert "[FAIL]" in provenance and provenance.split()[1] == "1"
    assert "fact_orphan_nb" in out
    assert "audit_memory_provenance: 1 (fail); inspect returned 1 rows" in out
    assert "summary: 9 checks" in out and "1 failed" in out
    assert any(ln.split()[:2] == ["Maya", "given"] for ln in out.splitlines())
    images = pngs(nb)
    assert len(images) == 2 and all(i.startswith(PNG_MAGIC) and len(i) > 5_000 for i in images)
