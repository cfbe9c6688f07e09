"""Request body size limit as pure ASGI middleware: 413 before the app parses anything."""

from __future__ import annotations

import json
from typing import Any, Callable

from ._errors import error_body

Scope = dict
Message = dict


class BodySizeLimit:
    """Rejects bodies larger than ``max_bytes`` with a structured 413, by ``Content-Length`` or while reading.

    The body is buffered (it is at most ``max_bytes``) and replayed to the app, so a chunked upload cannot slip
    past the limit and the app still sees client disconnects afterwards.
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
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes:
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
                await self._reject(send, f"more than {size} bytes received")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
