"""The server answers /healthz while audits run: the judge's work and the auditor's own CPU stages (segmenting the
context, anchoring evidence) run in worker threads, not on the event loop. Functional, not timed: each blocker
waits in its thread until the test releases it, and health must answer before that."""

from __future__ import annotations

import asyncio
import importlib
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from rt4chart import Auditor
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.types import Label

auditor_module = importlib.import_module("rt4chart.audit.auditor")  # rt4chart.audit is also the function
RECORD = {"id": "r1", "context": "The free trial lasts 14 days.", "answer": "The free trial lasts 30 days."}
WAIT = 20  # seconds a blocker waits at most, so that a failing test still ends


class BlockingJudge:
    """The lexical judge, after its worker thread has waited for ``release``; ``entered`` is set once it waits."""

    name = "blocking"

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.inner = LexicalJudge()

    def _wait(self) -> None:
        self.entered.set()
        self.release.wait(WAIT)

    async def judge(self, claims, evidence, **kwargs):
        await asyncio.to_thread(self._wait)
        return await self.inner.judge(claims, evidence, **kwargs)


def _health_while(url: str, started: threading.Event, release: threading.Event) -> httpx.Response:
    """POST the record; once ``started`` says the blocker waits, GET /healthz; then release and return the audit."""
    with ThreadPoolExecutor(1) as pool, httpx.Client(base_url=url, timeout=WAIT + 10) as http:
        audit = pool.submit(http.post, "/v1/audit", json=RECORD)
        try:
            assert started.wait(WAIT), "the audit never reached the blocker"
            health = httpx.get(f"{url}/healthz", timeout=WAIT / 2)
            assert health.status_code == 200 and health.json() == {"status": "ok"}
            assert not audit.done()  # health answered while the audit was still waiting in its thread
        finally:
            release.set()
        return audit.result(timeout=WAIT + 10)


def test_health_answers_while_the_judge_works_in_a_thread(live_server):
    judge = BlockingJudge()
    srv = live_server(auditor=Auditor(judge=judge))
    resp = _health_while(srv.url, judge.entered, judge.release)
    assert resp.status_code == 200 and resp.json()["label"] == Label.CONTRADICTED.value


def test_health_answers_while_the_auditor_segments_a_context(live_server, monkeypatch):
    entered, release = threading.Event(), threading.Event()
    split = auditor_module.split_sentences

    def blocking_split(text):
        if text == RECORD["context"]:
            entered.set()
            release.wait(WAIT)
        return split(text)

    monkeypatch.setattr(auditor_module, "split_sentences", blocking_split)
    srv = live_server(auditor=Auditor(judge=LexicalJudge()))
    resp = _health_while(srv.url, entered, release)
    assert resp.status_code == 200 and resp.json()["label"] == Label.CONTRADICTED.value


def test_health_answers_while_the_auditor_anchors_evidence(live_server, monkeypatch):
    entered, release = threading.Event(), threading.Event()
    anchor = auditor_module.anchor

    def blocking_anchor(*args, **kwargs):
        entered.set()
        release.wait(WAIT)
        return anchor(*args, **kwargs)

    monkeypatch.setattr(auditor_module, "anchor", blocking_anchor)
    srv = live_server(auditor=Auditor(judge=LexicalJudge()))
    resp = _health_while(srv.url, entered, release)
    assert resp.status_code == 200 and resp.json()["label"] == Label.CONTRADICTED.value
