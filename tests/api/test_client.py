"""The Python clients: built as the light ``voxmem-client`` wheel and run against the real server
in a subprocess where torch, numpy, neo4j and fastapi cannot be imported; plus the retry rule."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

from voxmem.client import AsyncVoxmemClient, VoxmemClient, VoxmemHTTPError

ROOT = Path(__file__).resolve().parents[2]


def test_light_client_wheel_works_without_heavy_dependencies(
    live_url: str, space: str, space_key: str, tmp_path: Path
) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(ROOT / "clients" / "python"),
            "-w",
            str(tmp_path / "dist"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("voxmem_client-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"voxmem/__init__.py", "voxmem/client.py", "voxmem/api/schemas.py"} <= names
    assert not any(n.endswith(("services.py", "db.py", "app.py")) for n in names)
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("client_script.py")), live_url, space, space_key],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["voxmem_file"].startswith(str(tmp_path / "site"))  # the wheel, not the server tree
    assert seen["message_type"] == "MessageOut" and seen["same_id"] is True
    assert seen["messages"] == 2  # the retried turn_id was stored once
    assert seen["sessions"] == [["s1", 2]]
    assert seen["answer_type"] == "QueryOut" and seen["scope_asker_name"] == "Tom"
    assert "Tom, the garage code is 4417." in seen["retrieved"]
    assert seen["profile_scope"] == "Maya"
    assert seen["jobs"] == [] and seen["space_messages"] == 2
    assert seen["not_found"] == [404, "NotFound"]
    assert seen["bad_audio"] == 422
    chunks, last = seen["upload_progress"]
    assert chunks > 3 and last[0] == last[1] > 360_000
    assert seen["async_turn_speaker"] == "Ana" and seen["async_messages"] == 3
    assert seen["async_answer_type"] == "QueryOut" and seen["async_unknown_asker"] == 404


def _flaky(fail_with: list[int]) -> tuple[httpx.MockTransport, list[str]]:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if len(calls) <= len(fail_with):
            return httpx.Response(fail_with[len(calls) - 1], json={"error": "E", "detail": "d"})
        return httpx.Response(200, json={"id": "s", "policy": "open", "created_at": "now"})

    return httpx.MockTransport(handler), calls


def test_retries_only_when_nothing_was_written() -> None:
    transport, calls = _flaky([503, 503])
    client = VoxmemClient(http=httpx.Client(transport=transport, base_url="http://x"), retries=3)
    assert client.get_space("s").id == "s" and len(calls) == 3  # 503: the server wrote nothing
    transport, calls = _flaky([500])
    client = VoxmemClient(http=httpx.Client(transport=transport, base_url="http://x"), retries=3)
    with pytest.raises(VoxmemHTTPError) as err:
        client.get_space("s")
    assert err.value.status_code == 500 and len(calls) == 1  # a 500 is not retried blindly
    transport, calls = _flaky([503] * 10)
    client = VoxmemClient(http=httpx.Client(transport=transport, base_url="http://x"), retries=2)
    with pytest.raises(VoxmemHTTPError):
        client.get_space("s")
    assert len(calls) == 3


@pytest.mark.asyncio
async def test_async_client_retries_too() -> None:
    transport, calls = _flaky([503])
    client = AsyncVoxmemClient(http=httpx.AsyncClient(transport=transport, base_url="http://x"))
    assert (await client.get_space("s")).policy == "open" and len(calls) == 2
