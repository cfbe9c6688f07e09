"""Helpers for the HTTP service tests: a fake auditor, the paper example, TestClient, a live uvicorn server."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Optional

with warnings.catch_warnings():
    # Starlette >= 1.x prefers the httpx2 fork for its TestClient and warns once, at import, when it finds httpx.
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette\.testclient` is deprecated")
    from fastapi.testclient import TestClient  # noqa: F401  (re-exported to the tests)

from rt4chart.errors import InputError
from rt4chart.types import AuditResult, ClaimVerdict, Evidence, Label, Span
from rt4chart.llm.managed import free_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def paper_record() -> dict:
    """The paper's running example (Figure 1), as shipped in examples/paper_example.jsonl."""
    return json.loads((ROOT / "examples" / "paper_example.jsonl").read_text(encoding="utf-8").splitlines()[0])


class FakeAuditor:
    """Labels each answer sentence-free: the whole answer is one claim, contradicted if it contains "not".

    ``delay`` makes audits slow (timeouts, graceful shutdown); ``fail`` raises that exception instead.
    """

    class _Judge:
        name = "fake"

        def __init__(self) -> None:
            self.closed = False

        async def aclose(self) -> None:
            self.closed = True

    def __init__(self, delay: float = 0.0, fail: Optional[BaseException] = None) -> None:
        self.delay, self.fail, self.calls = delay, fail, 0
        self.judge = self._Judge()

    async def audit(self, record: dict, *, index: Optional[int] = None) -> AuditResult:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        answer, context = record["answer"], record["context"]
        if isinstance(context, list):
            context = "\n\n".join(context)
        if not isinstance(answer, str) or not answer.strip():
            raise InputError("is empty", record=record.get("id"), field="answer")
        label = Label.CONTRADICTED if " not " in f" {answer} " else Label.ENTAILED
        ev = () if not context else (Evidence(start=0, end=len(context), text=context, sentence_ids=(0,)),)
        claim = ClaimVerdict(index=0, text=answer, sentence_index=0, label=label,
                             answer_spans=(Span(start=0, end=len(answer)),), evidence=ev, reason="fake")
        return AuditResult(id=record["id"], label=label, hallucinated=label.hallucinated, claims=(claim,),
                           context=context, question=record.get("question"), answer=answer, judge="fake")



class LiveServer:
    """A real uvicorn server on loopback, in a background thread."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    timeout_graceful_shutdown=10))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 15) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    def __exit__(self, *exc: Any) -> None:
        self.stop()


