"""The system under test, seen only through its HTTP API.

Why HTTP even in-process: the benchmark must measure what a user gets, including request
validation, key checks and serialisation. ``Target.in_process`` runs the real FastAPI app
on the real Neo4j through ``TestClient`` (same code path, no network hop); ``Target.remote``
talks to a running ``voxmem serve``. Which routes exist is read from ``/openapi.json``,
so the runner uses audio ingestion and ``/query`` as soon as those routes land and falls
back to the text-turn and search routes before that, saying so in the report.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from voxmem.config import Settings

AUDIO_ROUTE_HINTS = (
    "/spaces/{space}/sessions/{session}/audio-turns",
    "/spaces/{space}/sessions/{session}/audio",
)
ASKER_ROUTE = "/spaces/{space}/asker"
IMAGE_ROUTE = "/spaces/{space}/messages/{message_id}/images"
QUERY_ROUTE = "/spaces/{space}/query"
SEARCH_ROUTE = "/spaces/{space}/search"


class TargetError(RuntimeError):
    """The server answered with an error the benchmark cannot continue past."""


@dataclass
class TurnResult:
    message_id: str
    latency_s: float
    speaker_entity: str | None = None  # the system's speaker / participant id for this turn
    decision: str | None = None  # CREATE / LINK for audio routing
    transcript: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class AskResult:
    answer: str
    evidence: list[str]  # message ids, best first
    latency_s: float
    asker_entity: str | None = None
    asker_checked: bool = False  # the server was asked who spoke (audio question), known or not
    mode: str = "query"
    raw: dict[str, Any] = field(default_factory=dict)


def _check(response: httpx.Response, what: str) -> dict[str, Any] | list[Any]:
    if response.status_code >= 400:
        raise TargetError(f"{what}: HTTP {response.status_code}: {response.text[:500]}")
    return response.json() if response.content else {}


class Target:
    """Thin client for the voxmem API with the admin key (creates and deletes its spaces)."""

    def __init__(self, http: Any, admin_key: str, description: str) -> None:
        self.http = http
        self.admin = {"Authorization": f"Bearer {admin_key}"}
        self.description = description
        spec = _check(http.get("/openapi.json"), "openapi")
        self.paths: dict[str, Any] = spec.get("paths", {}) if isinstance(spec, dict) else {}
        self.audio_route = next((p for p in AUDIO_ROUTE_HINTS if p in self.paths), None)
        if self.audio_route is None:
            self.audio_route = next(
                (
                    p
                    for p in self.paths
                    if p.startswith("/spaces/{space}") and "audio" in p and "post" in self.paths[p]
                ),
                None,
            )
        self.has_query = QUERY_ROUTE in self.paths
        self.has_search = SEARCH_ROUTE in self.paths
        self.has_asker = ASKER_ROUTE in self.paths
        self.keys: dict[str, dict[str, str]] = {}

    # --- construction ----------------------------------------------------------------------
    @classmethod
    @contextmanager
    def in_process(cls, settings: Settings) -> Iterator[Target]:
        """The real app and services on the configured Neo4j, driven through TestClient."""
        from fastapi.testclient import TestClient

        from voxmem.api.app import create_app
        from voxmem.core import Voxmem

        services = Voxmem.build(settings)
        services.start()
        try:
            with TestClient(create_app(services=services), raise_server_exceptions=False) as client:
                yield cls(
                    client, settings.admin_key.get_secret_value(), f"in-process app on {settings.neo4j_uri}"
                )
        finally:
            services.close()

    @classmethod
    @contextmanager
    def remote(cls, url: str, admin_key: str, timeout_s: float = 120.0) -> Iterator[Target]:
        with httpx.Client(base_url=url, timeout=timeout_s) as client:
            yield cls(client, admin_key, f"server at {url}")

    # --- spaces -----------------------------------------------------------------------------
    def create_space(self, space: str, policy: str) -> None:
        _check(
            self.http.post("/admin/spaces", json={"id": space, "policy": policy}, headers=self.admin), "space"
        )
        key = _check(
            self.http.post(f"/admin/spaces/{space}/keys", json={"label": "bench"}, headers=self.admin), "key"
        )
        self.keys[space] = {"Authorization": f"Bearer {key['key']}"}  # type: ignore[index]

    def attach_space(self, space: str) -> None:
        """A key for a space that already exists (one kept from an earlier run)."""
        key = _check(
            self.http.post(f"/admin/spaces/{space}/keys", json={"label": "bench"}, headers=self.admin), "key"
        )
        self.keys[space] = {"Authorization": f"Bearer {key['key']}"}  # type: ignore[index]

    def delete_space(self, space: str) -> None:
        self.http.delete(f"/admin/spaces/{space}", headers=self.admin)

    # --- turns ------------------------------------------------------------------------------
    def text_turn(
        self, space: str, session: str, speaker: str, text: str, ts: datetime, turn_id: str
    ) -> TurnResult:
        body = {"speaker": speaker, "text": text, "ts": ts.isoformat(), "turn_id": turn_id}
        start = time.perf_counter()
        out = _check(
            self.http.post(f"/spaces/{space}/sessions/{session}/turns", json=body, headers=self.keys[space]),
            "turn",
        )
        latency = time.perf_counter() - start
        assert isinstance(out, dict)
        speaker_ref = out.get("speaker") or {}
        return TurnResult(out["id"], latency, speaker_entity=speaker_ref.get("id"), raw=out)

    def audio_turn(
        self,
        space: str,
        session: str,
        wav: Path,
        ts: datetime,
        turn_id: str,
        vocabulary: list[str] | None = None,
    ) -> TurnResult:
        """Post one spoken turn; ``vocabulary``: names its ASR should expect (spelling hints)."""
        if self.audio_route is None:
            raise TargetError("the server has no audio ingestion route")
        path = self.audio_route.replace("{space}", space).replace("{session}", session)
        start = time.perf_counter()
        with wav.open("rb") as handle:
            response = self.http.post(
                path,
                files={"audio": (wav.name, handle, "audio/wav")},
                data={
                    "ts": ts.isoformat(),
                    "turn_id": turn_id,
                    **({"vocabulary": ",".join(vocabulary)} if vocabulary else {}),
                },
                headers=self.keys[space],
            )
        latency = time.perf_counter() - start
        out = _check(response, "audio turn")
        assert isinstance(out, dict)
        return TurnResult(
            out.get("id") or out.get("message_id") or "",
            latency,
            speaker_entity=_speaker_entity(out),
            decision=_decision(out),
            transcript=out.get("text"),
            raw=out,
        )

    def end_session(self, space: str, session: str) -> dict[str, Any]:
        """What a device does when a conversation ends: reconcile that session's voice fragments."""
        out = _check(
            self.http.post(
                f"/spaces/{space}/speakers/reconcile", json={"session": session}, headers=self.keys[space]
            ),
            "reconcile",
        )
        assert isinstance(out, dict)
        return out

    def merged_speakers(self, space: str) -> dict[str, str]:
        """Speaker id → the speaker it was merged into (reconciliation), for final identities."""
        rows = _check(self.http.get(f"/spaces/{space}/speakers", headers=self.keys[space]), "speakers")
        assert isinstance(rows, list)
        return {r["id"]: r["merged_into"] for r in rows if r.get("merged_into")}

    def attach_image(self, space: str, message_id: str, caption: str) -> None:
        """A shared photo as its caption (the images themselves are not released for LoCoMo)."""
        if IMAGE_ROUTE not in self.paths:
            raise TargetError("the server has no image route")
        _check(
            self.http.post(
                f"/spaces/{space}/messages/{message_id}/images",
                json={"caption": caption},
                headers=self.keys[space],
            ),
            "image",
        )

    # --- questions --------------------------------------------------------------------------
    def ask(
        self, space: str, question: str, asker: str | None = None, audio: Path | None = None, k: int = 30
    ) -> AskResult:
        """Ask via /query (text, or audio when given), else fall back to /search."""
        headers = self.keys[space]
        start = time.perf_counter()
        if self.has_query:
            n = str(min(k, 50))
            if audio is not None:
                with audio.open("rb") as handle:
                    response = self.http.post(
                        f"/spaces/{space}/query",
                        files={"audio": (audio.name, handle, "audio/wav")},
                        data={"max_evidence": n},
                        headers=headers,
                    )
            else:
                body: dict[str, Any] = {"question": question, "max_evidence": int(n)}
                if asker:
                    body["asker"] = asker
                response = self.http.post(f"/spaces/{space}/query", json=body, headers=headers)
            latency = time.perf_counter() - start
            out = _check(response, "query")
            assert isinstance(out, dict)
            return AskResult(
                str(out.get("answer") or ""),
                _evidence_ids(out),
                latency,
                asker_entity=_asker_entity(out),
                asker_checked=audio is not None and (out.get("voice") is not None or "asker" in out),
                mode="query-audio" if audio is not None else "query-text",
                raw={
                    k: out.get(k) for k in ("answerer", "supported", "used", "scope", "reading", "transcript")
                },
            )
        if not self.has_search:
            raise TargetError("the server has neither /query nor /search")
        response = self.http.get(
            f"/spaces/{space}/search", params={"q": question, "k": min(k, 100)}, headers=headers
        )
        latency = time.perf_counter() - start
        hits = _check(response, "search")
        assert isinstance(hits, list)
        # Extractive baseline: the best three turns are the "answer".
        answer = " ".join(h.get("text", "") for h in hits[:3])
        return AskResult(
            answer, [h["id"] for h in hits], latency, mode="search-fallback", raw={"hits": hits[:5]}
        )


def _speaker_entity(out: dict[str, Any]) -> str | None:
    for key in ("speaker_id", "speaker_entity"):
        if isinstance(out.get(key), str):
            return out[key]
    routing = out.get("routing") or out.get("identity") or {}
    if isinstance(routing, dict):
        for key in ("speaker_id", "participant_id", "entity"):
            if isinstance(routing.get(key), str):
                return routing[key]
    speaker = out.get("speaker")
    if isinstance(speaker, dict):
        return speaker.get("id")
    return None


def _decision(out: dict[str, Any]) -> str | None:
    routing = out.get("routing") or out.get("identity") or {}
    value = routing.get("decision") if isinstance(routing, dict) else None
    return value or out.get("decision")


def _asker_entity(out: dict[str, Any]) -> str | None:
    """The voice (Speaker id) the server matched the asker to, else the participant it named."""
    voice = out.get("voice")
    if isinstance(voice, dict) and (voice.get("speaker_id") or voice.get("participant_id")):
        return voice.get("speaker_id") or voice.get("participant_id")
    scope = out.get("scope")
    if isinstance(scope, dict) and scope.get("asker"):
        return scope["asker"]
    asker = out.get("asker")
    if isinstance(asker, dict):
        return asker.get("id") or asker.get("participant_id") or asker.get("speaker_id")
    return asker if isinstance(asker, str) else None


def _evidence_ids(out: dict[str, Any]) -> list[str]:
    """Message ids from a /query answer, best first; facts contribute their source turns."""
    ids: list[str] = []
    for item in out.get("evidence") or []:
        if isinstance(item, str):
            candidates = [item]
        elif isinstance(item, dict):
            candidates = []
            for key in ("message_id", "id"):
                value = item.get(key)
                if isinstance(value, str) and not value.startswith(("fact_", "attr_")):
                    candidates.append(value)
                    break
            for key in ("message_ids", "derived_from", "turn_ids", "source_ids"):
                values = item.get(key)
                if isinstance(values, list):
                    candidates += [v for v in values if isinstance(v, str)]
        else:
            continue
        for value in candidates:
            if value not in ids:
                ids.append(value)
    return ids
