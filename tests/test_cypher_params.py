"""Every ``cypher/*.cypher`` file starts with the ``:param`` lines to paste into Neo4j Browser,
they name every parameter the composed query uses (access-rule fragments expanded, as
``voxmem cypher show NAME`` prints it), and the read-only queries run with exactly those values
(evaluated the way Browser's ``:param name => expr`` does: ``RETURN expr``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from voxmem.cli import main as cli_main
from voxmem.core import Voxmem
from voxmem.cypher import compose, query

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "cypher").glob("*.cypher"))
INTEGER_USE = re.compile(r"(?:LIMIT|SKIP)\s+\$(\w+)|\.\.\s*\$(\w+)\]", re.I)
WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|FOREACH|LOAD CSV)\b|db\.create\.|CALL \{", re.I)

SCRIPT = ROOT / "scripts" / "cypher_param_headers.py"
spec = importlib.util.spec_from_file_location("cypher_param_headers", SCRIPT)
headers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(headers)


def _params(text: str) -> dict[str, str]:
    return headers.split_header(text)[0]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_header_names_every_parameter(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith(headers.MARKER + "\n"), f"{path.name}: run python scripts/cypher_param_headers.py"
    named = _params(text)
    used = headers.params_used(headers.split_header(text)[1])
    assert set(used) <= set(named), f"{path.name}: no :param line for {sorted(set(used) - set(named))}"
    for m in INTEGER_USE.finditer(compose(headers.split_header(text)[1])):
        name = m.group(1) or m.group(2)
        assert re.fullmatch(r"\d+", named[name]), f"{path.name}: {name} => {named[name]} must be an integer"


def test_params_shorthand_is_not_used() -> None:
    """``:params {limit: 50}`` stores floats in Browser; the headers only use ``:param x => …``."""
    assert not [p.name for p in FILES if ":params {" in p.read_text(encoding="utf-8")]


def test_read_queries_run_as_pasted(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    for i, (who, to, text) in enumerate(
        [
            ("Priya", "Tom", "Tom, the plumber is coming on Thursday at ten, can you be home?"),
            ("Tom", "Priya", "I can, but only until noon."),
            ("Maya", "Priya", "Mom, I need new football boots before Saturday's match."),
        ]
    ):
        body = {"speaker": who, "text": text, "addressees": [to], "turn_id": f"t{i}"}
        url = f"/spaces/{space}/sessions/kitchen-monday/turns"
        r = app_client.post(url, json=body, headers=space_headers)
        assert r.status_code == 201, r.text

    ran = []
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        body = query(path.stem)  # composed: what `voxmem cypher show` prints and Browser runs
        if WRITES.search("\n".join(ln for ln in body.splitlines() if not ln.lstrip().startswith("//"))):
            continue
        params = {}
        for name, expr in _params(text).items():
            params[name] = space if name == "space" else services.db.query(f"RETURN {expr} AS v")[0]["v"]
        try:
            services.db.query(body, **params)
        except Exception as exc:  # name the file that fails
            pytest.fail(f"{path.name} fails with its pasted :param values: {exc}")
        ran.append(path.stem)
    assert {"messages_list", "fact_list", "audit_next_chain", "retrieve_facts_vector"} <= set(ran)
    assert len(ran) >= 30


def test_cypher_show_prints_the_composed_query(capsys: pytest.CaptureFixture[str]) -> None:
    """``voxmem cypher show NAME`` prints a pasteable query: header first, includes expanded."""
    assert cli_main(["cypher", "show", "retrieve_facts_vector"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(headers.MARKER + "\n// :param ")
    assert shown.rstrip().endswith(";")
    body = "\n".join(ln for ln in shown.splitlines() if not ln.lstrip().startswith("//"))
    assert "@access." not in body and "$access_policy" in body and "PARTICIPATED_IN" in body
    assert shown == query("retrieve_facts_vector") + ";\n"
    assert cli_main(["cypher", "show", "no_such_query"]) == 2
