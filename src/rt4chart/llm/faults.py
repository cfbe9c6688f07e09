"""What an OpenAI-compatible server's error reply means, and the short, sanitized reason kept for it.

Real servers say the same thing in different ways: llama-cpp-python answers a ``json_schema`` response format
with HTTP 500 ("Input should be 'text' or 'json_object'"), OpenAI with 400; llama.cpp's ``llama-server`` reports a
prompt longer than its context as 400 ``exceed_context_size_error``, vLLM and OpenAI as 400 "maximum context
length". ``OpenAIBackend`` asks these functions what a reply means and never stores an error body itself: bodies
can carry tracebacks and server-side file paths, so results keep ``summary(response)`` only.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from typing import Any, Optional

import httpx

from ..errors import BackendError

#: structured-output modes, strongest first; ``auto`` starts at the first and steps down when a server says no
MODES = ("json_schema", "json_object", "text")

_CONTEXT = re.compile(
    r"exceed_context_size|context_length_exceeded|maximum context length|context (?:size|length|window)"
    r"|too many tokens|prompt is too long|input is too long",
    re.IGNORECASE,
)
_STRUCTURED = re.compile(r"response_format|schema|json_object|grammar", re.IGNORECASE)
# /abs/path/file.py, ./rel/path, C:\dir\file: two separators at least, so "text/json" or "and/or" stay
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:\.{0,2}[\\/])?(?:[\w.~-]+[\\/]){2,}[\w.~-]*|(?:[\\/][\w.~-]+){2,}")
_SPACE = re.compile(r"\s+")
MESSAGE_CHARS = 200


class UnreachableError(BackendError):
    """Every attempt of a call failed to connect (refused, host name unresolved, TLS handshake, a URL that is not
    http or https): a configuration error that stops the run while the endpoint has not answered once in this
    process (``answered``); after it has, a failure of that call only (its claims are unverified, and the record's
    ``errors`` say so)."""

    def __init__(self, message: str, *, answered: bool = False, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.answered = answered

    @property
    def is_config_error(self) -> bool:
        return not self.answered


def cannot_connect(exc: Exception) -> bool:
    """True for a request that never reached an HTTP server: no connection (refused, DNS, TLS, connect timeout) or
    a URL httpx cannot send to."""
    return isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol))


class ContextOverflowError(BackendError):
    """The request did not fit the model's context: that call fails (its claims are unverified), not the run."""

    @property
    def is_config_error(self) -> bool:
        return False


def clip(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` on one line, file paths replaced by ``<path>``, at most ``limit`` characters."""
    text = _SPACE.sub(" ", _PATH.sub("<path>", text)).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _error_fields(response: httpx.Response) -> tuple[Optional[str], str]:
    """``(type or code, message)`` of an error body: OpenAI's ``{"error": {...}}``, FastAPI's ``{"detail": ...}``,
    a bare string, or plain text."""
    try:
        payload: Any = response.json()
    except ValueError:
        return None, response.text
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    if isinstance(error, dict):
        kind = error.get("type") or error.get("code")
        message = error.get("message", error.get("detail", ""))
        if not isinstance(message, str):
            message = json.dumps(message, ensure_ascii=False, default=str)
        return (str(kind) if kind is not None else None), message
    return None, error if isinstance(error, str) else json.dumps(error, ensure_ascii=False, default=str)


def summary(response: httpx.Response) -> str:
    """``HTTP 400 exceed_context_size_error: the request exceeds ...``: status, error type or code and a clipped
    message without file paths; what results keep of an error reply."""
    kind, message = _error_fields(response)
    head = f"HTTP {response.status_code}" + (f" {clip(kind, 60)}" if kind else "")
    message = clip(message)
    return f"{head}: {message}" if message else head


def _body(response: httpx.Response) -> str:
    kind, message = _error_fields(response)
    return f"{kind or ''} {message} {response.text[:4000]}"


def is_context_overflow(response: httpx.Response) -> bool:
    """A 4xx/5xx reply that says the prompt (or prompt + ``max_tokens``) exceeds the model's context, or a 413 (the
    request itself too large). Never a 408 or 429: "too many tokens" per minute is a rate limit, retried."""
    status = response.status_code
    if status < 400 or status in (408, 429):
        return False
    return status == 413 or bool(_CONTEXT.search(_body(response)))


def rejects_structured(response: httpx.Response) -> bool:
    """A 4xx/5xx reply that names the response format (``response_format``, a schema, ``json_object``, a grammar):
    the server does not do the structured output asked for. Never 401/403/404/408/429 (key, model, timeouts)."""
    if response.status_code < 400 or response.status_code in (401, 403, 404, 408, 429):
        return False
    return bool(_STRUCTURED.search(_body(response)))


def rejects_cap(response: httpx.Response, field: str) -> Optional[str]:
    """For a 400/422 reply naming the completion cap ``field``: the field to use instead (``max_completion_tokens``,
    which OpenAI's reasoning models want) or ``""`` to send no cap; None for any other reply."""
    if response.status_code not in (400, 422):
        return None
    body = _body(response)
    if field not in body:
        return None
    return "max_completion_tokens" if field == "max_tokens" and "max_completion_tokens" in body else ""


def retry_after(headers: httpx.Headers) -> Optional[float]:
    """Seconds from a ``Retry-After`` (delta-seconds or HTTP date) or ``retry-after-ms`` header."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
