"""``rt4chart audit --from phoenix --write-back`` against a real ``phoenix serve`` on loopback (opt-in:
``RT4CHART_PHOENIX=1`` and ``phoenix`` on PATH; ``scripts/check_phoenix.sh`` makes a venv and runs this file).

The repository's OpenInference example (examples/integrations/openinference_traces.py: a clean answer and the paper's
hallucinated one) writes its traces as OTLP JSON; they go to Phoenix's OTLP endpoint; the audit reads them back over
REST and annotates them. Then, over REST: one trace annotation per record, its label the audit file's, one span
annotation per flagged claim; a second run, and a run cut short then resumed, leave every count as it was."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from live_helpers import stop_group, wait_until

from rt4chart.llm.managed import free_port

if os.environ.get("RT4CHART_PHOENIX") != "1" or shutil.which("phoenix") is None:
    pytest.skip("the live Phoenix check is opt-in: scripts/check_phoenix.sh (RT4CHART_PHOENIX=1, phoenix on PATH)",
                allow_module_level=True)

httpx = pytest.importorskip("httpx")
json_format = pytest.importorskip("google.protobuf.json_format")
trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "integrations" / "openinference_traces.py"
PROJECT = "rt4chart-live"
LABELS = {True: "hallucinated", False: "supported", None: "needs review"}


def _wait(check, what: str, seconds: float = 120.0):
    return wait_until(check, what, seconds, 0.3)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    """A ``phoenix serve`` of its own: loopback, random ports, a fresh working folder, no telemetry, no outside
    resources; always stopped."""
    work = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_WORKING_DIR": str(work),
           "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
           "PHOENIX_LOG_MIGRATIONS": "false"}
    log = open(work / "phoenix.log", "wb")
    proc = subprocess.Popen(["phoenix", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: proc.poll() is not None or httpx.get(f"{url}/healthz", timeout=2).status_code == 200,
              "phoenix serve to answer")
        assert proc.poll() is None, (work / "phoenix.log").read_text(errors="replace")[-3000:]
        yield url
    finally:
        stop_group(proc)
        log.close()


@pytest.fixture(scope="module")
def traces(phoenix, tmp_path_factory) -> list[str]:
    """The example's two traces sent to ``PROJECT``; their ids, once Phoenix has them all."""
    spans_json = tmp_path_factory.mktemp("example") / "spans.json"
    done = subprocess.run([sys.executable, str(EXAMPLE), str(spans_json)], capture_output=True, text=True,
                          timeout=600, cwd=spans_json.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    request = json_format.Parse(spans_json.read_text(encoding="utf-8"),
                                trace_service.ExportTraceServiceRequest())
    sent = sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
    answer = httpx.post(f"{phoenix}/v1/traces", content=request.SerializeToString(),
                        headers={"Content-Type": "application/x-protobuf", "x-project-name": PROJECT}, timeout=30)
    assert answer.status_code < 300, answer.text

    def all_spans():
        got = httpx.get(f"{phoenix}/v1/projects/{PROJECT}/spans", params={"limit": 1000}, timeout=10)
        data = got.json().get("data", []) if got.status_code == 200 else []
        return data if len(data) == sent else None

    spans = _wait(all_spans, f"the {sent} spans to be readable")
    return sorted({s["context"]["trace_id"] for s in spans})


def _audit(phoenix: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rt4chart.cli", "audit", "--from", "phoenix", phoenix, "--project",
                           PROJECT, "-o", str(out), "--write-back", "--judge", "local", "-q", *extra],
                          capture_output=True, text=True, timeout=600)


def _annotations(phoenix: str, kind: str, ids: list[str]) -> list[dict]:
    key = "trace_ids" if kind == "trace" else "span_ids"
    got = httpx.get(f"{phoenix}/v1/projects/{PROJECT}/{kind}_annotations", params={key: ids, "limit": 1000},
                    timeout=30)
    assert got.status_code == 200, got.text
    return [a for a in got.json()["data"] if a["name"] == "rt4chart"]


def _state(phoenix: str, traces: list[str], out: Path) -> tuple:
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    spans = httpx.get(f"{phoenix}/v1/projects/{PROJECT}/spans", params={"limit": 1000}, timeout=30).json()["data"]
    llm = [s["context"]["span_id"] for s in spans if s["span_kind"] == "LLM"]
    trace_notes = _annotations(phoenix, "trace", traces)
    span_notes = _annotations(phoenix, "span", llm)
    return lines, trace_notes, span_notes


def test_audit_write_back_round_trip(phoenix, traces, tmp_path):
    out = tmp_path / "out.jsonl"
    first = _audit(phoenix, out)
    assert first.returncode == 0, first.stderr[-3000:]
    lines, trace_notes, span_notes = _state(phoenix, traces, out)
    assert sorted(line["id"] for line in lines) == traces
    assert sorted(line["hallucinated"] for line in lines) == [False, True]  # the example's clean and paper answers

    # one trace annotation per record, with the audit file's verdict
    assert sorted(a["trace_id"] for a in trace_notes) == traces
    labels = {a["trace_id"]: a["result"]["label"] for a in trace_notes}
    assert labels == {line["id"]: LABELS[line["hallucinated"]] for line in lines}
    flagged = sum(c["label"] != "entailed" for line in lines for c in line["claims"])
    assert flagged >= 1 and len(span_notes) == flagged

    # a second run updates: no count changes
    again = _audit(phoenix, tmp_path / "again.jsonl")
    assert again.returncode == 0, again.stderr[-3000:]
    _, trace_notes2, span_notes2 = _state(phoenix, traces, out)
    assert len(trace_notes2) == len(trace_notes) and len(span_notes2) == len(span_notes)
    assert {a["trace_id"]: a["result"]["label"] for a in trace_notes2} == labels

    # a run cut short (its output one line and a torn one), resumed: the same output and the same counts
    text = out.read_text(encoding="utf-8")
    first_line = text.splitlines(keepends=True)[0]
    out.write_text(first_line + text[len(first_line):][:40], encoding="utf-8")
    resumed = _audit(phoenix, out, "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    lines3, trace_notes3, span_notes3 = _state(phoenix, traces, out)
    assert [(line["id"], line["label"]) for line in lines3] == [(line["id"], line["label"]) for line in lines]
    assert len(trace_notes3) == len(trace_notes) and len(span_notes3) == len(span_notes)
