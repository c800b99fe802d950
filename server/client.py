"""A small Python client for the whole voxmem HTTP API (httpx, synchronous).

Errors come back as :class:`VoxmemHTTPError` carrying the status code and the server's
``{"error", "detail"}`` body, so callers can tell a 404 from a 422 without parsing text.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import httpx


class VoxmemHTTPError(Exception):
    def __init__(self, status_code: int, body: Any) -> None:
        super().__init__(f"HTTP {status_code}: {body}")
        self.status_code = status_code
        self.body = body


class VoxmemClient:
    """``VoxmemClient(base_url, api_key)``; pass ``http=`` to reuse an httpx.Client (or a TestClient)."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8765",
        api_key: str | None = None,
        timeout: float = 60.0,
        http: httpx.Client | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = http or httpx.Client(base_url=base_url, timeout=timeout)
        self.headers = headers

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> VoxmemClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(
            method, path, headers={**self.headers, **kwargs.pop("headers", {})}, **kwargs
        )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = response.text
            raise VoxmemHTTPError(response.status_code, body)
        return response.json() if response.content else None

    # --- health and admin ----------------------------------------------------------------------
    def health(self) -> dict:
        return self._call("GET", "/health")

    def create_space(self, space: str, policy: str = "participant") -> dict:
        return self._call("POST", "/admin/spaces", json={"id": space, "policy": policy})

    def issue_key(self, space: str, label: str = "") -> dict:
        return self._call("POST", f"/admin/spaces/{space}/keys", json={"label": label})

    def delete_space(self, space: str) -> Any:
        return self._call("DELETE", f"/admin/spaces/{space}")

    # --- conversation --------------------------------------------------------------------------
    def get_space(self, space: str) -> dict:
        return self._call("GET", f"/spaces/{space}")

    def append_turn(
        self,
        space: str,
        session: str,
        speaker: str,
        text: str,
        addressees: list[str] | None = None,
        ts: datetime | str | None = None,
        turn_id: str | None = None,
    ) -> dict:
        body: dict[str, Any] = {"speaker": speaker, "text": text, "addressees": addressees or []}
        if ts is not None:
            body["ts"] = ts.isoformat() if isinstance(ts, datetime) else ts
        if turn_id is not None:
            body["turn_id"] = turn_id
        return self._call("POST", f"/spaces/{space}/sessions/{session}/turns", json=body)

    def append_audio_turn(self, space: str, session: str, audio: bytes | str | Path, **form: Any) -> dict:
        return self._call(
            "POST",
            f"/spaces/{space}/sessions/{session}/audio-turns",
            files={"audio": _audio(audio)},
            data={k: v for k, v in form.items() if v is not None},
        )

    def reconcile_speakers(self, space: str, session: str) -> dict:
        """Merge fragments of one voice after a session (conservative, reversible)."""
        return self._call("POST", f"/spaces/{space}/speakers/reconcile", json={"session": session})

    def list_messages(self, space: str, **filters: Any) -> list[dict]:
        return self._call("GET", f"/spaces/{space}/messages", params={k: v for k, v in filters.items() if v})

    def search(self, space: str, q: str, k: int = 10) -> list[dict]:
        return self._call("GET", f"/spaces/{space}/search", params={"q": q, "k": k})

    # --- retrieval -----------------------------------------------------------------------------
    def query(self, space: str, question: str, asker: str | None = None, **options: Any) -> dict:
        """Ask a text question as ``asker`` (participant id) or as the unknown asker."""
        body = {"question": question, "asker": asker, **options}
        return self._call(
            "POST", f"/spaces/{space}/query", json={k: v for k, v in body.items() if v is not None}
        )

    def query_audio(
        self, space: str, audio: bytes | str | Path, question: str | None = None, **options: Any
    ) -> dict:
        """Ask a spoken question; the asker is recognised by voice (read-only)."""
        data = {k: str(v) for k, v in {"question": question, **options}.items() if v is not None}
        return self._call("POST", f"/spaces/{space}/query", files={"audio": _audio(audio)}, data=data)

    def retrieve(self, space: str, text: str, asker: str | None = None, k: int = 10, **filters: Any) -> dict:
        body = {"text": text, "asker": asker, "k": k, **filters}
        return self._call(
            "POST", f"/spaces/{space}/retrieve", json={k_: v for k_, v in body.items() if v is not None}
        )

    def profile(
        self, space: str, participant: str, asker: str | None = None, current_only: bool = False
    ) -> dict:
        params: dict[str, Any] = {"current_only": str(current_only).lower()}
        if asker:
            params["asker"] = asker
        return self._call("GET", f"/spaces/{space}/retrieve/profile/{participant}", params=params)


def _audio(audio: bytes | str | Path) -> tuple[str, bytes, str]:
    if isinstance(audio, bytes):
        return ("question.wav", audio, "application/octet-stream")
    path = Path(audio)
    return (path.name, path.read_bytes(), "application/octet-stream")
