"""The request body as pure ASGI middleware: the size limit (413 before the app parses anything) and a JSON body
read as JSON whatever its content type."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Collection, Optional

from ._errors import error_body

Scope = dict
Message = dict

#: how much of a refused body is read and discarded before the 413, and for how long: a server that closes a
#: connection with unread bytes in it sends a TCP reset, which can reach the client before the 413 and destroy it
DRAIN_BYTES = 64 * 1024 * 1024
DRAIN_SECONDS = 10.0


async def _drain(receive: Callable, declared: Optional[int]) -> None:
    """Read and discard the rest of a refused body, up to ``DRAIN_BYTES`` and ``DRAIN_SECONDS`` (none of it when the
    client declared more than that)."""
    if declared is not None and declared > DRAIN_BYTES:
        return

    async def read() -> None:
        total = 0
        while total <= DRAIN_BYTES:
            message = await receive()
            total += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body", False):
                return

    try:
        await asyncio.wait_for(read(), DRAIN_SECONDS)
    except asyncio.TimeoutError:
        pass


def _replay(body: bytes, receive: Callable) -> Callable:
    """A ``receive`` that gives the app ``body`` (already read), then whatever the client sends next."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class BodySizeLimit:
    """Rejects bodies larger than ``max_bytes`` with a structured 413, by ``Content-Length`` or while reading.

    The body is buffered (it is at most ``max_bytes``) and replayed to the app, so a chunked upload cannot slip
    past the limit and the app still sees client disconnects afterwards. The 413 goes out once the rest of the body
    is read and discarded (``_drain``), so that it arrives; at once to a client that waits for ``100 Continue``.
    """

    def __init__(self, app: Callable, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _reject(self, send: Callable, size: Any) -> None:
        body = json.dumps(error_body(413, f"request body exceeds {self.max_bytes} bytes ({size})")).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        try:
            declared: Optional[int] = int(headers[b"content-length"]) if b"content-length" in headers else None
        except ValueError:
            declared = None
        if declared is not None and declared > self.max_bytes:
            if headers.get(b"expect", b"").lower() != b"100-continue":  # else the client sends nothing yet
                await _drain(receive, declared)
            await self._reject(send, f"Content-Length {declared}")
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                if message.get("more_body", False):
                    await _drain(receive, None)
                await self._reject(send, f"more than {size} bytes received")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";")[0].strip().lower()
    return media == b"application/json" or media.endswith(b"+json")


class JsonBody:
    """A request body that parses as JSON is read as JSON whatever its ``Content-Type`` (curl's default
    form type, text/plain, none); one that does not parse, sent as another type, is a 422 ``bad_json`` saying that a
    JSON body is expected. ``paths``: the routes that take a JSON body (the others keep FastAPI's answers, a 405
    for a method a route does not have). Placed inside ``BodySizeLimit``, so the body it reads is bounded."""

    def __init__(self, app: Callable, paths: Collection[str]) -> None:
        self.app = app
        self.paths = frozenset(paths)

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        headers = list(scope.get("headers", ()))
        content_type = next((value for name, value in headers if name == b"content-type"), b"")
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") not in self.paths \
                or _is_json(content_type):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            json.loads(body)
        except ValueError:  # not JSON, or not UTF-8
            sent = content_type.decode("latin-1") or "no Content-Type"
            data = json.dumps(error_body(422, f"a JSON body is expected (Content-Type: application/json); the body "
                                              f"sent ({sent}) is not JSON", kind="bad_json")).encode()
            await send({"type": "http.response.start", "status": 422,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(data)).encode())]})
            await send({"type": "http.response.body", "body": data})
            return
        headers = [(n, v) for n, v in headers if n != b"content-type"] + [(b"content-type", b"application/json")]
        await self.app({**scope, "headers": headers}, _replay(body, receive), send)
