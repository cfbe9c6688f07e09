"""Fixtures for the LLM tests: a scripted OpenAI-compatible server on loopback (see fake_openai.py)."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest
from fake_openai import FakeOpenAI, Handler


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAI]]:
    """``serve(handler, latency=0.0)`` starts a FakeOpenAI that is closed after the test; handler errors fail it."""
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
