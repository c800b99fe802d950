"""The main job, end to end and spoken: API up, a conversation in by voice, questions answered.

Run by ``bash scripts/voxmem.sh demo`` after Neo4j is up. It starts the FastAPI server as
a child process (a real HTTP server, as agents use it), creates a fresh demo space with its
own key, and plays the shipped household conversation as audio: each turn is spoken by a
synthetic voice (espeak-ng + sox) and sent WITHOUT the speaker's name (only the household's
four names go along as an ASR spelling hint, ``vocabulary``, not saying whose voice is whose).
voxmem recognises the voices, transcribes them, learns the names from how people address each other,
extracts facts, and answers questions, some asked aloud ("what did I ask for?"), for the
asker only. ``--text`` skips audio and sends names with the text (seconds instead of a
minute). Everything stays in Neo4j for exploring in Browser afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

import httpx

from voxmem.api.schemas import MessageOut, QueryOut
from voxmem.audio.speech import speak
from voxmem.client import VoxmemClient, VoxmemHTTPError
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
    print(f"\n=== {title} ===", flush=True)


def _ingest(
    client: VoxmemClient, conversation: dict[str, Any], spoken: bool, vocabulary: bool = True
) -> dict[str, str]:
    """Send every turn; returns message id -> true speaker (the demo knows the script)."""
    truth: dict[str, str] = {}
    for session in conversation["sessions"]:
        start = datetime.fromisoformat(session["started_at"].replace("Z", "+00:00"))
        print(f"  session {session['id']} ({start:%a %d %b %H:%M})")
        for i, turn in enumerate(session["turns"]):
            ts = start + timedelta(minutes=i)
            turn_id = f"{session['id']}-{i}"
            if spoken:
                wav = speak(turn["text"], conversation["voices"][turn["speaker"]])
                m: MessageOut = client.append_audio_turn(
                    DEMO_SPACE,
                    session["id"],
                    wav,
                    turn_id=turn_id,
                    ts=ts.isoformat(),
                    vocabulary=conversation.get("vocabulary") if vocabulary else None,
                )
                routing = m.get("routing") or {}
                print(
                    f"    voice {routing.get('speaker_id', '?')[-6:]} {routing.get('decision', '?'):<6} "
                    f"score {routing.get('score') or 0:.2f}  heard: {m['text']}"
                )
            else:
                m = client.append_turn(
                    DEMO_SPACE,
                    session["id"],
                    turn["speaker"],
                    turn["text"],
                    turn.get("addressees"),
                    ts,
                    turn_id,
                )
            truth[m["id"]] = turn["speaker"]
        if spoken:
            client.reconcile_speakers(DEMO_SPACE, session["id"])
    return truth


def _show_attribution(client: VoxmemClient, truth: dict[str, str]) -> None:
    messages = client.list_messages(DEMO_SPACE, limit=500)
    # A voice's participant is named once someone names them; map participant ids to names.
    right = 0
    for m in messages:
        who = (m.get("speaker") or {}).get("name") or "(unnamed voice)"
        to = ", ".join(a.get("name") or "?" for a in m["addressees"]) or "?"
        ok = who == truth.get(m["id"])
        right += ok
        note = "" if ok else f"   (really {truth.get(m['id'])})"
        print(f"  [{m['session']} #{m['idx']}] {who} -> {to}: {m['text']}{note}")
    print(f"  speaker names right on {right}/{len(messages)} turns")


def _ask_typed(client: VoxmemClient, question: str, asker: str | None) -> QueryOut:
    """A typed question names its asker as a user would, by name. The server resolves it, in one
    place (``resolve_participant``), to the one participant bearing it: a voice named from the
    talk, or a person known only by name because someone called them (then the scope is the
    sessions that person took part in). The demo used to send only ids of voices it saw named, so
    a name only such a placeholder bore ("Priya", called by Tom) became no asker at all. A name
    memory never heard is 404: the question is then asked without an asker, and the answer says
    why nothing is readable."""
    try:
        return client.query(DEMO_SPACE, question, asker=asker)
    except VoxmemHTTPError as exc:
        if exc.status_code != 404 or asker is None:
            raise
        print(f"     (nobody in memory is called {asker!r} yet: asked without an asker)")
        return client.query(DEMO_SPACE, question)


def _ask(client: VoxmemClient, conversation: dict[str, Any], spoken: bool) -> None:
    for q in conversation["questions"]:
        asker = q.get("asker")
        if spoken and q.get("spoken"):
            wav = speak(q["ask"], conversation["voices"][asker])
            result = client.query_audio(DEMO_SPACE, wav)
            how = f"asked aloud by {asker}"
        else:
            result = _ask_typed(client, q["ask"], asker)
            how = f"asked by {asker} (text)"
        scope = result["scope"]
        print(f"  Q ({how}): {result.get('question') or q['ask']}")
        who = scope.get("asker_name") or ("an unnamed participant" if scope.get("asker") else "unknown")
        print(f"     recognised asker: {who} via {scope['identified_by']}")
        print(f"     A [{result['answerer']}]: {result['answer']}")
        if not result["supported"]:
            for note in result["notes"]:
                print(f"       ({note})")
        for label, ev in _shown_evidence(result):
            speaker = (ev.get("speaker") or {}).get("name") or "?"
            print(f"       {label} {ev['session']} #{ev['idx']} {speaker}: {ev['text']}")


def _shown_evidence(result: QueryOut) -> list[tuple[str, dict[str, Any]]]:
    """The turns an answer rests on (its ``used`` ids), labelled so; without any, the two best
    retrieved. Why: the demo printed the two best-ranked turns under every answer, so "next to
    the bikes" stood above two turns that do not say it, and a reader auditing the answer had to
    guess which turn it came from."""
    evidence = result.get("evidence") or []
    used = set(result.get("used") or [])
    cited = [("rests on", ev) for ev in evidence if ev.get("id") in used]
    return cited or [("retrieved", ev) for ev in evidence[:2]]


def run_demo(
    settings: Settings, keep_running: bool = False, spoken: bool = True, vocabulary: bool = True
) -> int:
    base = f"http://{settings.host}:{settings.port}"
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

        admin = VoxmemClient(base, settings.admin_key.get_secret_value())
        with contextlib.suppress(VoxmemHTTPError):  # absent on a first run
            admin.delete_space(DEMO_SPACE)
        admin.create_space(DEMO_SPACE, policy="participant")
        client = VoxmemClient(base, admin.issue_key(DEMO_SPACE, "demo")["key"], timeout=300)

        _section(f"ingesting {'spoken' if spoken else 'text'}: {conversation['title']}")
        t1 = time.monotonic()
        truth = _ingest(client, conversation, spoken, vocabulary)
        print(f"  {len(truth)} turns in {time.monotonic() - t1:.1f} s")

        _section("who said what to whom (read back from Neo4j)")
        _show_attribution(client, truth)

        _section("questions")
        _ask(client, conversation, spoken)

        _section("explore it")
        browser = f"http://localhost:{settings.neo4j_http_port}/browser/"
        print(f"  Neo4j Browser: {browser}  (user {settings.neo4j_user})")
        print(f"  MATCH (p:Participant {{space:'{DEMO_SPACE}'}})-[:SPEAKS]->(m:Message)")
        print("        OPTIONAL MATCH (m)-[:ADDRESSES]->(a) RETURN p, m, a")
        print(f"  voxmem audit {DEMO_SPACE}   # attribution invariants")
        return 0
    finally:
        if keep_running:
            print(f"\nAPI server left running (pid {proc.pid}).")
        else:
            proc.terminate()
            proc.wait(timeout=30)
