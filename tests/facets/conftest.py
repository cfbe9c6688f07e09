"""Fixtures for facet tests: the scripted OpenAI-compatible server of tests/llm (real HTTP on loopback)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from fake_openai import FakeOpenAI, Handler  # noqa: E402


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
