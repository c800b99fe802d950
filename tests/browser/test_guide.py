"""The Browser guide and style served by voxmem: every guide block runs as pasted (the
``:param`` blocks evaluated the way Browser does, ``RETURN expr``), the style captions each
label by its readable property, and the provisioned neo4j.conf points Browser at both."""

from __future__ import annotations

import html
import re

from fastapi.testclient import TestClient

from voxmem.api.routes.browser import body_of
from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.demo import _load_conversation
from voxmem.neo4j_local.conf import render_conf

RUNNABLE = re.compile(r'<pre class="runnable">(.*?)</pre>', re.S)


def test_guide_queries_run_as_pasted(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    turns = [
        ("Maya", "Priya", "Mom, I need new football boots before Saturday's match."),
        ("Priya", "Maya", "Fine, Maya, but you pay half from your allowance."),
        ("Maya", "Priya", "Actually I need new football boots and shin pads."),
    ]
    for i, (who, to, text) in enumerate(turns):
        body = {"speaker": who, "text": text, "addressees": [to], "turn_id": f"t{i}"}
        r = app_client.post(f"/spaces/{space}/sessions/kitchen/turns", json=body, headers=space_headers)
        assert r.status_code == 201, r.text

    r = app_client.get("/browser/guide", params={"space": space, "session": "kitchen", "person": "maya"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
    assert r.text.count("<slide") == 8
    blocks = [html.unescape(b) for b in RUNNABLE.findall(r.text)]
    params: dict = {}
    results: list[tuple[str, list]] = []
    for block in blocks:
        if block.startswith(":param "):
            name, expr = block[len(":param ") :].split(" => ", 1)
            params[name] = services.db.query(f"RETURN {expr} AS v")[0]["v"]
        elif block.startswith(":style "):
            assert block.endswith("/browser/style.grass")
        else:
            used = set(re.findall(r"\$(\w+)", block))
            assert used <= set(params), f"guide query needs {used - set(params)}"
            results.append((block, services.db.query(block, **{k: params[k] for k in used})))
    assert params["space"] == space and params["voice"] is None
    assert len(results) == 6 + 9  # six browse queries, nine audit checks
    person_query = next(q for q, _ in results if "$person" in q)
    for typed in ("maya", "Maya", " MAYA "):  # a name as typed: 'Maya' alone once showed nothing
        rows = services.db.query(person_query, space=space, person=typed)
        assert {r["m"]["idx"] for r in rows} == {0, 2}, typed
    session_rows = next(rows for q, rows in results if "session: $session" in q)
    spoken = {(row["p"]["display"], row["m"]["idx"], (row["q"] or {}).get("display")) for row in session_rows}
    assert spoken == {("Maya", 0, "Priya"), ("Priya", 1, "Maya"), ("Maya", 2, "Priya")}


def test_guide_defaults_show_the_demo_conversation(
    app_client: TestClient, services: Voxmem, space: str, space_headers: dict
) -> None:
    """After the demo, every parameterised slide opened with the guide's defaults shows something.

    The demo is loaded here as text (its transcript); that "boots" reached no fact in the spoken
    demo (ASR) was seen on real demo runs, which this test cannot reproduce cheaply.
    """
    # A space where nothing was superseded says so in a row instead of an empty result that
    # reads like a query that did not run.
    empty = services.db.query(body_of("browse_fact_history"), space=space)
    assert [row["path"] for row in empty] == [None]
    assert empty[0]["note"].startswith(f"nothing in {space} has been superseded yet")
    demo = _load_conversation()
    for session in demo["sessions"]:
        for i, turn in enumerate(session["turns"]):
            body = {k: turn[k] for k in ("speaker", "text", "addressees") if k in turn}
            body["turn_id"] = f"{session['id']}-{i}"
            url = f"/spaces/{space}/sessions/{session['id']}/turns"
            r = app_client.post(url, json=body, headers=space_headers)
            assert r.status_code == 201, r.text
    r = app_client.get("/browser/guide", params={"space": space})  # everything else as the guide sets it
    params: dict = {}
    for block in (html.unescape(b) for b in RUNNABLE.findall(r.text)):
        if block.startswith(":param "):
            name, expr = block[len(":param ") :].split(" => ", 1)
            params[name] = services.db.query(f"RETURN {expr} AS v")[0]["v"]
    for name in ("browse_session", "browse_person", "browse_fact_sources", "browse_fact_history"):
        used = set(re.findall(r"\$(\w+)", body_of(name)))
        rows = services.db.query(body_of(name), **{k: params[k] for k in used})
        assert rows, f"{name} shows nothing with the guide's defaults {params}"
    # The demo's two reschedulings supersede the earlier times (``when:<event>`` slots): the
    # match (Maya: Saturday -> Sunday morning at nine) and Tom's client call (one -> Friday).
    history = services.db.query(body_of("browse_fact_history"), space=space)
    chains = {tuple(n["display"] for n in row["path"] if "display" in n) for row in history}
    assert all(row["note"] is None for row in history) and len(chains) == 2, chains
    match = next(chain for chain in chains if "match" in chain[0])
    call = next(chain for chain in chains if "client call" in chain[0])
    assert "Sunday" in match[0] and "Saturday" in match[1], match
    assert "Friday" in call[0] and "at one" in call[1], call
    assert services.db.query(body_of("browse_fact_history"), space="no-such-space")[0]["note"] == (
        "no space no-such-space (check :param space)"
    )


def test_style_captions_and_conf(app_client: TestClient) -> None:
    r = app_client.get("/browser/style.grass")
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
    captions = dict(re.findall(r"node\.(\w+) \{[^}]*?caption: '([^']*)'", r.text))
    assert captions["Message"] == "{text}"
    assert captions["Participant"] == captions["Fact"] == captions["Attribute"] == "{display}"

    conf = render_conf(Settings(port=8765), "2026.08.1", 25)
    assert "client.allow_telemetry=false" in conf
    assert "browser.remote_content_hostname_whitelist=localhost,127.0.0.1" in conf
    assert (
        "browser.post_connect_cmd=style http://localhost:8765/browser/style.grass; "
        "param space => 'demo-household'; play http://localhost:8765/browser/guide"
    ) in conf
    assert "allow_outgoing_connections" not in conf  # not a setting of 2026.x: strict validation would fail
