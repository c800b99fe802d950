"""Bounds on what a request may cost, checked before the app reads it: body size, JSON
nesting; and a last-resort shield so an unexpected error is a JSON 500, never a dropped
connection."""

from __future__ import annotations

import json
import logging
import re
from http import HTTPStatus
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)


class BodySizeLimit:
    """ASGI middleware: 413 when Content-Length, or the bytes actually streamed, exceed the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        seen = 0
        tracked = _TrackedSend(send)

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge(self.max_bytes)
            return message

        try:
            await self.app(scope, limited_receive, tracked)
        except _TooLarge:
            if not tracked.started:
                await self._reject(send)

    async def _reject(self, send: Send) -> None:
        await _send_json(send, *framework_error(413, None, _TooLarge(self.max_bytes)))


class _TooLarge(Exception):
    """Raised from ``receive`` once a streamed body passes the limit (no Content-Length)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"request body exceeds {max_bytes} bytes")


def framework_error(status: int, detail: Any, cause: BaseException | None) -> tuple[int, dict[str, Any]]:
    """An error FastAPI or Starlette raised themselves (unknown path, wrong method, a body it
    could not parse) as (status, ``ErrorOut`` body); they answered ``{"detail": …}``.

    Why the cause matters: FastAPI turns whatever fails while it reads a body into a 400 "There
    was an error parsing the body", so a form upload streamed past the size limit without a
    Content-Length (the limit raises from ``receive``) is made the 413 it is, and a body that
    ``json.loads`` refuses a 400 ``MalformedJSON`` that says why.
    """
    if isinstance(cause, _TooLarge):
        return 413, {"error": "PayloadTooLarge", "detail": str(cause)}
    if isinstance(cause, ValueError) and status == 400:
        return 400, {"error": "MalformedJSON", "detail": [{"where": "body", "problem": json_problem(cause)}]}
    return status, {
        "error": HTTPStatus(status).phrase.title().replace(" ", "").replace("-", ""),
        "detail": detail,
    }


class _TrackedSend:
    """``send`` that remembers whether the response has started: after that, an error can no
    longer be answered with a JSON error response."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)


class JsonDepthLimit:
    """ASGI middleware: 400 for a JSON body nested deeper than ``max_depth``, found by a
    linear scan *before* any parser sees it (50,000 nested arrays overflowed the decoder's
    recursion and answered 500). Other bodies (audio uploads) pass through untouched."""

    def __init__(self, app: ASGIApp, max_depth: int = 64) -> None:
        self.app = app
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"")
        if scope["type"] != "http" or b"json" not in content_type.lower():
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # client went away
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if json_depth(body) > self.max_depth:
            detail = f"JSON nested deeper than {self.max_depth} levels"
            await _send_json(send, 400, {"error": "MalformedJSON", "detail": detail})
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def json_problem(exc: ValueError) -> str:
    """Why a body is not JSON, in words for the client, for every way ``json.loads`` fails.

    Why not ``str(exc)``: a body that is not UTF-8 and a number longer than Python's 4,300-digit
    limit raise plain ``ValueError`` subclasses that FastAPI answered as a bare 400 without the
    error shape, and ``/query`` (which parses its own body) as a 500; their own messages name
    Python internals (``sys.set_int_max_str_digits``).
    """
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return f"the body is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})"
    if "integer string conversion" in str(exc):
        return "a number in the body has more than 4300 digits"
    return "the body is not valid JSON"


_JSON_STRUCTURE = re.compile(rb'[\[\]{}"\\]')


def json_depth(body: bytes) -> int:
    """Deepest nesting of arrays/objects in ``body``, skipping brackets inside strings.

    Linear and without recursion: only the structural bytes are visited, and a backslash
    inside a string escapes the byte after it (so ``"\\\\"`` closes, ``"\\""`` does not).
    """
    depth = deepest = 0
    in_string = False
    skip_at = -1
    for match in _JSON_STRUCTURE.finditer(body):
        pos, ch = match.start(), match.group()
        if pos == skip_at:
            continue
        if in_string:
            if ch == b"\\":
                skip_at = pos + 1
            elif ch == b'"':
                in_string = False
        elif ch == b'"':
            in_string = True
        elif ch in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif ch in (b"]", b"}"):
            depth -= 1
    return deepest


class ErrorShield:
    """ASGI middleware, outermost: an unexpected exception becomes a JSON 500 in the
    documented error shape and the connection stays open (Starlette's own handler re-raises,
    and the server then closed the keep-alive connection after every 500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tracked = _TrackedSend(send)
        try:
            await self.app(scope, receive, tracked)
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if not tracked.started:
                await _send_json(send, 500, {"error": "InternalError", "detail": "unexpected server error"})


async def _send_json(send: Send, status: int, content: dict) -> None:
    body = json.dumps(content).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
