"""Rebuild docs/phoenix.md's picture (docs/img/phoenix-annotations.png) from a real run:

    python3 scripts/phoenix_picture.py            # this checkout's src is put first on the path

It needs ``phoenix`` from the venv that scripts/check_phoenix.sh makes (~/.cache/rt4chart/phoenix-venv, or
``--phoenix PATH``), and, in the Python that runs it, the ``[otel]`` extra (the example's spans), playwright and
Pillow (the dev extras), with a chromium on PATH (Debian's ``chromium``).

As tests/integrations/test_phoenix_live.py does, it starts ``phoenix serve`` on 127.0.0.1 with random ports in a
temporary folder, telemetry and outside resources off (and always stops it, on an error too); sends the traces of
examples/integrations/openinference_traces.py (a clean answer and the paper's hallucinated one) to Phoenix's OTLP
endpoint; runs ``rt4chart audit --from phoenix URL --project rt4chart-demo -o OUT --write-back`` with the default
offline judge; then opens the hallucinated answer's trace in Phoenix's UI in headless Chromium (the trace's
``rt4chart`` score in its header), selects its LLM span, opens that span's annotations as a table (one ``rt4chart``
row per flagged claim: label, score, explanation) and saves the screenshot as a palette PNG (about 50 KB). Nothing is
written in the clone but the picture.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from live_server import flagged_audit, shrink, stop_group, wait_until

from rt4chart.llm.managed import free_port

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "integrations" / "openinference_traces.py"
PROJECT = "rt4chart-demo"
VENV = Path.home() / ".cache" / "rt4chart" / "phoenix-venv"
# the example and the audit run from a temporary folder: this checkout's src first on their path
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                                       os.environ.get("PYTHONPATH")]))}


def _wait(check, what: str, seconds: float = 120.0):
    return wait_until(check, what, seconds, 0.3)


def _send_example(url: str, work: Path) -> int:
    """The example's spans, as OTLP protobuf, to ``PROJECT``; waits until Phoenix can read them all."""
    import httpx
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    spans_json = work / "spans.json"
    subprocess.run([sys.executable, str(EXAMPLE), str(spans_json)], check=True, cwd=work, capture_output=True,
                   env=CHILD_ENV)
    request = json_format.Parse(spans_json.read_text(encoding="utf-8"), trace_service_pb2.ExportTraceServiceRequest())
    sent = sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
    answer = httpx.post(f"{url}/v1/traces", content=request.SerializeToString(),
                        headers={"Content-Type": "application/x-protobuf", "x-project-name": PROJECT}, timeout=30)
    answer.raise_for_status()

    def all_spans():
        got = httpx.get(f"{url}/v1/projects/{PROJECT}/spans", params={"limit": 1000}, timeout=10)
        return got.status_code == 200 and len(got.json().get("data", [])) == sent

    _wait(all_spans, f"the {sent} spans to be readable")
    return sent


def _screenshot(url: str, trace_id: str, output: Path, chromium: str) -> None:
    """The trace's page in Phoenix's UI (``/redirects/traces/ID`` leads to it), its annotations shown."""
    from playwright.sync_api import sync_playwright

    shot = output.with_suffix(".raw.png")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{url}/redirects/traces/{trace_id}")
            page.wait_for_url("**/traces/**", timeout=60_000)
            page.get_by_text("rt4chart", exact=False).first.wait_for(timeout=60_000)
            page.wait_for_load_state("networkidle")
            # the LLM span, whose span annotations are the flagged claims, and its annotations opened
            page.get_by_text("generate", exact=True).first.click()
            page.wait_for_load_state("networkidle")
            annotations = page.locator('[data-testid="span-info-wrap"] button[aria-label="Annotations"]').first
            if annotations.get_attribute("aria-expanded") == "false":
                annotations.click()
            # the table view: each annotation's label, score and explanation
            page.locator('[data-testid="span-info-wrap"]').get_by_text("Table", exact=True).first.click()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    shrink(shot, output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "img" / "phoenix-annotations.png")
    parser.add_argument("--phoenix", default=str(VENV / "bin" / "phoenix") if (VENV / "bin" / "phoenix").exists()
                        else shutil.which("phoenix"), help="the phoenix command (default: the check's venv's)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    if not args.phoenix or not Path(args.phoenix).exists():
        print("no phoenix: run scripts/check_phoenix.sh once (it makes the venv), or --phoenix PATH", file=sys.stderr)
        return 2
    if not Path(args.chromium).exists():
        print(f"no chromium at {args.chromium}: apt-get install -y chromium, or --chromium PATH", file=sys.stderr)
        return 2
    try:
        import httpx  # noqa: F401
        import playwright  # noqa: F401
    except ImportError as error:
        print(f"{error.name} is not installed: pip install -e '.[dev,otel]'", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="rt4chart-phoenix-picture-") as tmp:
        work = Path(tmp)
        port = free_port()
        env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
               "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_WORKING_DIR": str(work / "phoenix"),
               "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
               "PHOENIX_LOG_MIGRATIONS": "false"}
        (work / "phoenix").mkdir()
        url = f"http://127.0.0.1:{port}"
        with open(work / "phoenix.log", "wb") as log:
            proc = subprocess.Popen([args.phoenix, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                import httpx

                _wait(lambda: proc.poll() is not None or httpx.get(f"{url}/healthz", timeout=2).status_code == 200,
                      "phoenix serve to answer")
                if proc.poll() is not None:
                    raise RuntimeError("phoenix serve stopped: "
                                       + (work / "phoenix.log").read_text(errors="replace")[-3000:])
                print(f"phoenix serve at {url}; sent {_send_example(url, work)} spans to project {PROJECT}")
                out = work / "audit.jsonl"
                command = [sys.executable, "-m", "rt4chart.cli", "audit", "--from", "phoenix", url, "--project",
                           PROJECT, "-o", str(out), "--write-back"]
                flagged = flagged_audit(command, out, CHILD_ENV, work)
                _screenshot(url, flagged[0]["id"], args.output, args.chromium)
            finally:
                stop_group(proc)
    print(f"wrote {args.output} ({args.output.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
