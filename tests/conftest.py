"""Fixtures shared across test folders: the scripted OpenAI-compatible server, a headless Chromium, the real
RAGTruth data folder, and small synthetic gate data (for the gate's and the RAGScope protocol's tests)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest
from rt4chart.testing.openai_server import FakeOpenAI, Handler

from rt4chart.errors import InputError
from rt4chart.eval.datasets import data_root

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


def _shared_root(name: str, what: str) -> Path:
    try:
        return data_root(name)
    except InputError as exc:
        pytest.skip(f"{what} data not available: {exc}")


@pytest.fixture
def ragtruth_root() -> Path:
    """The real RAGTruth data folder (``shared/data``, found as the library finds it); skips the test without it."""
    return _shared_root("ragtruth", "RAGTruth")


@pytest.fixture
def nli_root() -> Path:
    """The real NLI data folder (``shared/data/nli``, found as the library finds it); skips the test without it."""
    return _shared_root("nli", "NLI")


_WORDS = ("harbor lantern meadow copper violin glacier orchard pepper saddle thunder velvet walnut beacon canyon "
          "falcon garnet hazel island jasper kettle ledger marble nectar oyster quartz raven summit timber").split()
_ALIEN = ("zeppelin xylophone quasar nebula tundra vortex yonder wizard jigsaw kumquat").split()


def synth_records(n_groups: int = 30, per_group: int = 4, seed: int = 0):
    """``(records, y, groups, tasks)``: half of each group's answers invent words and numbers."""
    rng = random.Random(seed)
    records, y, groups, tasks = [], [], [], []
    for g in range(n_groups):
        task = ("qa", "summary", "data2txt")[g % 3]
        sentences = [" ".join(rng.sample(_WORDS, 6)).capitalize() + f" {rng.randint(10, 99)}." for _ in range(5)]
        context = " ".join(sentences)
        for j in range(per_group):
            bad = j % 2 == 1
            picked = rng.sample(sentences, 2)
            if bad:
                picked[1] = " ".join(rng.sample(_ALIEN, 4)).capitalize() + f" {rng.randint(100, 999)}."
            question = "What happened?" if task == "qa" else None
            records.append({"id": f"{g}-{j}", "context": context, "question": question, "answer": " ".join(picked),
                            "task": task})
            y.append(bad)
            groups.append(f"{task}:{g}")
            tasks.append(task)
    return records, np.array(y), np.array(groups), np.array(tasks)


@pytest.fixture(scope="session")
def synth():
    return synth_records()
