"""OpenAIBackend over real HTTP against the scripted server: request shape, retries, limits, usage."""

from __future__ import annotations

import asyncio
import time

import pytest
from rt4chart.testing.openai_server import Reply, scripted

from rt4chart.errors import BackendError, ConfigError
from rt4chart.llm.backend import OpenAIBackend
from rt4chart.llm.pricing import Price, price_for
from rt4chart.llm.schemas import VerdictReply, schema_for
from rt4chart.llm.meter import metering

MESSAGES = [{"role": "system", "content": "be terse"}, {"role": "user", "content": "hello"}]
FAST = dict(backoff_base=0.01, backoff_max=0.05)


def backend(server, **kw) -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "fake-model", **{**FAST, **kw})


async def test_request_carries_model_messages_determinism_schema_and_key(serve):
    server = serve(scripted("hi"))
    b = backend(server, api_key="sk-test", seed=42)
    out = await b.complete(MESSAGES, schema=schema_for(VerdictReply))
    assert out.text == "hi"
    (req,) = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert req.body["model"] == "fake-model"
    assert req.body["messages"] == MESSAGES
    assert req.body["temperature"] == 0.0 and req.body["seed"] == 42
    fmt = req.response_format
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    props = list(fmt["json_schema"]["schema"]["properties"])
    assert props.index("reasoning") < props.index("verdict")  # reasoning before the verdict


async def test_no_api_key_sends_no_authorization(serve):
    server = serve(scripted("hi"))
    await backend(server).complete(MESSAGES)
    assert "authorization" not in server.requests[0].headers
    assert "response_format" not in server.requests[0].body


async def test_429_then_success_honours_retry_after(serve):
    server = serve(scripted(Reply.error(429, "slow down", retry_after=0.3), "ok"))
    b = backend(server)
    t0 = time.perf_counter()
    with metering() as meter:
        out = await b.complete(MESSAGES)
    assert out.text == "ok" and out.attempts == 2
    assert time.perf_counter() - t0 >= 0.28  # waited as told, although the backoff cap is 0.05 s
    assert len(server.requests) == 2
    assert meter.total.calls == 2 and meter.total.prompt_tokens > 0


async def test_500_beyond_budget_raises_backend_error_with_reason_attempts_usage(serve):
    server = serve(lambda req: Reply.error(500, "boom"))
    with metering() as meter, pytest.raises(BackendError) as info:
        await backend(server, max_attempts=3).complete(MESSAGES)
    err = info.value
    assert err.attempts == 3 and err.status == 500
    assert "HTTP 500 scripted: boom" in str(err) and err.raw is None  # a short reason, not the body
    assert err.usage.calls == 3 and meter.total.calls == 3
    assert len(server.requests) == 3  # bounded: exactly max_attempts requests


async def test_timeout_is_retried_then_gives_up(serve):
    server = serve(lambda req: Reply("late", delay=1.0))
    with pytest.raises(BackendError, match="timed out") as info:
        await backend(server, timeout=0.2, max_attempts=2).complete(MESSAGES)
    assert info.value.attempts == 2 and len(server.requests) == 2


async def test_timeout_then_success(serve):
    server = serve(scripted(Reply("late", delay=1.0), "fast"))
    out = await backend(server, timeout=0.2).complete(MESSAGES)
    assert out.text == "fast" and out.attempts == 2


async def test_dropped_connection_is_retried(serve):
    server = serve(scripted(Reply.drop(), "ok"))
    assert (await backend(server).complete(MESSAGES)).text == "ok"


async def test_non_json_200_is_retried(serve):
    server = serve(scripted(Reply(body=b"<html>proxy error</html>"), "ok"))
    assert (await backend(server).complete(MESSAGES)).text == "ok"


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_raise_at_once(serve, status):
    server = serve(lambda req: Reply.error(status, "bad key or model"))
    with pytest.raises(BackendError) as info:
        await backend(server).complete(MESSAGES)
    assert info.value.status == status and info.value.attempts == 1
    assert len(server.requests) == 1


async def test_server_without_schema_support_gets_plain_requests(serve):
    def handler(req):
        if req.response_format is not None:
            return Reply.error(400, "Unrecognized request argument supplied: response_format")
        return '{"ok": true}'

    server = serve(handler)
    b = backend(server)
    schema = schema_for(VerdictReply)
    assert (await b.complete(MESSAGES, schema=schema)).text == '{"ok": true}'
    assert (await b.complete(MESSAGES, schema=schema)).text == '{"ok": true}'
    # the first call tried the schema, then json_object, then none; every later request goes without one
    kinds = [(r.response_format or {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object", None, None]
    assert b.structured_mode == "text"


async def test_concurrency_bounds_requests_in_flight(serve):
    server = serve(lambda req: "ok", latency=0.1)
    b = backend(server, concurrency=3)
    t0 = time.perf_counter()
    await asyncio.gather(*(b.complete(MESSAGES) for _ in range(9)))
    assert server.max_in_flight == 3
    assert time.perf_counter() - t0 >= 0.29  # 9 requests, 3 at a time, 0.1 s each


async def test_rpm_spaces_request_starts(serve):
    server = serve(lambda req: "ok")
    b = backend(server, rpm=600)  # one start per 0.1 s
    t0 = time.perf_counter()
    await asyncio.gather(*(b.complete(MESSAGES) for _ in range(4)))
    assert time.perf_counter() - t0 >= 0.29


async def test_usage_and_cost_are_metered(serve):
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 400}}
    server = serve(scripted(Reply("ok", usage=usage)))
    b = backend(server, price=Price(input=1.0, output=2.0, cached_input=0.5))
    with metering() as meter:
        out = await b.complete(MESSAGES)
    u = meter.total
    assert (u.calls, u.prompt_tokens, u.completion_tokens, u.cached_tokens) == (1, 1000, 100, 400)
    assert u.cost_usd == pytest.approx((600 * 1.0 + 400 * 0.5 + 100 * 2.0) / 1e6)
    assert u.seconds > 0 and out.usage == u


def test_backend_reusable_across_event_loops(serve):
    server = serve(lambda req: "ok")
    b = backend(server)
    assert asyncio.run(b.complete(MESSAGES)).text == "ok"
    assert asyncio.run(b.complete(MESSAGES)).text == "ok"  # a fresh client for the new loop, old one closed


def test_prices():
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini")
    assert price_for("gpt-4o").input == 2.5
    assert price_for("llama3.1:8b") == Price()
    assert price_for("gpt-4o", price_in=1, price_out=3) == Price(1, 3)
    with pytest.raises(ConfigError):
        price_for("x", price_in=-1)


@pytest.mark.parametrize("kw", [dict(timeout=0), dict(max_attempts=0), dict(concurrency=0), dict(rpm=0)])
def test_backend_rejects_bad_options(kw):
    with pytest.raises(ConfigError):
        OpenAIBackend("http://127.0.0.1:1/v1", "m", **kw)
