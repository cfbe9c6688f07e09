"""The service over real HTTP: uvicorn on loopback driven by httpx, `rt4chart serve` as a process, and the web
page in headless Chromium."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from server_helpers import FakeAuditor, paper_record

from rt4chart.llm.managed import free_port


def test_live_uvicorn_audits_the_paper_example_and_enforces_limits(live_server):
    srv = live_server(max_body_bytes=20_000, token="tok")
    auth = {"Authorization": "Bearer tok"}
    with httpx.Client(base_url=srv.url, timeout=30) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        resp = http.post("/v1/audit", json=paper_record(), headers=auth)
        assert resp.status_code == 200, resp.text
        out = resp.json()
        assert out["hallucinated"] is True and len(out["claims"]) == 5
        assert http.post("/v1/audit", json=paper_record(), headers={"Authorization": "Bearer nope"}).status_code == 401
        big = dict(paper_record(), context="word " * 10_000)
        resp = http.post("/v1/audit", json=big, headers=auth)
        assert resp.status_code == 413 and resp.json()["error"]["kind"] == "payload_too_large"
        resp = http.post("/v1/audit", content=b"{nope", headers={**auth, "content-type": "application/json"})
        assert resp.status_code == 422 and resp.json()["error"]["kind"] == "bad_json"
        batch = {"records": [dict(paper_record(), id=i) for i in range(5)]}
        assert [r["id"] for r in http.post("/v1/audit", json=batch, headers=auth).json()["results"]] == list(range(5))


def test_graceful_shutdown_finishes_in_flight_requests(live_server):
    fake = FakeAuditor(delay=0.8)
    srv = live_server(fake)
    result: dict = {}

    def call() -> None:
        with httpx.Client(base_url=srv.url, timeout=30) as http:
            result["resp"] = http.post("/v1/audit", json={"id": 1, "context": "c", "answer": "a"})

    t = threading.Thread(target=call)
    t.start()
    deadline = time.monotonic() + 10
    while fake.calls == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake.calls == 1
    srv.stop()  # like SIGTERM: stop accepting, let the running request finish
    t.join(15)
    assert result["resp"].status_code == 200 and result["resp"].json()["label"] == "entailed"
    assert not srv.thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{srv.url}/healthz", timeout=2)


def test_rt4chart_serve_command_runs_and_stops_on_sigterm(tmp_path: Path):
    port = free_port()
    env = dict(os.environ, RT4CHART_API_TOKEN="env-token")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from rt4chart.cli import main; main()", "serve", "--port", str(port),
         "--judge", "lexical", "--max-records", "2", "--no-gate", "--log-level", "info"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, "rt4chart serve exited early"
            assert time.monotonic() < deadline, "rt4chart serve did not come up"
            time.sleep(0.1)
        auth = {"Authorization": "Bearer env-token"}
        assert httpx.post(f"{url}/v1/audit", json=paper_record(), timeout=10).status_code == 401
        out = httpx.post(f"{url}/v1/audit", json=paper_record(), headers=auth, timeout=10).json()
        assert out["judge"] == "lexical" and len(out["claims"]) == 5
        too_many = {"records": [paper_record()] * 3}
        assert httpx.post(f"{url}/v1/audit", json=too_many, headers=auth, timeout=10).status_code == 422
        info = httpx.get(f"{url}/v1/info", headers=auth, timeout=10).json()
        assert info["limits"]["max_records"] == 2 and info["gate"] is False
        triage = httpx.post(f"{url}/v1/triage", json={"records": [paper_record()]}, headers=auth, timeout=10)
        assert triage.status_code == 503 and triage.json()["error"]["kind"] == "gate_unavailable"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            log, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    # uvicorn shuts down gracefully, then re-raises the signal so the exit status says how the process ended.
    assert proc.returncode in (0, -signal.SIGTERM), log
    assert "Application shutdown complete" in log


def test_rt4chart_serve_rejects_an_unavailable_judge(monkeypatch):
    from click.testing import CliRunner

    from rt4chart.cli import main
    from rt4chart.judges import local

    # a build whose trained model is missing (the model ships in the package, so simulate its absence)
    monkeypatch.setattr(local, "is_available", lambda *a, **k: False)
    result = CliRunner().invoke(main, ["serve", "--judge", "local", "--port", str(free_port())])
    assert result.exit_code == 2 and "local judge" in result.output


# -- the web page in headless Chromium --------------------------------------------------------------------------
def _label_colours(page) -> dict:
    return page.evaluate("""() => {
        const out = {};
        for (const s of document.querySelectorAll('#result .claim-span')) {
            const lab = [...s.classList].find(c => c.startsWith('lab-'));
            out[lab] = getComputedStyle(s).backgroundColor;
        }
        return out;
    }""")


def test_web_page_audits_pasted_text_and_colours_claims(live_server, chromium, tmp_path: Path):
    srv = live_server()
    page = chromium.new_page(viewport={"width": 1200, "height": 1100})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(srv.url + "/")
    assert page.is_hidden("#token-row")
    page.click("#example")
    page.click("#submit")
    page.wait_for_selector("#result article.card")
    # The lexical judge finds the paper's trial-length claim entailed and the priority-support claim baseless.
    colours = _label_colours(page)
    assert colours["lab-entailed"] == "rgb(134, 239, 172)"  # green
    assert colours["lab-baseless"] == "rgb(253, 224, 71)"  # yellow
    assert colours.get("lab-contradicted", "rgb(252, 165, 165)") == "rgb(252, 165, 165)"  # red, if any
    assert page.locator("#result .claim-item").count() == 5
    assert "5 claims" in page.inner_text("#status")
    support = page.locator("#result .claim-item", has_text="priority email support")
    assert "lab-baseless" in support.get_attribute("class")

    entailed = page.locator("#result .claim-item.lab-entailed", has_text="14 days")
    entailed.click()
    assert "active" in entailed.get_attribute("class")
    detail = page.inner_text("#result [data-role=detail]")
    assert "14 days" in detail and "reason" in detail and "chunk 0: entailed" in detail
    marks = page.locator("#result mark.ev.active")
    assert marks.count() >= 1 and "14 days" in marks.first.inner_text()
    page.screenshot(path=str(tmp_path / "web-page.png"), full_page=True)
    assert (tmp_path / "web-page.png").stat().st_size > 10_000

    # A bad request shows the server's structured error, as text.
    page.fill("#in-answer", "")
    page.evaluate("document.getElementById('in-answer').removeAttribute('required')")
    page.click("#submit")
    page.wait_for_selector("[data-role=api-error]")
    assert "422" in page.inner_text("[data-role=api-error]")
    assert errors == []
    page.close()


def test_web_page_sends_the_token_and_shows_401(live_server, chromium):
    srv = live_server(FakeAuditor(), token="right")
    page = chromium.new_page()
    page.goto(srv.url + "/")
    assert page.is_visible("#token-row")
    page.fill("#in-context", "<b>bold</b> context")
    page.fill("#in-answer", "It is not <img src=x onerror=window.__pwned=1> bold.")
    page.fill("#in-token", "wrong")
    page.click("#submit")
    page.wait_for_selector("[data-role=api-error]")
    assert "401" in page.inner_text("[data-role=api-error]")
    page.fill("#in-token", "right")
    page.click("#submit")
    page.wait_for_selector("#result .claim-span.lab-contradicted")
    assert page.evaluate("window.__pwned") is None
    assert "<img src=x" in page.inner_text("#result .answer")  # shown as text, not parsed as markup
    assert page.evaluate("getComputedStyle(document.querySelector('#result .claim-span')).backgroundColor") \
        == "rgb(252, 165, 165)"  # red
    page.close()
