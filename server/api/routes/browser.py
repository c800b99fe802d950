"""Neo4j Browser helpers served by voxmem: the graph style (``.grass``) and a ``:play`` guide.

The local Neo4j that voxmem provisions runs ``:style <this server>/browser/style.grass`` and
``:play <this server>/browser/guide`` right after login (``browser.post_connect_cmd``, see
``voxmem.neo4j_local.conf``). Browser fetches both from its own page (another origin), so the
responses allow any origin; they hold no data, only the style and the queries' text. The guide's
queries are the ``cypher/browse_*.cypher`` and ``cypher/audit_*.cypher`` files, so they stay the
one copy that tests run.
"""

from __future__ import annotations

import html
from importlib import resources

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from voxmem.audit import CHECKS
from voxmem.cypher import query

router = APIRouter(prefix="/browser", tags=["browser"])

OPEN = {"Access-Control-Allow-Origin": "*"}

# (query file, slide title, what to look at) in slide order.
SLIDES: tuple[tuple[str, str, str], ...] = (
    (
        "browse_session",
        "Who said what to whom in a session",
        "Speakers point at their turns (SPEAKS), turns at "
        "the people they address (ADDRESSES). Change <code>$session</code> to see another session.",
    ),
    (
        "browse_person",
        "Everything one person said, and to whom",
        "<code>$person</code> is a name as spoken (any case) or a participant id.",
    ),
    (
        "browse_addresses_weighted",
        "Who addresses whom most",
        "A table: turns and summed addressee confidence per speaker and addressee.",
    ),
    (
        "browse_fact_sources",
        "A fact with its source turns and speakers",
        "Facts containing "
        "<code>$contains</code>, the turns they were DERIVED_FROM, who spoke them, "
        "and whom the facts are about.",
    ),
    (
        "browse_fact_history",
        "A fact's history",
        "Current facts and attributes and the older values they SUPERSEDE, each with its source "
        "turn; a space where nothing has changed yet gets one row saying so.",
    ),
    (
        "browse_voice_routing",
        "A voice's routing decisions",
        "Each time the speaker router heard a voice: "
        "CREATE (a new voice) or LINK (a known one), with score and margin. <code>$voice</code>: a speaker "
        "id, a person (id or name, any case), or null for all.",
    ),
)


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def body_of(name: str) -> str:
    """A query file without its comment lines: what the guide puts in the editor."""
    lines = [ln for ln in query(name).splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def _runnable(text: str) -> str:
    return f'<pre class="runnable">{html.escape(text)}</pre>'


def _base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def render_guide(base_url: str, space: str, session: str, person: str, contains: str) -> str:
    values = {"space": space, "session": session, "person": person, "contains": contains}
    params = "\n".join(_runnable(f":param {name} => {_literal(v)}") for name, v in values.items())
    params += _runnable(":param voice => null")
    slides = []
    for name, title, note in SLIDES:
        slides.append(
            f'<slide class="row-fluid"><div class="col-sm-12"><h3>{title}</h3><p>{note}</p>'
            f"{_runnable(body_of(name))}<p><small>cypher/{name}.cypher</small></p></div></slide>"
        )
    checks = "".join(
        f"<p>{html.escape(c.meaning)} ({'must be 0' if c.must_be_zero else 'informational'})</p>"
        f"{_runnable(body_of(c.name))}"
        for c in CHECKS
    )
    slides.append(
        '<slide class="row-fluid"><div class="col-sm-12"><h3>Attribution audit</h3>'
        "<p>The checks <code>voxmem audit $space</code> runs; each returns a count and up to 10 ids. "
        "<code>voxmem audit &lt;space&gt;</code> prints a query to inspect each id list.</p>"
        f"{checks}</div></slide>"
    )
    template = resources.files("voxmem.graph_schema").joinpath("browser/guide.html").read_text("utf-8")
    return (
        template.replace("$SPACE", html.escape(space))
        .replace("$PARAMS", params)
        .replace("$STYLE_URL", f"{base_url}/browser/style.grass")
        .replace("$SLIDES", "\n".join(slides))
    )


@router.get("/style.grass", response_class=PlainTextResponse, summary="Neo4j Browser style for this graph")
def style() -> PlainTextResponse:
    text = resources.files("voxmem.graph_schema").joinpath("browser/voxmem.grass").read_text("utf-8")
    return PlainTextResponse(text, headers=OPEN)


@router.get("/guide", response_class=HTMLResponse, summary="Neo4j Browser guide (:play this URL)")
def guide(
    request: Request,
    space: str = Query("demo-household", max_length=128),
    session: str = Query("kitchen-monday", max_length=128),
    person: str = Query("maya", max_length=128),
    contains: str = Query("Sunday", max_length=200),
) -> HTMLResponse:
    """The guide with its parameters preset; the defaults show the spoken demo's space.

    ``contains`` is a word the demo's facts keep through tiny.en: "Sunday" is heard in two
    turns, while "boots" (the default before) reached no fact ("football boots" is heard as
    "follow the police"), so that slide showed nothing after the demo.
    """
    return HTMLResponse(render_guide(_base_url(request), space, session, person, contains), headers=OPEN)


@router.options("/{path:path}", include_in_schema=False)
def preflight(request: Request) -> Response:
    """CORS preflight: Browser fetches the style and guide with custom headers, so it asks first.

    Without this answer (405) ``:style`` failed with "Failed to fetch" and ``:play`` said
    "No guide by that name" right after login (seen in tests/browser/test_browser_headless.py).
    """
    asked = request.headers.get("access-control-request-headers", "")
    headers = {**OPEN, "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Max-Age": "600"}
    return Response(status_code=204, headers={**headers, "Access-Control-Allow-Headers": asked or "*"})
