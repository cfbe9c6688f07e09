"""Rebuild docs/mlflow.md's picture (docs/img/mlflow-assessment.png) from a real run:

    python3 scripts/mlflow_picture.py            # this checkout's src is put first on the children's path

It needs a Python with mlflow (default: the venv that scripts/check_mlflow.sh makes, ~/.cache/rt4chart/mlflow-venv,
or ``--mlflow-python PATH``) to run ``mlflow server`` and log the traces, and, in the Python that runs it, playwright
and Pillow (the dev extras), with a chromium on PATH (Debian's ``chromium``). The audit itself runs without mlflow:
it reads the server over REST.

As tests/integrations/test_mlflow_live.py does, it starts ``mlflow server`` on 127.0.0.1 with a random port and a
sqlite store in a temporary folder, telemetry off (and always stops it, on an error too); logs the three traces of
examples/integrations/mlflow_records.jsonl with scripts/mlflow_traces.py; runs ``rt4chart audit --from mlflow URL
--experiment rt4chart-demo -o OUT --write-back`` with the default offline judge; then opens the first hallucinated
trace in MLflow's UI in headless Chromium with its assessments shown (the ``rt4chart`` feedback with its value and
rationale, and the flagged claim's ``rt4chart-claim-N`` on the root span) and saves the screenshot as a palette PNG.
Nothing is written in the clone but the picture.
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
RECORDS = ROOT / "examples" / "integrations" / "mlflow_records.jsonl"
EXPERIMENT = "rt4chart-demo"
VENV = Path.home() / ".cache" / "rt4chart" / "mlflow-venv"
CHILD_ENV = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true",
             "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}


def _wait(check, what: str, seconds: float = 180.0):
    return wait_until(check, what, seconds, 0.5)


def _screenshot(url: str, experiment_id: str, trace_id: str, output: Path, chromium: str) -> None:
    """The trace's page in MLflow's UI (``selectedEvaluationId`` opens it), its assessments pane open."""
    from playwright.sync_api import sync_playwright

    shot = output.with_suffix(".raw.png")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                          "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(f"{url}/#/experiments/{experiment_id}/traces?selectedEvaluationId={trace_id}")
            page.get_by_text("rag", exact=True).first.wait_for(timeout=60_000)
            page.wait_for_timeout(3000)  # the UI polls: no network idle to wait for
            # force: the first visit's guidance and the assistant panel lie over the drawer
            got_it = page.locator('button:has-text("Got it")')
            if got_it.count():
                got_it.first.click(force=True)
            page.locator('button[aria-label="Full screen"]').first.click(force=True)
            page.wait_for_timeout(1000)
            page.locator('button[aria-label^="Assess trace"]').first.click(force=True)  # the assessments pane
            page.get_by_text("rt4chart", exact=True).last.wait_for(timeout=30_000)
            toggles = page.locator('button[data-component-id="shared.model-trace-explorer.toggle-assessment-expanded"]')
            for i in range(toggles.count()):  # each feedback opened: its value, source and rationale
                toggles.nth(i).click(force=True)
                page.wait_for_timeout(500)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    shrink(shot, output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "img" / "mlflow-assessment.png")
    parser.add_argument("--mlflow-python", default=str(VENV / "bin" / "python"),
                        help="a Python with mlflow (default: the check's venv's)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    if subprocess.run([args.mlflow_python, "-c", "import mlflow"], capture_output=True).returncode != 0:
        print(f"no mlflow in {args.mlflow_python}: run scripts/check_mlflow.sh once (it makes the venv), or "
              "--mlflow-python PATH", file=sys.stderr)
        return 2
    if not Path(args.chromium).exists():
        print(f"no chromium at {args.chromium}: apt-get install -y chromium, or --chromium PATH", file=sys.stderr)
        return 2
    try:
        import httpx
        import playwright  # noqa: F401
    except ImportError as error:
        print(f"{error.name} is not installed: pip install -e '.[dev]'", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="rt4chart-mlflow-picture-") as tmp:
        work = Path(tmp)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with open(work / "server.log", "wb") as log:
            proc = subprocess.Popen([args.mlflow_python, "-m", "mlflow", "server", "--backend-store-uri",
                                     f"sqlite:///{work / 'mlflow.db'}", "--default-artifact-root",
                                     str(work / "artifacts"), "--host", "127.0.0.1", "--port", str(port),
                                     "--workers", "1"], env=CHILD_ENV, cwd=work, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                _wait(lambda: proc.poll() is not None or httpx.get(f"{url}/health", timeout=2).status_code == 200,
                      "mlflow server to answer")
                if proc.poll() is not None:
                    raise RuntimeError("mlflow server stopped: "
                                       + (work / "server.log").read_text(errors="replace")[-3000:])
                logged = subprocess.run([args.mlflow_python, str(ROOT / "scripts" / "mlflow_traces.py"), str(RECORDS),
                                         EXPERIMENT], env={**CHILD_ENV, "MLFLOW_TRACKING_URI": url}, cwd=work,
                                        capture_output=True, text=True, check=True)
                print(f"mlflow server at {url}; logged traces {logged.stdout.strip().splitlines()[-1]}")
                out = work / "audit.jsonl"
                command = [sys.executable, "-m", "rt4chart.cli", "audit", "--from", "mlflow", url, "--experiment",
                           EXPERIMENT, "-o", str(out), "--write-back"]
                flagged = flagged_audit(command, out, CHILD_ENV, work)
                experiment = httpx.get(f"{url}/api/2.0/mlflow/experiments/get-by-name",
                                       params={"experiment_name": EXPERIMENT}, timeout=30).json()["experiment"]
                _screenshot(url, experiment["experiment_id"], flagged[0]["id"], args.output, args.chromium)
            finally:
                stop_group(proc)
    print(f"wrote {args.output} ({args.output.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
