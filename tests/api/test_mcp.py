"""The MCP server, driven by the SDK's own client over streamable HTTP against the real server:
tools write and read memory in the key's space, and the asker's access scope is the HTTP API's."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from voxmem.core import Voxmem
from voxmem.stores.messages import Turn

pytestmark = pytest.mark.asyncio


def _client(live_url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=120)
    return Client(streamable_http_client(f"{live_url}/mcp", http_client=http))


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


async def test_mcp_tools_write_and_read_a_space_with_scopes(
    live_url: str, services: Voxmem, space: str, space_key: str
) -> None:
    services.db.execute("MATCH (s:Space {id: $space}) SET s.policy = 'private'", space=space)
    async with _client(live_url, space_key) as mcp:
        tools = {t.name for t in (await mcp.list_tools()).tools}
        assert {
            "add_turn",
            "ask",
            "search_evidence",
            "who_said",
            "person_profile",
            "fact_history",
            "list_sessions",
        } <= tools
        said = _data(
            await mcp.call_tool(
                "add_turn",
                {
                    "session": "kitchen",
                    "speaker": "Maya",
                    "text": "Tom, the garage door code is 4417.",
                    "addressees": ["Tom"],
                    "turn_id": "k1",
                },
            )
        )
        assert said["speaker"]["name"] == "Maya"
        _data(
            await mcp.call_tool(
                "add_turn",
                {
                    "session": "kitchen",
                    "speaker": "Ana",
                    "text": "I am allergic to peanuts.",
                    "turn_id": "k2",
                },
            )
        )
        _data(
            await mcp.call_tool(
                "add_turn",
                {
                    "session": "garden",
                    "speaker": "Lena",
                    "text": "Ana, I moved to Lisbon last spring.",
                    "addressees": ["Ana"],
                },
            )
        )

        sessions = _data(await mcp.call_tool("list_sessions", {}))["sessions"]
        assert {s["id"]: s["turns"] for s in sessions} == {"kitchen": 2, "garden": 1}

        # private policy: Tom (addressed) sees the code; Lena (not there, not addressed) does not
        tom = _data(await mcp.call_tool("who_said", {"quote": "garage door code", "asker": "Tom"}))
        assert tom["turns"] and tom["turns"][0]["speaker"]["name"] == "Maya"
        assert [a["name"] for a in tom["turns"][0]["to"]] == ["Tom"]
        lena = _data(await mcp.call_tool("search_evidence", {"text": "garage door code", "asker": "Lena"}))
        assert all("4417" not in e["text"] for e in lena["evidence"])
        nobody = _data(await mcp.call_tool("search_evidence", {"text": "garage door code"}))
        assert nobody["evidence"] == [] and nobody["scope"]["identified_by"] == "none"

        answer = _data(
            await mcp.call_tool("ask", {"question": "Who said the garage door code is 4417?", "asker": "Tom"})
        )
        assert answer["scope"]["asker_name"] == "Tom" and answer["evidence"]
        prof = _data(await mcp.call_tool("person_profile", {"participant": "Ana", "asker": "Ana"}))
        assert prof["scope"]["asker_name"] == "Ana"
        facts = _data(await mcp.call_tool("fact_history", {"participant": "Lena", "asker": "Lena"}))
        assert facts["scope"]["asker_name"] == "Lena"

        bad = await mcp.call_tool("ask", {"question": "x", "asker": "Nobody Known"})
        assert bad.is_error and "NotFound" in bad.content[0].text

        text = await mcp.read_resource("voxmem://sessions/kitchen/transcript")
        lines = text.contents[0].text.splitlines()
        assert len(lines) == 2 and "Maya → Tom: Tom, the garage door code is 4417." in lines[0]

    # the turn went through the one pipeline: stored once, visible to the HTTP API
    rows = services.db.query("MATCH (m:Message {space: $space}) RETURN count(m) AS n", space=space)
    assert rows[0]["n"] == 3


async def test_mcp_refuses_missing_unknown_and_admin_keys(live_url: str, settings) -> None:
    for key, expected in (
        (None, "Unauthorized"),
        ("vxm_nope", "Unauthorized"),
        (settings.admin_key.get_secret_value(), "Forbidden"),
    ):
        async with _client(live_url, key) as mcp:
            out = await mcp.call_tool("list_sessions", {})
            assert out.is_error and expected in out.content[0].text


async def test_mcp_over_stdio_serves_the_key_space(services: Voxmem, space: str, space_key: str) -> None:
    import os
    import sys

    from mcp import StdioServerParameters

    services.messages.append(
        space, Turn(session="porch", speaker="Ana", text="The parcel is behind the bench.")
    )
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "voxmem.cli", "mcp", "--key", space_key], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=300) as mcp:
        sessions = _data(await mcp.call_tool("list_sessions", {}))["sessions"]
        assert [s["id"] for s in sessions] == ["porch"]
        text = await mcp.read_resource("voxmem://sessions/porch/transcript")
        assert "Ana: The parcel is behind the bench." in text.contents[0].text
