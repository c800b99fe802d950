"""Run in a subprocess by test_client.py with torch/numpy/neo4j/fastapi blocked: the light client
(built as the voxmem-client wheel) must work against the real server with only httpx, pydantic
and tenacity. argv: base_url, space, space key. Prints one JSON line of what it saw."""

from __future__ import annotations

import asyncio
import importlib.abc
import json
import sys

BLOCKED = ("torch", "numpy", "neo4j", "fastapi", "starlette", "sentence_transformers", "scipy")


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the client must not need it")
        return None


sys.meta_path.insert(0, Block())

import voxmem  # noqa: E402
from voxmem.client import AsyncVoxmemClient, VoxmemClient, VoxmemHTTPError  # noqa: E402

base, space, key = sys.argv[1:4]
seen: dict = {"voxmem_file": voxmem.__file__}
with VoxmemClient(base, api_key=key) as client:
    m = client.append_turn(
        space, "s1", "Maya", "Tom, the garage code is 4417.", addressees=["Tom"], turn_id="t1"
    )
    again = client.append_turn(
        space, "s1", "Maya", "Tom, the garage code is 4417.", addressees=["Tom"], turn_id="t1"
    )
    client.append_turn(space, "s1", "Tom", "Thanks Maya, noted.", addressees=["Maya"])
    seen["message_type"] = type(m).__name__
    seen["same_id"] = m.id == again.id
    seen["messages"] = len(client.list_messages(space, session="s1"))
    seen["sessions"] = [(x.id, x.turns) for x in client.list_sessions(space).sessions]
    answer = client.query(space, "What is the garage code?", asker="Tom")
    seen["answer_type"] = type(answer).__name__
    seen["scope_asker_name"] = answer.scope.asker_name
    found = client.retrieve(space, "garage code", asker="Maya", k=5)
    seen["retrieved"] = [e.text for e in found.evidence]
    seen["profile_scope"] = client.profile(space, "Tom", asker="Maya").scope.asker_name
    seen["jobs"] = client.list_jobs(space).jobs
    seen["space_messages"] = client.get_space(space).messages
    try:
        client.get_message(space, "nope")
    except VoxmemHTTPError as exc:
        seen["not_found"] = [exc.status_code, exc.error.error if exc.error else None]
    progress: list = []
    try:
        client.upload_recording(
            space,
            "rec",
            b"not audio" * 40_000,
            recording_id="r1",
            on_upload=lambda s, t: progress.append([s, t]),
        )
    except VoxmemHTTPError as exc:
        seen["bad_audio"] = exc.status_code
    seen["upload_progress"] = [len(progress), progress[-1] if progress else None]


async def run_async() -> None:
    async with AsyncVoxmemClient(base, api_key=key) as client:
        turn = await client.append_turn(space, "s2", "Ana", "Maya, dinner is at eight.", addressees=["Maya"])
        seen["async_turn_speaker"] = turn.speaker.name
        msgs, answer = await asyncio.gather(
            client.list_messages(space), client.query(space, "When is dinner?", asker="Maya")
        )
        seen["async_messages"] = len(msgs)
        seen["async_answer_type"] = type(answer).__name__
        try:
            await client.query(space, "x", asker="Nobody At All")
        except VoxmemHTTPError as exc:
            seen["async_unknown_asker"] = exc.status_code


asyncio.run(run_async())
print(json.dumps(seen, default=str))
