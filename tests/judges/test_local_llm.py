"""Opt-in: the ``llm`` and ``hybrid`` judges against a real llama-server running a small local model.

    python3 -m pytest -m local_llm tests/judges/test_local_llm.py              # starts llama-server itself
    RT4CHART_LOCAL_LLM_URL=http://127.0.0.1:8098/v1 python3 -m pytest -m local_llm tests/judges/test_local_llm.py

With ``RT4CHART_LOCAL_LLM_URL`` the tests use that server (its model alias ``RT4CHART_LOCAL_LLM_MODEL``, default
``judge``). Otherwise, when ``-m local_llm`` selects them and both Qwen2.5-Coder-1.5B-Instruct (written by
``../shared/models/get_qwen2.5-coder-1.5b-instruct.sh`` to ``~/.cache/rt4chart-models``) and a ``llama-server``
(``../shared/models/bin`` or ``RT4CHART_LLAMA_SERVER``) are found, they start one on a free loopback port with 2
threads. Anything else skips, so the default test run (and CI) never waits on a model. The replies are the model's
own: the tests check what rt4chart makes of them (usable replies, evidence anchored in the context, verdicts that
keep the never-fail-open rules), and the paper example's labels against the issue's acceptance.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator, Optional

import httpx
import pytest

from rt4chart.judges.registry import build_auditor
from rt4chart.types import Label
from rt4chart.llm.managed import free_port

pytestmark = pytest.mark.local_llm

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "paper_example.jsonl"
MODEL = Path.home() / ".cache" / "rt4chart-models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS
RECORD = {"id": "library", "context": "The city library opens at 9 a.m. on weekdays. Entry costs 5 euros for adults. "
          "Children under 12 enter for free. The reading room on the second floor has 40 seats.",
          "answer": "The city library opens at 9 a.m. on weekdays. Children under 12 pay 5 euros to enter. The "
          "reading room has 40 seats for adults."}


def _binary() -> Optional[str]:
    given = os.environ.get("RT4CHART_LLAMA_SERVER")
    if given:
        return given
    shipped = ROOT.parent / "shared" / "models" / "bin" / "llama-server"
    return str(shipped) if shipped.exists() else shutil.which("llama-server")



@pytest.fixture(scope="module")
def server(request) -> Iterator[tuple[str, str]]:
    """``(base_url, model)`` of a running llama-server with the small model (see the module docstring)."""
    url = os.environ.get("RT4CHART_LOCAL_LLM_URL")
    if url:
        yield url, os.environ.get("RT4CHART_LOCAL_LLM_MODEL", "judge")
        return
    if "local_llm" not in (request.config.getoption("-m") or ""):
        pytest.skip("opt-in: run with -m local_llm (or set RT4CHART_LOCAL_LLM_URL)")
    binary = _binary()
    if not MODEL.exists() or binary is None:
        pytest.skip(f"no local model ({MODEL}: run ../shared/models/get_qwen2.5-coder-1.5b-instruct.sh) or no "
                    "llama-server (../shared/models/build_llama_server.sh, or RT4CHART_LLAMA_SERVER)")
    port = free_port()
    proc = subprocess.Popen([binary, "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(port), "-t", "2",
                             "-c", "8192", "--alias", "judge"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(240):  # loading the 1.1 GB model takes seconds; a broken binary exits at once
            if proc.poll() is not None:
                pytest.fail(f"llama-server exited with {proc.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("llama-server did not become healthy in 120 s")
        yield f"http://127.0.0.1:{port}/v1", "judge"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def audit(judge: str, server: tuple[str, str], record: dict, **kw):
    base_url, model = server
    auditor = build_auditor(judge, base_url=base_url, model=model, cache=False, timeout=600.0, concurrency=1, **kw)
    return asyncio.run(auditor.audit(record))


def test_hybrid_replies_are_usable_and_grounded(server):
    result = audit("hybrid", server, RECORD)
    assert result.errors == () and result.usage.calls == len(result.claims)  # one one-token call per claim
    assert result.usage.cached_tokens > 0  # the document was evaluated once: later claims hit the prefix cache
    for claim in result.claims:
        raw = json.loads(claim.raw)
        assert 0.0 <= raw["p_supported"] <= 1.0 and claim.prompt_version == "hybrid@v4/hybrid_supports"
        assert claim.label in (E, C, N)
        for ev in claim.evidence:
            assert RECORD["context"][ev.start:ev.end] == ev.text
    assert result.usage.completion_tokens == len(result.claims)


def test_cli_gguf_starts_audits_and_stops_the_real_server(tmp_path: Path, request):
    """``rt4chart audit --gguf MODEL``: the managed llama-server starts, audits the paper example and stops."""
    if "local_llm" not in (request.config.getoption("-m") or ""):
        pytest.skip("opt-in: run with -m local_llm")
    binary = _binary()
    if not MODEL.exists() or binary is None:
        pytest.skip("no local model or llama-server")
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "RT4CHART_LLAMA_SERVER": binary}
    env.pop("RT4CHART_BASE_URL", None)
    run = subprocess.run(["rt4chart", "audit", str(PAPER), "-o", str(out), "--gguf", str(MODEL), "--no-cache", "-q"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["judge"] == "hybrid" and row["usage"]["calls"] == len(row["claims"]) and row["errors"] == []
    left = subprocess.run(["pgrep", "-f", f"{MODEL} .*-np "], capture_output=True, text=True).stdout
    assert left.strip() == "", "the managed llama-server was left running"


def test_llm_batched_replies_are_usable(server):
    result = audit("llm", server, RECORD, granularity="batched", decomposition="rule")
    assert result.usage.calls >= 2  # one local (one chunk) and one global call
    for claim in result.claims:
        if claim.label is Label.UNVERIFIED:  # allowed, but only with the reason the policy gives
            assert "judge" in claim.reason
        for ev in claim.evidence:
            assert RECORD["context"][ev.start:ev.end] == ev.text


@pytest.mark.xfail(strict=True, reason="measured with Qwen2.5-Coder-1.5B-Instruct Q4_K_M: claim 4 ('Verified new users "
                   "can receive a one-time 7-day extension...', a paraphrase) comes out contradicted "
                   "(docs/results/hybrid.md); strict, so a model or version that gets it right fails here until this "
                   "mark goes")
def test_hybrid_on_the_paper_example(server):
    record = json.loads(PAPER.read_text().splitlines()[0])
    result = audit("hybrid", server, record)
    assert [c.label for c in result.claims] == [C, C, E, E, N], [(c.text, c.label.value, c.reason)
                                                                  for c in result.claims]
    assert result.label == C
