"""Fixtures for the HTTP service tests: apps over fake and real auditors, a live uvicorn (Chromium:
tests/conftest.py)."""

from __future__ import annotations

from typing import Any, Iterator, Optional

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed: pip install 'rt4chart[server]'")

from server_helpers import LiveServer, TestClient  # noqa: E402

from rt4chart.server import ServerSettings, create_app  # noqa: E402


@pytest.fixture
def make_client() -> Iterator[Any]:
    """``make_client(auditor=..., **settings)`` -> an entered TestClient (lifespan run); closed at teardown."""
    clients: list[TestClient] = []

    def make(auditor: Any = None, *, owns_auditor: Optional[bool] = None, raise_server_exceptions: bool = False,
             **settings: Any) -> TestClient:
        settings.setdefault("judge", "lexical")
        settings.setdefault("gate", False)  # loading the gate's model is slow; the triage tests turn it on
        app = create_app(ServerSettings(**settings), auditor=auditor, owns_auditor=owns_auditor)
        client = TestClient(app, raise_server_exceptions=raise_server_exceptions)
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def live_server() -> Iterator[Any]:
    servers: list[LiveServer] = []

    def start(auditor: Any = None, **settings: Any) -> LiveServer:
        settings.setdefault("judge", "lexical")
        settings.setdefault("gate", False)
        srv = LiveServer(create_app(ServerSettings(**settings), auditor=auditor)).__enter__()
        servers.append(srv)
        return srv

    yield start
    for s in servers:
        s.stop()
