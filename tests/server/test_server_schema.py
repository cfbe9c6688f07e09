"""Property-based API testing with schemathesis: no generated request, valid or not, makes the server answer 5xx,
and every response conforms to the OpenAPI schema the app publishes."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (the dev extra)")

from hypothesis import HealthCheck, settings  # noqa: E402
from server_helpers import TestClient  # noqa: E402,F401  (imports starlette's TestClient under our filter)

from rt4chart.server import ServerSettings, create_app  # noqa: E402
from rt4chart.server._app import build_auditor  # noqa: E402

SETTINGS = ServerSettings(judge="lexical", max_body_bytes=200_000, max_records=5, audit_timeout_s=30)
APP = create_app(SETTINGS, auditor=build_auditor(SETTINGS))  # the real offline judge, as `rt4chart serve` runs
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors_and_responses_match_the_schema(case):
    response = case.call()
    assert response.status_code < 500, response.text
    case.validate_response(response)
