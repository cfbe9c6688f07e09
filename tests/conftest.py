"""Fixtures shared across test folders: the scripted OpenAI-compatible server and a headless Chromium."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from fake_openai import FakeOpenAI, Handler  # tests/llm is on pytest's pythonpath (pyproject.toml)

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAI]]:
    """``serve(handler, latency=0.0)`` starts a FakeOpenAI (real HTTP on loopback) that is closed after the test;
    a handler that raised fails the test."""
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


@pytest.fixture(scope="module")  # one Playwright at a time: its sync API owns the event loop
def chromium() -> Iterator[Any]:
    """A headless Chromium (the system one; Playwright's own download is not used); skips with a reason without it."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium); .ci/run installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield browser
        browser.close()
