"""voxmem as an MCP server (the official ``mcp`` SDK): streamable HTTP at ``/mcp`` of the API
app, and stdio via ``voxmem mcp``.

One space per key. Over HTTP every call carries ``Authorization: Bearer <space key>`` and is
resolved to its space exactly as the HTTP API does (``SpaceStore.space_for_key``); over stdio
the key comes from ``VOXMEM_API_KEY`` and is resolved once at start. The admin key is refused:
an agent works inside one space.

Tools reuse the services behind the HTTP routes, so the same rules apply: what an asker may
read is decided by the retrieval service's scope (``voxmem.retrieval.scope``) inside Cypher,
never here; an asker is a participant id or a name (ambiguous names are refused, candidates
listed); a turn goes through the one turn pipeline (store, then extract).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import Field

from voxmem import __version__
from voxmem.config import get_settings
from voxmem.core import Voxmem
from voxmem.errors import Forbidden, InvalidInput, Unauthorized, VoxmemError
from voxmem.retrieval.tools import Filters
from voxmem.stores.messages import Turn

INSTRUCTIONS = (
    "Long-term memory of multi-party conversations (who said what to whom, facts, preferences). "
    "Pass `asker` (a participant id or name) to read as that person: answers only use what they "
    "may see. Without an asker you read as the unknown asker (nothing, unless the space is open)."
)

Asker = Annotated[
    str | None,
    Field(description="Who is asking: participant id (p_…) or name; omit for the unknown asker."),
]


def _bearer(headers: Any) -> str | None:
    value = (headers or {}).get("authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def resolve_key(svc: Voxmem, key: str | None) -> str:
    """The space a key grants (401 unknown key, 403 the admin key: MCP is one space per key)."""
    if not key:
        raise Unauthorized("missing API key: send 'Authorization: Bearer <space key>'")
    if key == svc.settings.admin_key.get_secret_value():
        raise Forbidden("MCP works inside one space: use a space key, not the admin key")
    space = svc.spaces.space_for_key(key)
    if space is None:
        raise Unauthorized("unknown or revoked API key")
    return space


def build_mcp(services: Callable[[], Voxmem], fixed_key: str | None = None) -> MCPServer:
    """An MCP server over ``services()``; ``fixed_key`` for stdio, else the request's bearer key."""
    mcp = MCPServer(name="voxmem", version=__version__, instructions=INSTRUCTIONS)

    async def run(
        ctx: Context | None, work: Callable[[Voxmem, str], Any], error: type[Exception] = ToolError
    ) -> Any:
        svc = services()
        key = fixed_key if fixed_key is not None else _bearer(ctx.headers if ctx else None)
        try:
            return await anyio.to_thread.run_sync(lambda: work(svc, resolve_key(svc, key)))
        except VoxmemError as exc:  # the same message the HTTP API would give, as a tool error
            raise error(f"{type(exc).__name__} ({exc.status_code}): {exc.message}") from exc

    @mcp.tool(
        description="Store one text turn: who spoke, what they said and to whom (idempotent with turn_id)."
    )
    async def add_turn(
        session: Annotated[str, Field(description="Session (conversation) id; created on first use.")],
        speaker: Annotated[str, Field(description="Name of the person speaking.")],
        text: Annotated[str, Field(description="What was said.")],
        ctx: Context,
        addressees: Annotated[list[str] | None, Field(description="Names of the people spoken to.")] = None,
        ts: Annotated[str | None, Field(description="ISO-8601 time; default now.")] = None,
        turn_id: Annotated[
            str | None, Field(description="Your id for the turn; retries are idempotent.")
        ] = None,
    ) -> dict[str, Any]:
        def work(svc: Voxmem, space: str) -> dict[str, Any]:
            if not text.strip():
                raise InvalidInput("turn text is empty")
            try:
                when = datetime.fromisoformat(ts) if ts else None
            except ValueError as exc:
                raise InvalidInput(f"ts is not an ISO-8601 time: {ts!r}") from exc
            turn = Turn(
                session=session,
                speaker=speaker,
                text=text,
                addressees=addressees or [],
                ts=when,
                turn_id=turn_id,
            )
            return svc.pipeline.append_text(space, turn)

        return await run(ctx, work)

    @mcp.tool(
        description="Ask a question about past conversations, as `asker`; returns the answer and evidence."
    )
    async def ask(
        question: Annotated[str, Field(description="The question in plain words.")],
        ctx: Context,
        asker: Asker = None,
        max_evidence: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> dict[str, Any]:
        def work(svc: Voxmem, space: str) -> dict[str, Any]:
            retrieval = svc.retrieval
            answer = retrieval.ask(
                retrieval.scope(space, asker), question, max_evidence=max_evidence
            ).as_dict()
            keep = ("answer", "supported", "answerer", "used", "evidence", "scope")
            return {k: answer[k] for k in keep}

        return await run(ctx, work)

    def _search(
        space: str,
        svc: Voxmem,
        text: str,
        asker: str | None,
        layers: list[str] | None,
        filters: Filters,
        k: int,
    ) -> dict[str, Any]:
        retrieval = svc.retrieval
        scope = retrieval.scope(space, asker)
        return {"scope": scope.describe(), "evidence": retrieval.search(scope, text, layers, filters, k)}

    @mcp.tool(description="Search memory (turns, facts, profiles) as `asker`; fused ranking with provenance.")
    async def search_evidence(
        text: Annotated[str, Field(description="What to look for.")],
        ctx: Context,
        asker: Asker = None,
        layers: Annotated[
            list[str] | None, Field(description="Any of interaction, fact, profile; default all.")
        ] = None,
        session: str | None = None,
        k: Annotated[int, Field(ge=1, le=100)] = 10,
    ) -> dict[str, Any]:
        return await run(
            ctx, lambda svc, space: _search(space, svc, text, asker, layers, Filters(session=session), k)
        )

    @mcp.tool(
        description="Who said something, and to whom: the turns matching `quote` with their speaker and "
        "addressees, as `asker` may see them. Filter by speaker or addressee (id or name)."
    )
    async def who_said(
        quote: Annotated[str, Field(description="Words of what was said.")],
        ctx: Context,
        asker: Asker = None,
        speaker: str | None = None,
        addressee: str | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> dict[str, Any]:
        def work(svc: Voxmem, space: str) -> dict[str, Any]:
            found = _search(
                space, svc, quote, asker, ["interaction"], Filters(speaker=speaker, addressee=addressee), k
            )
            turns = [
                {
                    "text": e["text"],
                    "speaker": e.get("speaker"),
                    "to": e.get("addressees", []),
                    "session": e.get("session"),
                    "ts": e.get("ts"),
                    "id": e["id"],
                }
                for e in found["evidence"]
            ]
            return {"scope": found["scope"], "turns": turns}

        return await run(ctx, work)

    @mcp.tool(
        description="A person's profile (background, preferences, relationships) as `asker` may see it."
    )
    async def person_profile(
        participant: Annotated[str, Field(description="Participant id or name.")],
        ctx: Context,
        asker: Asker = None,
    ) -> dict[str, Any]:
        def work(svc: Voxmem, space: str) -> dict[str, Any]:
            retrieval = svc.retrieval
            return retrieval.profile(retrieval.scope(space, asker), participant, current_only=False)

        return await run(ctx, work)

    @mcp.tool(
        description="Facts about a person over time (current and superseded, with valid_from/valid_to "
        "and source turns), as `asker` may see them; `topic` narrows them."
    )
    async def fact_history(
        participant: Annotated[str, Field(description="Participant id or name.")],
        ctx: Context,
        asker: Asker = None,
        topic: str | None = None,
        k: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        def work(svc: Voxmem, space: str) -> dict[str, Any]:
            filters = Filters(about=participant, participant=participant, current_only=False)
            return _search(space, svc, topic or participant, asker, ["fact"], filters, k)

        return await run(ctx, work)

    @mcp.tool(description="Sessions (conversations) of the space with their size and time span.")
    async def list_sessions(
        ctx: Context, limit: Annotated[int, Field(ge=1, le=1000)] = 100
    ) -> dict[str, Any]:
        return await run(
            ctx,
            lambda svc, space: {"sessions": svc.messages.sessions(space, limit)},
        )

    @mcp.resource(
        "voxmem://sessions/{session}/transcript",
        name="session_transcript",
        description="A session as text, one turn per line: [time] speaker → addressees: text.",
        mime_type="text/plain",
    )
    async def transcript(session: str, ctx: Context) -> str:
        def work(svc: Voxmem, space: str) -> str:
            rows = svc.messages.list(space, session, None, None, 0, 10_000)
            if not rows:
                raise InvalidInput(f"session {session!r} has no messages")
            return "\n".join(_line(m) for m in rows)

        return await run(ctx, work, ResourceError)

    return mcp


def _line(m: dict[str, Any]) -> str:
    who = (m.get("speaker") or {}).get("name") or "unknown"
    to = ", ".join(a.get("name") or a["id"] for a in m.get("addressees") or [])
    return f"[{m['ts']}] {who}{' → ' + to if to else ''}: {m['text']}"


def run_stdio(key: str | None = None) -> None:
    """``voxmem mcp``: serve one space over stdio; the key from ``--key`` or ``VOXMEM_API_KEY``."""
    key = key or os.environ.get("VOXMEM_API_KEY")
    svc = Voxmem.build(get_settings())
    svc.start()
    try:
        resolve_key(svc, key)  # fail at start, not on the first tool call
        build_mcp(lambda: svc, fixed_key=key).run("stdio")
    finally:
        svc.close()
