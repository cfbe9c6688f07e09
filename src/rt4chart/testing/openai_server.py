"""A scripted OpenAI-compatible chat server over real HTTP on loopback, for tests and benchmarks.

The code under test talks to it exactly as it would to OpenAI, vLLM or Ollama: a real socket, real HTTP/1.1 with
keep-alive, real status codes and headers. Only the replies are scripted. Standard library only; it ships with
rt4chart (as httpx ships ``MockTransport``), so your tests, rt4chart's and its benchmarks use the same one::

    from rt4chart.testing.openai_server import FakeOpenAI, Reply

    def handler(req):                      # called once per POST /v1/chat/completions, in a server thread
        if "CLAIM:" in req.user:
            return {"verdict": "baseless", ...}   # a dict is sent as the JSON content of the reply
        return Reply.error(503, retry_after=0)

    with FakeOpenAI(handler) as server:
        backend = OpenAIBackend(server.base_url, "fake-model")
        ...
        assert len(server.requests) == 3    # every request is recorded, in arrival order

A handler returns a ``Reply``, a ``str`` (the assistant content), or a ``dict``/``list`` (JSON-encoded content).
``scripted(r1, r2, ...)`` makes a handler that returns the given replies in order. ``latency`` delays every reply
(to measure throughput); ``Reply(delay=...)`` delays one (to provoke client timeouts); ``Reply.drop()`` closes the
connection without answering, ``Reply.connection_reset()`` aborts it with a TCP RST, ``Reply(content_type=...)``
sets the reply's Content-Type. If a handler raises, the server answers HTTP 599 with the traceback and records
the exception in ``server.errors`` so that the test can fail on it.

Token usage in replies is estimated as characters / 4 unless the reply sets ``usage``.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union

__all__ = ["ChatRequest", "Reply", "FakeOpenAI", "scripted", "estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """A crude, deterministic token count: one token per four characters (at least one for non-empty text)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class ChatRequest:
    """One request as the server received it."""

    index: int
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def system(self) -> str:
        return "\n".join(m.get("content") or "" for m in self.messages if m.get("role") == "system")

    @property
    def user(self) -> str:
        """The content of the first user message (the prompt proper; later ones are re-asks)."""
        users = [m.get("content") or "" for m in self.messages if m.get("role") == "user"]
        return users[0] if users else ""

    def block(self, header: str) -> str:
        """The text between the ``<<<`` and ``>>>`` lines after ``header`` in the prompt (``user``), e.g.
        ``req.block("CLAIM:")``; AssertionError when there is none."""
        m = re.search(re.escape(header) + r"\n<<<\n(.*?)\n>>>", self.user, re.DOTALL)
        assert m, f"no {header} block in the prompt"
        return m.group(1)

    @property
    def last_user(self) -> str:
        users = [m.get("content") or "" for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""

    @property
    def is_reask(self) -> bool:
        """True when the conversation already holds an assistant reply (the client is asking again)."""
        return any(m.get("role") == "assistant" for m in self.messages)

    @property
    def response_format(self) -> Optional[dict[str, Any]]:
        return self.body.get("response_format")


@dataclass
class Reply:
    """What the server sends back for one request."""

    content: Optional[str] = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Optional[Union[bytes, str, dict]] = None  # overrides the chat-completion body entirely
    usage: Optional[dict[str, Any]] = None
    delay: float = 0.0
    close: bool = False  # close the connection without answering
    finish_reason: str = "stop"
    reset: bool = False  # abort the connection with a TCP RST (SO_LINGER 0) instead of answering
    content_type: str = "application/json"
    #: the first token's alternatives as (token, logprob) pairs, sent as ``choices[0].logprobs`` when the request
    #: asks for ``logprobs`` (as llama.cpp's server, OpenAI and vLLM do)
    top_logprobs: Optional[list[tuple[str, float]]] = None

    @classmethod
    def yes_no(cls, p_yes: float) -> "Reply":
        """A one-token Yes/No verdict with P(yes) = ``p_yes``: the likelier word as content, both with their
        log-probabilities (and an unrelated third token)."""
        import math

        p = min(max(p_yes, 1e-9), 1 - 1e-9)
        top = sorted([("Yes", math.log(p * 0.98)), ("No", math.log((1 - p) * 0.98)), ("The", math.log(0.02))],
                     key=lambda t: -t[1])
        return cls(content=top[0][0], top_logprobs=top, finish_reason="length")

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> "Reply":
        return cls(content=json.dumps(obj), **kw)

    @classmethod
    def error(cls, status: int, message: str = "scripted error", *, retry_after: Optional[float] = None) -> "Reply":
        headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
        return cls(status=status, headers=headers, body={"error": {"message": message, "type": "scripted"}})

    @classmethod
    def drop(cls) -> "Reply":
        return cls(close=True)

    @classmethod
    def connection_reset(cls) -> "Reply":
        return cls(reset=True)


Handler = Callable[[ChatRequest], Union[Reply, str, dict, list]]


def scripted(*replies: Union[Reply, str, dict, list]) -> Handler:
    """A handler that returns ``replies`` one per request, in order; one request too many is a test failure."""
    queue = list(replies)
    lock = threading.Lock()

    def handler(req: ChatRequest) -> Union[Reply, str, dict, list]:
        with lock:
            if not queue:
                raise AssertionError(f"script exhausted: unexpected request #{req.index}")
            return queue.pop(0)

    return handler


class FakeOpenAI:
    """A threaded HTTP server on ``127.0.0.1:<free port>`` speaking ``POST /v1/chat/completions``."""

    def __init__(self, handler: Handler, *, latency: float = 0.0, model: str = "fake-model",
                 total_slots: Optional[int] = None, model_path: Optional[str] = None) -> None:
        self.handler = handler
        self.total_slots = total_slots  # reported at GET /props (llama.cpp's server) when set
        self.model_path = model_path  # the GGUF file reported at GET /props when set
        self.latency = latency
        self.model = model
        self.requests: list[ChatRequest] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._in_flight = 0
        self.max_in_flight = 0
        self._httpd: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> "FakeOpenAI":
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stalls

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                server._serve(self)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    server._send(self, 200, {}, json.dumps({"data": [{"id": server.model, "object": "model"}]}))
                elif self.path.rstrip("/") == "/props" and (server.total_slots, server.model_path) != (None, None):
                    props = {"total_slots": server.total_slots, "model_path": server.model_path}
                    server._send(self, 200, {}, json.dumps({k: v for k, v in props.items() if v is not None}))
                else:
                    server._send(self, 404, {}, json.dumps({"error": {"message": "not found"}}))

        class _Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False
            request_queue_size = 256  # the default backlog of 5 drops SYNs under concurrent load (1 s retransmits)

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that hung up (timeout tests) is not a server failure

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        """The URL to give a client, API prefix included (``http://127.0.0.1:PORT/v1``)."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def requests_where(self, predicate: Callable[[ChatRequest], bool]) -> list[ChatRequest]:
        return [r for r in self.requests if predicate(r)]

    # -- serving ---------------------------------------------------------------------------------------------
    def _serve(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("Content-Length") or 0)
        raw = http.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(http, 400, {}, json.dumps({"error": {"message": "body is not JSON"}}))
            return
        if not http.path.rstrip("/").endswith("/chat/completions"):
            self._send(http, 404, {}, json.dumps({"error": {"message": f"no route {http.path}"}}))
            return
        with self._lock:
            req = ChatRequest(
                index=len(self.requests), path=http.path, headers={k.lower(): v for k, v in http.headers.items()},
                body=body,
            )
            self.requests.append(req)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            try:
                reply = self.handler(req)
            except BaseException as exc:  # surfaced to the test through self.errors
                self.errors.append(exc)
                self._send(http, 599, {}, json.dumps({"error": {"message": traceback.format_exc()}}))
                return
            if not isinstance(reply, Reply):
                reply = Reply(content=reply) if isinstance(reply, str) else Reply.json(reply)
            wait = self.latency + reply.delay
            if wait > 0 and self._stopping.wait(wait):
                return
            if reply.close:
                http.close_connection = True
                return
            if reply.reset:
                http.close_connection = True
                http.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                http.connection.close()
                return
            if reply.body is not None:
                payload = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
            else:
                payload = json.dumps(self._completion(req, reply))
            self._send(http, reply.status, reply.headers, payload, reply.content_type)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _completion(self, req: ChatRequest, reply: Reply) -> dict[str, Any]:
        content = reply.content or ""
        usage = reply.usage or {
            "prompt_tokens": sum(estimate_tokens(m.get("content") or "") + 4 for m in req.messages),
            "completion_tokens": estimate_tokens(content),
        }
        usage = {**usage, "total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": reply.finish_reason,
        }
        if req.body.get("logprobs") and reply.top_logprobs:
            first, lp = reply.top_logprobs[0]
            choice["logprobs"] = {"content": [{"token": first, "logprob": lp, "top_logprobs": [
                {"token": t, "logprob": v} for t, v in reply.top_logprobs]}]}
        return {
            "id": f"chatcmpl-fake-{req.index}",
            "object": "chat.completion",
            "created": 0,
            "model": req.body.get("model", self.model),
            "choices": [choice],
            "usage": usage,
        }

    @staticmethod
    def _send(http: BaseHTTPRequestHandler, status: int, headers: dict[str, str], payload: Union[str, bytes],
              content_type: str = "application/json") -> None:
        data = payload.encode("utf-8") if isinstance(payload, str) else payload
        try:
            http.send_response(status)
            http.send_header("Content-Type", content_type)
            http.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                http.send_header(key, value)
            http.end_headers()
            http.wfile.write(data)
            http.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            http.close_connection = True  # the client gave up (e.g. its timeout fired)
