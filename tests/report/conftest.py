"""Fixtures for the report tests: a headless Chromium (the system one; skipped with a reason when absent)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from report_helpers import CHROMIUM


@pytest.fixture(scope="module")  # one Playwright at a time: its sync API owns the event loop
def report_browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium); .ci/run installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield browser
        browser.close()
