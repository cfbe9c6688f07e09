"""The ChatBackend seam and its one implementation, which speaks the OpenAI chat-completions API to any base URL
(OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...).

``OpenAIBackend.complete`` owns everything about reaching the server, so judges only build messages and read text:

- temperature 0, a fixed seed and a ``max_tokens`` cap by default; a request timeout;
- structured output (``structured="auto"``): ``response_format`` with a strict JSON schema, then
  ``{"type": "json_object", "schema": ...}``, then none (every prompt also describes its JSON in plain text). A
  server that refuses a mode, however it says so (4xx or 5xx naming the response format, ``rt4chart.llm.faults``),
  is asked again at once with the next one, and the backend remembers the mode that works;
- a server that refuses ``max_tokens`` gets ``max_completion_tokens`` (OpenAI's reasoning models) or no cap;
- a reply saying the request exceeds the model's context is retried once without the cap when one was sent (vLLM
  counts it against the context), then raises ``ContextOverflowError``: that call fails, not the run;
- retries with exponential backoff and full jitter on 408/409/429/5xx, timeouts and connection errors, honouring
  ``Retry-After`` (capped at ``max_wait`` seconds), for at most ``max_attempts`` failed attempts (a bounded
  ``for`` loop, never ``while True``); then a ``BackendError`` carrying the attempts, the usage and a short,
  sanitized reason (``faults.summary``: never the error body itself). Other 4xx errors (bad key, unknown model)
  are configuration errors and raise at once;
- at most ``concurrency`` requests in flight and, optionally, at most ``rpm`` request starts per minute;
- usage (calls, prompt/completion/cached tokens, seconds, cost) reported with ``rt4chart.llm.meter.record_usage``.

``CachedBackend`` wraps any backend with the SQLite response cache.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Literal, Mapping, Optional, Protocol, Sequence, runtime_checkable

import httpx

from ..errors import BackendError, ConfigError
from .meter import record_usage
from ..types import Usage
from .cache import ResponseCache, cache_key
from .faults import (MODES, ContextOverflowError, UnreachableError, cannot_connect, clip, is_context_overflow,
                     rejects_cap, rejects_structured, retry_after, summary)
from .pacing import Limiter, RateLimiter
from .pricing import Price
from .schemas import JsonSchema
from .settings import DEFAULT_MAX_TOKENS
from .yesno import first_token_logprobs

Messages = Sequence[Mapping[str, str]]
StructuredMode = Literal["auto", "json_schema", "json_object", "text"]

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
CONFIG_STATUS = frozenset({401, 403, 404})  # key, permission, model or endpoint: never a body to read
# requests that change the request rather than retry it: two structured-output steps, renaming and dropping the
# cap, and one request without the cap after a context overflow
_ADJUSTMENTS = 5


@dataclass(frozen=True)
class Completion:
    """The text of one chat completion and what it cost (zero usage when it came from the cache)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    attempts: int = 1
    finish_reason: Optional[str] = None
    #: the first generated token's most likely tokens and their log-probabilities (pre-sampling), when the request
    #: asked for them (``complete(..., logprobs=N)``) and the server returned them; empty otherwise
    top_logprobs: tuple[tuple[str, float], ...] = ()


@runtime_checkable
class ChatBackend(Protocol):
    """Sends chat messages to a model and returns its reply text. One method; tests replace the server."""

    model: str

    async def complete(
        self, messages: Messages, *, schema: Optional[JsonSchema] = None, prompt_version: Optional[str] = None
    ) -> Completion: ...


async def _closer(client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    # An async generator that asyncio.run() finalises at loop shutdown (shutdown_asyncgens), so a client bound to
    # a loop is closed with that loop even when nobody calls aclose(): no unclosed sockets between asyncio.run calls.
    try:
        yield
    finally:
        await client.aclose()


# Strong references to each loop's client closers, so a closer lives as long as its loop (the loop itself only
# holds async generators weakly) even when the backend that made it has been garbage collected.
_CLOSERS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[AsyncGenerator[None, None]]]" = (
    weakref.WeakKeyDictionary())


class _LoopState:
    """What must be bound to one event loop: the HTTP client, the concurrency semaphore and the rate limiter."""

    def __init__(self, client: httpx.AsyncClient, concurrency: int, rpm: Optional[float],
                 shared: Optional[Limiter]) -> None:
        self.client = client
        self.semaphore = asyncio.Semaphore(concurrency)
        self.limiter: Optional[Limiter] = shared if shared is not None else RateLimiter(rpm) if rpm else None
        self.closer = _closer(client)


class OpenAIBackend:
    """An OpenAI-compatible ``/chat/completions`` client.

    ``base_url`` follows the OpenAI SDK convention and includes the API prefix, e.g. ``https://api.openai.com/v1``,
    ``http://localhost:8000/v1`` (vLLM), ``http://localhost:11434/v1`` (Ollama), ``http://localhost:8080/v1``
    (llama.cpp). The backend may be used from several event loops in turn (one HTTP client per loop).
    ``limiter``, when given, paces request starts instead of the backend's own ``rpm`` limiter (the Ray engine
    gives every worker one that all of them share).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: Optional[str] = None,
        temperature: float = 0.0,
        seed: Optional[int] = 0,
        max_tokens: Optional[int] = DEFAULT_MAX_TOKENS,
        timeout: float = 60.0,
        max_attempts: int = 5,
        concurrency: int = 8,
        rpm: Optional[float] = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_wait: float = 120.0,
        structured: StructuredMode = "auto",
        price: Price = Price(),
        headers: Optional[Mapping[str, str]] = None,
        limiter: Optional[Limiter] = None,
    ) -> None:
        if not base_url:
            raise ConfigError("base_url is required (e.g. http://localhost:8000/v1)")
        if not model:
            raise ConfigError("model is required")
        if timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout!r}")
        if max_attempts < 1:
            raise ConfigError(f"max_attempts must be >= 1, got {max_attempts!r}")
        if concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {concurrency!r}")
        if rpm is not None and rpm <= 0:
            raise ConfigError(f"rpm must be > 0, got {rpm!r}")
        if structured not in ("auto", *MODES):
            raise ConfigError(f"structured must be auto, json_schema, json_object or text, got {structured!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 0):
            raise ConfigError(f"max_tokens must be >= 0 (0: no cap), got {max_tokens!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.concurrency = concurrency
        self.rpm = rpm
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_wait = max_wait
        self.structured = structured
        self.price = price
        self.headers = dict(headers or {})
        self.limiter = limiter
        self._mode = MODES.index(structured) if structured != "auto" else 0  # the strongest mode not refused
        self._cap_field: Optional[str] = "max_tokens"  # None once the server refused every name for the cap
        self._states: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState]" = weakref.WeakKeyDictionary()
        self._answered = False  # True once the server sent any HTTP reply: a refused connection is no longer config

    @property
    def params(self) -> dict[str, Any]:
        """Sampling parameters that change the reply (part of the cache key)."""
        return {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}

    async def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            headers = {"Content-Type": "application/json", **self.headers}
            if self.api_key:
                headers["Authorization"] = f"Bearer {self.api_key}"
            limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
            timeout = httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0))
            client = httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits)
            state = _LoopState(client, self.concurrency, self.rpm, self.limiter)
            await state.closer.__anext__()
            _CLOSERS.setdefault(loop, []).append(state.closer)
            self._states[loop] = state
        return state

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop (clients of finished ``asyncio.run`` loops close themselves)."""
        loop = asyncio.get_running_loop()
        state = self._states.pop(loop, None)
        if state is not None:
            closers = _CLOSERS.get(loop, [])
            if state.closer in closers:
                closers.remove(state.closer)
            await state.closer.aclose()

    @property
    def structured_mode(self) -> str:
        """The structured-output mode requests use now (``auto`` steps down when a server refuses one)."""
        return MODES[self._mode]

    def _body(self, messages: Messages, schema: Optional[JsonSchema], mode: str, cap: Optional[str],
              logprobs: int = 0) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        if logprobs:
            # one generated token and its alternatives: no response format (a grammar distorts the probabilities)
            body.update({"logprobs": True, "top_logprobs": logprobs})
            if cap is not None:
                body[cap] = 1
            return body
        if cap is not None:
            body[cap] = self.max_tokens
        if schema is not None and mode == "json_schema":
            body["response_format"] = schema.response_format()
        elif schema is not None and mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": schema.schema}  # llama-cpp-python's form
        return body

    def _backoff(self, attempt: int) -> float:
        # full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^attempt)]
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1))))

    def _usage(self, payload: Mapping[str, Any], seconds: float, calls: int) -> Usage:
        raw = payload.get("usage") or {}
        prompt = int(raw.get("prompt_tokens") or 0)
        completion = int(raw.get("completion_tokens") or 0)
        details = raw.get("prompt_tokens_details") or {}
        cached = int(details.get("cached_tokens") or 0)
        return Usage(
            calls=calls,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cached_tokens=cached,
            cost_usd=self.price.cost(prompt, completion, cached),
            seconds=seconds,
        )

    async def complete(
        self, messages: Messages, *, schema: Optional[JsonSchema] = None, prompt_version: Optional[str] = None,
        logprobs: int = 0,
    ) -> Completion:
        """Send ``messages`` and return the reply text, retrying transient failures (see the module docstring).

        ``logprobs=N`` asks for one generated token and the ``N`` most likely first tokens with their
        log-probabilities (``Completion.top_logprobs``); ``schema`` is then ignored."""
        state = await self._state()
        url = f"{self.base_url}/chat/completions"
        started = time.perf_counter()
        last_status: Optional[int] = None
        last_problem = "no attempt made"
        requests = failures = 0
        mode = self._mode
        capped = bool(self.max_tokens)  # False for this call once a capped request overflowed the context
        unreached = False  # the last attempt reached no HTTP server (faults.cannot_connect)

        def give_up(error: type[BackendError], message: str, **extra: Any) -> BackendError:
            usage = Usage(calls=requests, seconds=time.perf_counter() - started)
            record_usage(usage)
            return error(message, attempts=requests, usage=usage, status=last_status, **extra)

        for _ in range(self.max_attempts + _ADJUSTMENTS):
            requests += 1
            mode = max(mode, self._mode)  # another call may have found a refused mode meanwhile
            cap = self._cap_field if capped else None
            body = self._body(messages, schema, MODES[mode], cap, logprobs)
            if state.limiter is not None:
                await state.limiter.wait()
            async with state.semaphore:
                try:
                    response = await state.client.post(url, json=body)
                except httpx.TimeoutException as exc:
                    response, last_status, unreached = None, None, cannot_connect(exc)
                    last_problem = f"timed out after {self.timeout:g} s ({type(exc).__name__})"
                except httpx.TransportError as exc:
                    response, last_status, unreached = None, None, cannot_connect(exc)
                    last_problem = f"connection error ({type(exc).__name__}: {clip(str(exc))})"
            wait: Optional[float] = None
            if response is not None:
                status = last_status = response.status_code
                unreached, self._answered = False, True
                if status == 200:
                    try:
                        payload = response.json()
                        choice = payload["choices"][0]
                        text = choice["message"].get("content") or ""
                        finish = choice.get("finish_reason")
                        top = first_token_logprobs(choice) if logprobs else ()
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                        last_problem = f"HTTP 200 with a body that is not a chat completion: {clip(response.text, 80)}"
                    else:
                        usage = self._usage(payload, time.perf_counter() - started, calls=requests)
                        record_usage(usage)
                        return Completion(text=text, usage=usage, attempts=requests, finish_reason=finish,
                                          top_logprobs=top)
                elif status in CONFIG_STATUS:
                    raise give_up(BackendError, f"{url} answered {summary(response)}")
                elif is_context_overflow(response):
                    if cap is None:
                        raise give_up(ContextOverflowError, f"the request exceeds the model's context: "
                                      f"{summary(response)}")
                    capped = False  # the cap counted against the context (vLLM): ask once without it
                    continue
                elif "response_format" in body and self.structured == "auto" and rejects_structured(response):
                    # the server does not do this mode: the next one now, and for every later call
                    mode = min(mode + 1, len(MODES) - 1)
                    self._mode = max(self._mode, mode)
                    continue
                elif cap is not None and (renamed := rejects_cap(response, cap)) is not None:
                    self._cap_field = renamed or None
                    continue
                elif status in RETRYABLE_STATUS or status >= 500:
                    last_problem = summary(response)
                    wait = retry_after(response.headers)
                else:
                    raise give_up(BackendError, f"{url} answered {summary(response)}")
            failures += 1
            if failures >= self.max_attempts:
                break
            delay = self._backoff(failures) if wait is None else wait
            await asyncio.sleep(min(delay, self.max_wait))
        if unreached:  # a configuration error until the server has answered once (faults.UnreachableError)
            raise give_up(UnreachableError, f"cannot reach {url} ({requests} attempts): {last_problem}",
                          answered=self._answered)
        raise give_up(BackendError, f"gave up after {requests} attempt(s): {last_problem}")


class CachedBackend:
    """Serves repeated requests from a ``ResponseCache`` and forwards the rest to ``inner`` (a reply cut off at the
    token cap is not stored)."""

    def __init__(self, inner: OpenAIBackend, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.model = inner.model

    async def complete(
        self, messages: Messages, *, schema: Optional[JsonSchema] = None, prompt_version: Optional[str] = None,
        logprobs: int = 0,
    ) -> Completion:
        params = dict(self.inner.params)
        params["schema"] = schema.schema if schema is not None else None
        params["endpoint"] = self.inner.base_url  # the same model name on two servers is not the same model
        if logprobs:
            params.update(schema=None, max_tokens=1, logprobs=logprobs)
        key = cache_key(prompt_version=prompt_version, model=self.inner.model, params=params, messages=messages)
        hit = self.cache.get(key)
        if hit is not None:
            if not logprobs:
                return Completion(text=hit[0], usage=Usage(), cached=True, attempts=0)
            stored = json.loads(hit[0])  # a one-token reply is stored with its alternatives
            return Completion(text=stored["text"], usage=Usage(), cached=True, attempts=0,
                              top_logprobs=tuple((t, float(lp)) for t, lp in stored["top_logprobs"]))
        if logprobs:
            completion = await self.inner.complete(messages, prompt_version=prompt_version, logprobs=logprobs)
            stored_text = json.dumps({"text": completion.text, "top_logprobs": completion.top_logprobs})
        else:
            completion = await self.inner.complete(messages, schema=schema, prompt_version=prompt_version)
            stored_text = completion.text
            if completion.finish_reason == "length":
                return completion  # cut off at the cap: a cached copy would lose why, and the re-ask needs it
        self.cache.put(key, stored_text, completion.usage, prompt_version=prompt_version, model=self.inner.model)
        return completion

    async def aclose(self) -> None:
        await self.inner.aclose()
