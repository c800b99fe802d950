"""The main job, end to end: API server up, a conversation in, questions answered.

Run by ``bash scripts/voxmem.sh demo`` after Neo4j is up. It starts the FastAPI server
as a child process (a real HTTP server, as agents use it), creates a fresh demo space
with its own key, ingests the shipped household conversation turn by turn, prints who
said what to whom from the graph, and asks questions. Everything it writes stays in
Neo4j for exploring in Browser afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

import httpx

from voxmem.config import Settings

DEMO_SPACE = "demo-household"


def _load_conversation() -> dict[str, Any]:
    text = resources.files("voxmem").joinpath("demo_data/household.json").read_text(encoding="utf-8")
    return json.loads(text)


def _start_server(settings: Settings) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "voxmem.cli", "serve", "--host", settings.host, "--port", str(settings.port)]
    log_path = settings.cache_dir / "demo-server.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "wb")  # noqa: SIM115 - the child owns it until it exits
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())


def _wait_ready(base: str, proc: subprocess.Popen[bytes], timeout_s: float = 180.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the API server exited with code {proc.returncode}; see demo-server.log")
        try:
            health = httpx.get(f"{base}/health", timeout=5).json()
            if health.get("status") == "ok":
                return health
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise TimeoutError("the API server did not become healthy in time")


def _section(title: str) -> None:
    print(f"\n=== {title} ===")


def run_demo(settings: Settings, keep_running: bool = False) -> int:
    base = f"http://{settings.host}:{settings.port}"
    admin = {"Authorization": f"Bearer {settings.admin_key.get_secret_value()}"}
    conversation = _load_conversation()
    t0 = time.monotonic()
    proc = _start_server(settings)
    try:
        health = _wait_ready(base, proc)
        _section("server")
        print(f"API {base}  (docs at {base}/docs)  ready in {time.monotonic() - t0:.1f} s")
        neo4j = health["neo4j"]
        print(f"Neo4j {neo4j.get('version')} {neo4j.get('edition')}, schema v{health['schema_version']}")
        print(f"offline components: {health['offline']}")

        with httpx.Client(base_url=base, timeout=60) as http:
            if http.get(f"/spaces/{DEMO_SPACE}", headers=admin).status_code == 200:
                http.delete(f"/admin/spaces/{DEMO_SPACE}", headers=admin).raise_for_status()
            http.post(
                "/admin/spaces", json={"id": DEMO_SPACE, "policy": "open"}, headers=admin
            ).raise_for_status()
            key = http.post(f"/admin/spaces/{DEMO_SPACE}/keys", json={"label": "demo"}, headers=admin).json()[
                "key"
            ]
            auth = {"Authorization": f"Bearer {key}"}

            _section(f"ingesting: {conversation['title']}")
            for session in conversation["sessions"]:
                start = datetime.fromisoformat(session["started_at"].replace("Z", "+00:00"))
                for i, turn in enumerate(session["turns"]):
                    body = {
                        "speaker": turn["speaker"],
                        "text": turn["text"],
                        "addressees": turn.get("addressees", []),
                        "ts": (start + timedelta(minutes=i)).isoformat(),
                        "turn_id": f"{session['id']}-{i}",
                    }
                    r = http.post(
                        f"/spaces/{DEMO_SPACE}/sessions/{session['id']}/turns", json=body, headers=auth
                    )
                    r.raise_for_status()
                print(f"  session {session['id']}: {len(session['turns'])} turns")

            _section("who said what to whom (read back from Neo4j)")
            for m in http.get(f"/spaces/{DEMO_SPACE}/messages", params={"limit": 200}, headers=auth).json():
                to = ", ".join(a["name"] for a in m["addressees"]) or "?"
                print(f"  [{m['session']} #{m['idx']}] {m['speaker']['name']} -> {to}: {m['text']}")

            _section("questions")
            for q in conversation["questions"]:
                hits = http.get(
                    f"/spaces/{DEMO_SPACE}/search", params={"q": q["ask"], "k": 2}, headers=auth
                ).json()
                print(f"  Q: {q['ask']}")
                for h in hits:
                    where = f"{h['session']} #{h['idx']}, {'+'.join(h['matched_by'])}"
                    print(f"     {h['speaker']['name']} ({where}): {h['text']}")

        _section("explore it")
        browser = f"http://localhost:{settings.neo4j_http_port}/browser/"
        print(f"  Neo4j Browser: {browser}  (user {settings.neo4j_user})")
        print(f"  MATCH (p:Participant {{space:'{DEMO_SPACE}'}})-[:SPEAKS]->(m:Message)")
        print("        OPTIONAL MATCH (m)-[:ADDRESSES]->(a) RETURN p, m, a")
        return 0
    finally:
        if keep_running:
            print(f"\nAPI server left running (pid {proc.pid}).")
        else:
            proc.terminate()
            proc.wait(timeout=30)
