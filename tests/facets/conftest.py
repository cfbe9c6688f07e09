"""Fixtures for facet tests: the scripted OpenAI-compatible server of tests/llm (real HTTP on loopback)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Iterator, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from fake_openai import ChatRequest, FakeOpenAI, Handler  # noqa: E402


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAI]]:
    """``serve(handler)`` starts a FakeOpenAI closed after the test; a handler that raised fails the test."""
    servers: list[FakeOpenAI] = []

    def start(handler: Handler, **kw) -> FakeOpenAI:
        server = FakeOpenAI(handler, **kw).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
    errors = [e for s in servers for e in s.errors]
    if errors:
        raise errors[0]


def schema_name(req: ChatRequest) -> Optional[str]:
    """The reply model the client asked for (``response_format.json_schema.name``), e.g. ``AnswerReply``."""
    fmt = req.response_format or {}
    return (fmt.get("json_schema") or {}).get("name")


_BLOCK = re.compile(r"<<<\n(.*?)\n>>>", re.DOTALL)


def judge_parts(req: ChatRequest) -> tuple[str, str]:
    """``(chunk, claim)`` of a local-verification request (prompt local.v1)."""
    chunk = _BLOCK.search(req.user).group(1)
    claim = re.search(r"^CLAIM: (.*)$", req.user, re.MULTILINE).group(1)
    return chunk, claim


def question_of(req: ChatRequest) -> str:
    return re.search(r"^(?:QUESTION|Question): (.*)$", req.user, re.MULTILINE).group(1).strip()
