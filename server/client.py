"""Python clients for the whole voxmem HTTP API: :class:`VoxmemClient` (sync) and
:class:`AsyncVoxmemClient` (asyncio), with the same methods.

Only httpx, pydantic and tenacity are imported (plus the response models of
``voxmem.api.schemas``, pure pydantic), so an agent machine can use it without the server's
torch/numpy/neo4j: ``pip install ./clients/python`` installs just this module.

Results are the server's own response models (``MessageOut``, ``QueryOut``, ``JobOut``, ...).
Errors are :class:`VoxmemHTTPError` with the status and the server's ``ErrorOut`` body, so a
404 can be told from a 409 with candidates without parsing text. Requests are retried (with
backoff) when nothing can have been written: a connection that never opened, or a 503 (the
server reports Neo4j unavailable and wrote nothing); other network failures are retried only
for idempotent requests (reads, deletes, turns with a ``turn_id``, recordings, which carry a
``recording_id``).

    client = VoxmemClient("http://127.0.0.1:8765", api_key="vxm_…")
    client.append_turn("household-1", "kitchen", "Maya", "Tom, pizza tonight?", addressees=["Tom"])
    client.query("household-1", "What did Maya ask?", asker="Tom").answer
    job = client.upload_recording("household-1", "dinner", "dinner.flac", recording_id="d1",
                                  on_upload=lambda sent, total: print(sent, total))
    client.wait_for_job("household-1", job.id, on_progress=print)   # server-sent events, or polling
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import httpx
from pydantic import TypeAdapter
from tenacity import (
    AsyncRetrying,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from voxmem.api.schemas import (
    MAX_BATCH_TURNS,
    AskerMatchOut,
    AttributeOut,
    AudioTurnOut,
    AuditItemOut,
    CheckOut,
    ErrorOut,
    ExtractionOut,
    FactOut,
    ForgetOut,
    HealthOut,
    ImageOut,
    ImportOut,
    JobListOut,
    JobOut,
    KeyOut,
    LinkOut,
    MergeOut,
    MessageOut,
    ParticipantDeletedOut,
    ParticipantProfileOut,
    ProfileOut,
    QueryOut,
    ReconcileOut,
    ReprocessOut,
    SearchOut,
    SessionListOut,
    SpaceDeletedOut,
    SpaceListOut,
    SpaceOut,
    SpeakerOut,
    SplitOut,
    TurnBatchOut,
    UnmergeOut,
)

FINAL_JOB_STATES = ("done", "failed", "interrupted")
CHUNK = 64 * 1024
UploadProgress = Callable[[int, int], None]


class VoxmemHTTPError(Exception):
    """A 4xx/5xx answer; ``error`` is the server's ``ErrorOut`` when the body had that shape."""

    def __init__(self, status_code: int, body: Any) -> None:
        super().__init__(f"HTTP {status_code}: {body}")
        self.status_code = status_code
        self.body = body
        try:
            self.error: ErrorOut | None = ErrorOut.model_validate(body)
        except ValueError:
            self.error = None


@dataclass
class _Upload:
    """A multipart body sent in chunks, so the caller can watch the upload advance."""

    fields: dict[str, str]
    file_field: str
    filename: str
    data: bytes
    on_progress: UploadProgress | None = None
    boundary: str = field(default_factory=lambda: uuid.uuid4().hex)

    def body(self) -> bytes:
        parts = []
        for name, value in self.fields.items():
            head = f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            parts.append(f"{head}{value}\r\n".encode())
        parts.append(
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{self.file_field}"; '
            f'filename="{self.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        )
        parts += [self.data, f"\r\n--{self.boundary}--\r\n".encode()]
        return b"".join(parts)

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": f"multipart/form-data; boundary={self.boundary}"}

    def chunks(self) -> Iterator[bytes]:
        body = self.body()
        for start in range(0, len(body), CHUNK):
            piece = body[start : start + CHUNK]
            yield piece
            if self.on_progress is not None:
                self.on_progress(min(start + CHUNK, len(body)), len(body))

    async def achunks(self) -> AsyncIterator[bytes]:
        for piece in self.chunks():
            yield piece


@dataclass
class _Call:
    """One request: what to send and which model the answer is."""

    method: str
    path: str
    model: Any = None
    params: dict[str, Any] | None = None
    json: Any = None
    upload: _Upload | None = None
    idempotent: bool = False
    content: bytes | None = None  # a raw body (JSON lines)
    raw: bool = False  # the answer is text, not JSON
    timeout: float | None = None  # this request's timeout, s (None: the client's)

    def __post_init__(self) -> None:
        if self.method in ("GET", "DELETE", "HEAD"):
            self.idempotent = True
        if self.params is not None:
            self.params = {k: _param(v) for k, v in self.params.items() if v is not None}
        if isinstance(self.json, dict):
            self.json = {k: v for k, v in self.json.items() if v is not None}


def _param(value: Any) -> Any:
    return str(value).lower() if isinstance(value, bool) else value


def _parse(call: _Call, response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            body = response.json()
        except ValueError:
            body = response.text
        raise VoxmemHTTPError(response.status_code, body)
    if call.raw:
        return response.text
    if not response.content:
        return None
    data = response.json()
    return TypeAdapter(call.model).validate_python(data) if call.model is not None else data


def _retryable(call: _Call) -> Callable[[BaseException], bool]:
    def check(exc: BaseException) -> bool:
        if isinstance(exc, VoxmemHTTPError):
            return exc.status_code == 503  # the server wrote nothing: always safe
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return True  # the request never reached the server
        return isinstance(exc, httpx.TransportError) and call.idempotent

    return check


def _audio(audio: bytes | str | Path, default: str = "audio.wav") -> tuple[str, bytes]:
    if isinstance(audio, bytes):
        return default, audio
    path = Path(audio)
    return path.name, path.read_bytes()


def _ts(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _batch_turn(turn: Mapping[str, Any]) -> dict[str, Any]:
    """One turn of a batch import as the route takes it (``ts`` as ISO-8601)."""
    body = {k: turn[k] for k in ("session", "speaker", "text", "turn_id")}
    body["addressees"] = list(turn.get("addressees") or [])
    if turn.get("ts") is not None:
        body["ts"] = _ts(turn["ts"])
    return body


def _batches(turns: Iterable[Mapping[str, Any]], size: int) -> Iterator[list[Mapping[str, Any]]]:
    if not 1 <= size <= MAX_BATCH_TURNS:
        raise ValueError(f"batch_size must be 1..{MAX_BATCH_TURNS}")
    batch: list[Mapping[str, Any]] = []
    for turn in turns:
        batch.append(turn)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class _Routes:
    """Every route once, as a :class:`_Call`; the sync and async clients only differ in
    ``_send`` (which returns the parsed model, or an awaitable of it)."""

    def __init__(self, http: Any, api_key: str | None, retries: int) -> None:
        self.http = http
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.retries = retries

    def _send(self, call: _Call) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _request_args(self, call: _Call) -> dict[str, Any]:
        """httpx.request keywords for ``call``, less the body of an upload (sync or async chunks)."""
        headers = dict(self.headers) | (call.upload.headers if call.upload is not None else {})
        args = {"params": call.params, "json": call.json, "content": call.content, "headers": headers}
        return args | ({"timeout": call.timeout} if call.timeout is not None else {})

    def _events_request(self, space: str, job_id: str, interval: float) -> dict[str, Any]:
        """The server-sent-events request of a job, as httpx.stream arguments (no timeout: it lasts)."""
        call = _Call("GET", f"/spaces/{space}/jobs/{job_id}/events", params={"interval": interval})
        args = {"method": call.method, "url": call.path, "params": call.params, "headers": self.headers}
        return args | {"timeout": None}

    # --- health and admin (admin key) -----------------------------------------------------------
    def health(self) -> HealthOut:
        return self._send(_Call("GET", "/health", HealthOut))

    def list_spaces(self, skip: int = 0, limit: int = 100) -> SpaceListOut:
        return self._send(_Call("GET", "/admin/spaces", SpaceListOut, params={"skip": skip, "limit": limit}))

    def create_space(self, space: str, policy: str = "participant") -> SpaceOut:
        return self._send(_Call("POST", "/admin/spaces", SpaceOut, json={"id": space, "policy": policy}))

    def delete_space(self, space: str) -> SpaceDeletedOut:
        return self._send(_Call("DELETE", f"/admin/spaces/{space}", SpaceDeletedOut))

    def issue_key(self, space: str, label: str = "") -> KeyOut:
        return self._send(_Call("POST", f"/admin/spaces/{space}/keys", KeyOut, json={"label": label}))

    def revoke_key(self, space: str, key_id: str) -> None:
        return self._send(_Call("DELETE", f"/admin/spaces/{space}/keys/{key_id}"))

    def attribution_audit(self, space: str) -> dict[str, Any]:
        """The attribution audit of a space (admin key; ``voxmem audit --json``). A plain dict:
        its response model lives with the route (``voxmem.api.routes.audit``), not in schemas."""
        return self._send(_Call("GET", f"/admin/spaces/{space}/audit"))

    # --- conversation ---------------------------------------------------------------------------
    def get_space(self, space: str) -> SpaceOut:
        return self._send(_Call("GET", f"/spaces/{space}", SpaceOut))

    def append_turn(
        self,
        space: str,
        session: str,
        speaker: str,
        text: str,
        addressees: list[str] | None = None,
        ts: datetime | str | None = None,
        turn_id: str | None = None,
    ) -> MessageOut:
        """Append a text turn; with a ``turn_id`` a retry cannot store it twice."""
        body = {"speaker": speaker, "text": text, "addressees": addressees or [], "ts": _ts(ts)}
        body["turn_id"] = turn_id
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/sessions/{session}/turns",
                MessageOut,
                json=body,
                idempotent=turn_id is not None,
            )
        )

    def import_batch(
        self, space: str, turns: Sequence[Mapping[str, Any]], timeout: float | None = None
    ) -> TurnBatchOut:
        """Import one batch (at most 1000 turns) of text turns with their memory. Each turn is a
        mapping with ``session``, ``speaker``, ``text``, ``turn_id`` and optional ``addressees``
        and ``ts``; the server stores nothing twice, so the call is retried like a read. Memory is
        derived before the answer, so give a large batch a ``timeout`` (s) above the client's."""
        body = {"turns": [_batch_turn(t) for t in turns]}
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/turns/batch",
                TurnBatchOut,
                json=body,
                idempotent=True,
                timeout=timeout,
            )
        )

    def list_sessions(self, space: str, limit: int = 100) -> SessionListOut:
        return self._send(_Call("GET", f"/spaces/{space}/sessions", SessionListOut, params={"limit": limit}))

    def list_messages(
        self,
        space: str,
        session: str | None = None,
        speaker: str | None = None,
        addressee: str | None = None,
        skip: int = 0,
        limit: int = 100,
    ) -> list[MessageOut]:
        params = {
            "session": session,
            "speaker": speaker,
            "addressee": addressee,
            "skip": skip,
            "limit": limit,
        }
        return self._send(_Call("GET", f"/spaces/{space}/messages", list[MessageOut], params=params))

    def get_message(self, space: str, message_id: str) -> MessageOut:
        return self._send(_Call("GET", f"/spaces/{space}/messages/{message_id}", MessageOut))

    def search(self, space: str, q: str, k: int = 10) -> list[MessageOut]:
        return self._send(_Call("GET", f"/spaces/{space}/search", list[MessageOut], params={"q": q, "k": k}))

    # --- memory ---------------------------------------------------------------------------------
    def facts(
        self,
        space: str,
        participant: str | None = None,
        slot: str | None = None,
        history: bool = False,
        skip: int = 0,
        limit: int = 100,
    ) -> list[FactOut]:
        params = {"participant": participant, "slot": slot, "history": history, "skip": skip, "limit": limit}
        return self._send(_Call("GET", f"/spaces/{space}/facts", list[FactOut], params=params))

    def attributes(
        self,
        space: str,
        participant: str | None = None,
        kind: str | None = None,
        history: bool = False,
        skip: int = 0,
        limit: int = 100,
    ) -> list[AttributeOut]:
        params = {"participant": participant, "kind": kind, "history": history, "skip": skip, "limit": limit}
        return self._send(_Call("GET", f"/spaces/{space}/attributes", list[AttributeOut], params=params))

    def participant_profile(
        self, space: str, participant: str, history: bool = False
    ) -> ParticipantProfileOut:
        """The full profile (memory route, every fact of the person; not asker-scoped)."""
        return self._send(
            _Call(
                "GET",
                f"/spaces/{space}/participants/{participant}/profile",
                ParticipantProfileOut,
                params={"history": history},
            )
        )

    def audit(self, space: str, resolved: bool | None = None, limit: int = 100) -> list[AuditItemOut]:
        params = {"resolved": resolved, "limit": limit}
        return self._send(_Call("GET", f"/spaces/{space}/audit", list[AuditItemOut], params=params))

    def reprocess(self, space: str, session: str | None = None) -> ReprocessOut:
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/memory/reprocess",
                ReprocessOut,
                json={"session": session},
                idempotent=True,
            )
        )

    def extract_message(self, space: str, message_id: str) -> ExtractionOut:
        return self._send(
            _Call("POST", f"/spaces/{space}/messages/{message_id}/extract", ExtractionOut, idempotent=True)
        )

    def memory_check(self, space: str) -> CheckOut:
        return self._send(_Call("GET", f"/spaces/{space}/memory/check", CheckOut))

    def delete_participant(self, space: str, participant_id: str) -> ParticipantDeletedOut:
        return self._send(
            _Call("DELETE", f"/spaces/{space}/participants/{participant_id}", ParticipantDeletedOut)
        )

    def add_image(self, space: str, message_id: str, caption: str, uri: str | None = None) -> ImageOut:
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/messages/{message_id}/images",
                ImageOut,
                json={"caption": caption, "uri": uri},
            )
        )

    # --- audio and jobs -------------------------------------------------------------------------
    def append_audio_turn(
        self,
        space: str,
        session: str,
        audio: bytes | str | Path,
        turn_id: str | None = None,
        ts: datetime | str | None = None,
        policy: str | None = None,
        vocabulary: list[str] | None = None,
    ) -> AudioTurnOut:
        """``vocabulary``: names the ASR should expect (spelling hints, never speaker labels)."""
        name, data = _audio(audio)
        hint = ",".join(vocabulary or [])
        given = {"turn_id": turn_id, "ts": _ts(ts), "policy": policy, "vocabulary": hint}
        fields = {k: v for k, v in given.items() if v}
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/sessions/{session}/audio-turns",
                AudioTurnOut,
                upload=_Upload(fields, "audio", name, data),
                idempotent=turn_id is not None,
            )
        )

    def upload_recording(
        self,
        space: str,
        session: str,
        audio: bytes | str | Path,
        recording_id: str,
        started_at: datetime | str | None = None,
        policy: str | None = None,
        on_upload: UploadProgress | None = None,
    ) -> JobOut:
        """Start ingesting a whole recording; ``on_upload(sent, total)`` follows the upload.
        Returns the job: follow it with :meth:`wait_for_job`."""
        name, data = _audio(audio, "recording.wav")
        fields = {"recording_id": recording_id}
        fields |= {k: v for k, v in {"started_at": _ts(started_at), "policy": policy}.items() if v}
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/sessions/{session}/recordings",
                JobOut,
                upload=_Upload(fields, "audio", name, data, on_upload),
                idempotent=True,  # a repost resumes or is refused (409), never doubles
            )
        )

    def get_job(self, space: str, job_id: str) -> JobOut:
        return self._send(_Call("GET", f"/spaces/{space}/jobs/{job_id}", JobOut))

    def list_jobs(self, space: str, status: str | None = None, limit: int = 100) -> JobListOut:
        params = {"status": status, "limit": limit}
        return self._send(_Call("GET", f"/spaces/{space}/jobs", JobListOut, params=params))

    def identify_asker(
        self, space: str, audio: bytes | str | Path, policy: str | None = None
    ) -> AskerMatchOut:
        name, data = _audio(audio)
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/asker",
                AskerMatchOut,
                params={"policy": policy},
                upload=_Upload({}, "audio", name, data),
                idempotent=True,
            )
        )

    # --- identity (voices) ----------------------------------------------------------------------
    def list_speakers(self, space: str) -> list[SpeakerOut]:
        return self._send(_Call("GET", f"/spaces/{space}/speakers", list[SpeakerOut]))

    def link_speaker(
        self, space: str, speaker_id: str, participant_id: str | None = None, name: str | None = None
    ) -> LinkOut:
        body = {"participant_id": participant_id, "name": name}
        return self._send(_Call("POST", f"/spaces/{space}/speakers/{speaker_id}/link", LinkOut, json=body))

    def merge_speakers(self, space: str, source: str, target: str, reason: str = "manual") -> MergeOut:
        body = {"source": source, "target": target, "reason": reason}
        return self._send(_Call("POST", f"/spaces/{space}/speakers/merge", MergeOut, json=body))

    def unmerge_speaker(self, space: str, speaker_id: str) -> UnmergeOut:
        return self._send(_Call("POST", f"/spaces/{space}/speakers/{speaker_id}/unmerge", UnmergeOut))

    def split_speaker(self, space: str, speaker_id: str, message_ids: list[str]) -> SplitOut:
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/speakers/{speaker_id}/split",
                SplitOut,
                json={"message_ids": message_ids},
            )
        )

    def reconcile_speakers(
        self, space: str, session: str | None = None, dry_run: bool = False
    ) -> ReconcileOut:
        """Merge fragments of one voice after a session (conservative, reversible)."""
        body = {"session": session, "dry_run": dry_run}
        return self._send(_Call("POST", f"/spaces/{space}/speakers/reconcile", ReconcileOut, json=body))

    def forget_voice(self, space: str, participant_id: str) -> ForgetOut:
        return self._send(
            _Call("DELETE", f"/spaces/{space}/speakers/voiceprints/{participant_id}", ForgetOut)
        )

    # --- export / import ------------------------------------------------------------------------
    def export_space(self, space: str, voiceprints: bool = False) -> str:
        """The space as JSON lines (see voxmem.portability); write it to a file to keep it."""
        return self._send(
            _Call("GET", f"/spaces/{space}/export", str, params={"voiceprints": voiceprints}, raw=True)
        )

    def import_space(self, space: str, export: str | bytes) -> ImportOut:
        """Create ``space`` (admin key) from an export; all or nothing."""
        data = export.encode() if isinstance(export, str) else export
        return self._send(_Call("POST", f"/admin/spaces/{space}/import", ImportOut, content=data))

    # --- retrieval (asker-scoped) ---------------------------------------------------------------
    def query(self, space: str, question: str, asker: str | None = None, **options: Any) -> QueryOut:
        """Ask as ``asker`` (participant id or name) or as the unknown asker. ``options``:
        policy, budgets, max_rounds, max_evidence, use_llm."""
        body = {"question": question, "asker": asker, **options}
        return self._send(_Call("POST", f"/spaces/{space}/query", QueryOut, json=body, idempotent=True))

    def query_audio(
        self, space: str, audio: bytes | str | Path, question: str | None = None, **options: Any
    ) -> QueryOut:
        """Ask a spoken question; the asker is recognised by voice (read-only)."""
        name, data = _audio(audio, "question.wav")
        fields = {k: str(v) for k, v in {"question": question, **options}.items() if v is not None}
        return self._send(
            _Call(
                "POST",
                f"/spaces/{space}/query",
                QueryOut,
                upload=_Upload(fields, "audio", name, data),
                idempotent=True,
            )
        )

    def retrieve(
        self, space: str, text: str, asker: str | None = None, k: int = 10, **filters: Any
    ) -> SearchOut:
        """Scoped search; ``filters``: layers, speaker, addressee, about, session, ts_from,
        ts_to, current_only."""
        body = {"text": text, "asker": asker, "k": k, **filters}
        return self._send(_Call("POST", f"/spaces/{space}/retrieve", SearchOut, json=body, idempotent=True))

    def profile(
        self, space: str, participant: str, asker: str | None = None, current_only: bool = False
    ) -> ProfileOut:
        """A participant's profile as ``asker`` may see it."""
        params = {"asker": asker, "current_only": current_only}
        return self._send(
            _Call("GET", f"/spaces/{space}/retrieve/profile/{participant}", ProfileOut, params=params)
        )


def _retry_policy(retries: int) -> dict[str, Any]:
    return {
        "stop": stop_after_attempt(retries + 1),
        "wait": wait_exponential(multiplier=0.2, max=5.0),
        "reraise": True,
    }


class VoxmemClient(_Routes):
    """``VoxmemClient(base_url, api_key)``; pass ``http=`` to reuse an httpx.Client (or a TestClient)."""

    http: httpx.Client

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8765",
        api_key: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        http: httpx.Client | None = None,
    ) -> None:
        super().__init__(http or httpx.Client(base_url=base_url, timeout=timeout), api_key, retries)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> VoxmemClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _once(self, call: _Call) -> Any:
        args = self._request_args(call)
        if call.upload is not None:
            args["content"] = call.upload.chunks()
        return _parse(call, self.http.request(call.method, call.path, **args))

    def _send(self, call: _Call) -> Any:
        for attempt in Retrying(retry=retry_if_exception(_retryable(call)), **_retry_policy(self.retries)):
            with attempt:
                return self._once(call)
        raise AssertionError("unreachable")  # pragma: no cover - tenacity reraises

    def import_turns(
        self,
        space: str,
        turns: Iterable[Mapping[str, Any]],
        batch_size: int = 200,
        on_batch: Callable[[TurnBatchOut], None] | None = None,
    ) -> list[TurnBatchOut]:
        """Stream a history of turns (any iterable, read lazily) in batches of ``batch_size``;
        each batch is one idempotent request, so an interrupted import is simply run again."""
        results = []
        for batch in _batches(turns, batch_size):
            result = self.import_batch(space, batch)
            if on_batch is not None:
                on_batch(result)
            results.append(result)
        return results

    def job_events(self, space: str, job_id: str, interval: float = 0.25) -> Iterator[JobOut]:
        """The job's states as the server streams them (server-sent events), ending with the job."""
        with self.http.stream(**self._events_request(space, job_id, interval)) as response:
            if response.status_code >= 400:
                response.read()
                _parse(_Call("GET", ""), response)
            for line in response.iter_lines():
                if line.startswith("data:"):
                    yield JobOut.model_validate(json.loads(line[5:]))

    def wait_for_job(
        self,
        space: str,
        job_id: str,
        timeout: float = 3600.0,
        on_progress: Callable[[JobOut], None] | None = None,
        events: bool = True,
        poll_s: float = 1.0,
    ) -> JobOut:
        """Block until the job ends; ``on_progress`` sees each state. Follows the event stream,
        falling back to polling ``GET /jobs/{id}`` if the stream breaks (or ``events=False``)."""
        deadline = time.monotonic() + timeout
        if events:
            try:
                job = None
                for job in self.job_events(space, job_id):
                    if on_progress is not None:
                        on_progress(job)
                if job is not None and job.status in FINAL_JOB_STATES:
                    return job
            except httpx.TransportError:
                pass  # fall back to polling
        while True:
            job = self.get_job(space, job_id)
            if on_progress is not None:
                on_progress(job)
            if job.status in FINAL_JOB_STATES:
                return job
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {job.status} after {timeout} s")
            time.sleep(poll_s)


class AsyncVoxmemClient(_Routes):
    """The asyncio twin of :class:`VoxmemClient`: the same methods, each to be awaited."""

    http: httpx.AsyncClient

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8765",
        api_key: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(http or httpx.AsyncClient(base_url=base_url, timeout=timeout), api_key, retries)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncVoxmemClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _once(self, call: _Call) -> Any:
        args = self._request_args(call)
        if call.upload is not None:
            args["content"] = call.upload.achunks()
        return _parse(call, await self.http.request(call.method, call.path, **args))

    def _send(self, call: _Call) -> Awaitable[Any]:
        async def run() -> Any:
            retrying = AsyncRetrying(
                retry=retry_if_exception(_retryable(call)), **_retry_policy(self.retries)
            )
            async for attempt in retrying:
                with attempt:
                    return await self._once(call)
            raise AssertionError("unreachable")  # pragma: no cover - tenacity reraises

        return run()

    async def import_turns(
        self,
        space: str,
        turns: Iterable[Mapping[str, Any]] | AsyncIterable[Mapping[str, Any]],
        batch_size: int = 200,
        on_batch: Callable[[TurnBatchOut], None] | None = None,
    ) -> list[TurnBatchOut]:
        """:meth:`VoxmemClient.import_turns` for asyncio: turns from an iterable or an async one."""
        results = []

        async def send(batch: list[Mapping[str, Any]]) -> None:
            result = await cast(Awaitable[TurnBatchOut], self.import_batch(space, batch))
            if on_batch is not None:
                on_batch(result)
            results.append(result)

        if isinstance(turns, AsyncIterable):
            _batches([], batch_size)  # the same batch_size check
            batch: list[Mapping[str, Any]] = []
            async for turn in turns:
                batch.append(turn)
                if len(batch) == batch_size:
                    await send(batch)
                    batch = []
            if batch:
                await send(batch)
        else:
            for chunk in _batches(turns, batch_size):
                await send(chunk)
        return results

    async def job_events(self, space: str, job_id: str, interval: float = 0.25) -> AsyncIterator[JobOut]:
        async with self.http.stream(**self._events_request(space, job_id, interval)) as response:
            if response.status_code >= 400:
                await response.aread()
                _parse(_Call("GET", ""), response)
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    yield JobOut.model_validate(json.loads(line[5:]))

    async def wait_for_job(
        self,
        space: str,
        job_id: str,
        timeout: float = 3600.0,
        on_progress: Callable[[JobOut], None] | None = None,
        events: bool = True,
        poll_s: float = 1.0,
    ) -> JobOut:
        deadline = time.monotonic() + timeout
        if events:
            try:
                job = None
                async for job in self.job_events(space, job_id):
                    if on_progress is not None:
                        on_progress(job)
                if job is not None and job.status in FINAL_JOB_STATES:
                    return job
            except httpx.TransportError:
                pass
        while True:
            job = await cast(Awaitable[JobOut], self.get_job(space, job_id))
            if on_progress is not None:
                on_progress(job)
            if job.status in FINAL_JOB_STATES:
                return job
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {job.status} after {timeout} s")
            await asyncio.sleep(poll_s)
