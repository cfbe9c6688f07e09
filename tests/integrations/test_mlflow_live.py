"""``rt4chart audit --from mlflow --write-back`` and ``Groundedness`` against a real ``mlflow server`` on loopback
(opt-in: ``RT4CHART_MLFLOW=1`` and ``mlflow`` importable; ``scripts/check_mlflow.sh`` makes a venv and runs this
file).

The three answers of examples/integrations/mlflow_records.jsonl (conftest's ``MLFLOW_RECORDS``: one faithful, two
with a contradicted claim) are logged as traces with MLflow's own tracing SDK by scripts/mlflow_traces.py
(``@mlflow.trace``, a RETRIEVER span returning ``Document``s, a CHAT_MODEL span), in a child process; the audit
reads them back over REST and writes its assessments. Then, over REST: one ``rt4chart`` feedback per trace with the
expected value and one ``rt4chart-claim-N`` per flagged claim; a second run over REST and a third through MLflow's
client on the sqlite store leave one of each (the same assessments, updated); ``mlflow.genai.evaluate`` with
``Groundedness()`` on the same traces gives the same verdicts.

The server's log is kept where ``RT4CHART_MLFLOW_LOG`` says, when it is set (docs/results/mlflow.md quotes it)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from live_helpers import stop_group, wait_until

from rt4chart.llm.managed import free_port

if os.environ.get("RT4CHART_MLFLOW") != "1" or importlib.util.find_spec("mlflow") is None:
    pytest.skip("the live MLflow check is opt-in: scripts/check_mlflow.sh (RT4CHART_MLFLOW=1, mlflow importable)",
                allow_module_level=True)

httpx = pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = "rt4chart-live"
VALUES = {True: "hallucinated", False: "supported", None: "needs review"}
# the children (trace logging, the audit, evaluate): this checkout's src first on their path, no telemetry
CHILD_ENV = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true",
             "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}

TRACES = ROOT / "scripts" / "mlflow_traces.py"
RECORDS = ROOT / "examples" / "integrations" / "mlflow_records.jsonl"

EVALUATE = """
import json, sys
import mlflow
from rt4chart.integrations.mlflow import Groundedness

experiment = mlflow.set_experiment(sys.argv[1])
traces = mlflow.search_traces(locations=[experiment.experiment_id])
result = mlflow.genai.evaluate(data=traces, scorers=[Groundedness()])
rows = result.result_df
print(json.dumps(dict(zip(rows["trace_id"], rows["rt4chart_groundedness/value"]))))
"""


def _wait(check, what: str, seconds: float = 180.0):
    return wait_until(check, what, seconds, 0.5)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """An ``mlflow server`` of its own: loopback, a random port, a sqlite store and artifacts in a fresh folder, no
    telemetry; always stopped. Yields (url, sqlite URI)."""
    work = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    store = f"sqlite:///{work / 'mlflow.db'}"
    log_path = work / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([sys.executable, "-m", "mlflow", "server", "--backend-store-uri", store,
                             "--default-artifact-root", str(work / "artifacts"), "--host", "127.0.0.1", "--port",
                             str(port), "--workers", "1"], env=CHILD_ENV, stdout=log, stderr=subprocess.STDOUT,
                            cwd=work, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: proc.poll() is not None or httpx.get(f"{url}/health", timeout=2).status_code == 200,
              "mlflow server to answer")
        assert proc.poll() is None, log_path.read_text(errors="replace")[-3000:]
        yield url, store
    finally:
        stop_group(proc)
        log.close()
        if os.environ.get("RT4CHART_MLFLOW_LOG"):
            shutil.copy(log_path, os.environ["RT4CHART_MLFLOW_LOG"])


@pytest.fixture(scope="module")
def traces(server, mlflow_records) -> dict[str, dict]:
    """The three records logged as traces by MLflow's SDK; the record of each trace id."""
    url, _ = server
    done = subprocess.run([sys.executable, str(TRACES), str(RECORDS), EXPERIMENT],
                          capture_output=True, text=True, timeout=300, env={**CHILD_ENV, "MLFLOW_TRACKING_URI": url})
    assert done.returncode == 0, done.stderr[-3000:]
    ids = json.loads(done.stdout.strip().splitlines()[-1])
    by_id = {r["id"]: r for r in mlflow_records}
    return {trace_id: by_id[record_id] for trace_id, record_id in ids.items()}


def _audit(uri: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rt4chart.cli", "audit", "--from", "mlflow", uri, "--experiment",
                           EXPERIMENT, "-o", str(out), "--write-back", "--judge", "local", *extra],
                          capture_output=True, text=True, timeout=600, env=CHILD_ENV)


def _assessments(url: str, trace_ids: list[str]) -> dict[str, list[dict]]:
    got = httpx.post(f"{url}/api/3.0/mlflow/traces/batchGetInfos", json={"trace_ids": trace_ids}, timeout=30)
    assert got.status_code == 200, got.text
    return {info["trace_id"]: [a for a in info.get("assessments", []) if a["assessment_name"].startswith("rt4chart")
                               and a["source"]["source_id"] == "rt4chart"]
            for info in got.json()["trace_infos"]}


def _check(url: str, traces: dict[str, dict], out: Path) -> dict[str, set[str]]:
    """One ``rt4chart`` feedback per trace with the record's value, one claim feedback per flagged claim on the
    span the answer came from (the root span); the ids of each trace's rt4chart assessments."""
    lines = {line["id"]: line for line in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert sorted(lines) == sorted(traces)
    ids = {}
    for trace_id, notes in _assessments(url, sorted(traces)).items():
        [feedback] = [a for a in notes if a["assessment_name"] == "rt4chart"]
        assert "span_id" not in feedback and feedback["source"]["source_type"] == "CODE"
        assert feedback["feedback"]["value"] == VALUES[traces[trace_id]["hallucinated"]], (trace_id, feedback)
        assert feedback["feedback"]["value"] == VALUES[lines[trace_id]["hallucinated"]]
        flagged = sorted(f"rt4chart-claim-{c['index'] + 1}" for c in lines[trace_id]["claims"]
                         if c["label"] != "entailed")
        claims = [a for a in notes if a["assessment_name"].startswith("rt4chart-claim-")]
        assert sorted(a["assessment_name"] for a in claims) == flagged
        assert len({a["span_id"] for a in claims}) <= 1
        ids[trace_id] = {a["assessment_id"] for a in notes}
    assert sum(1 for t in traces.values() if t["hallucinated"]) == 2
    return ids


def test_audit_write_back_round_trip(server, traces, tmp_path):
    url, store = server
    first = _audit(url, tmp_path / "one.jsonl")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "wrote back to" in first.stderr and "3 trace assessments" in first.stderr
    ids = _check(url, traces, tmp_path / "one.jsonl")

    again = _audit(url, tmp_path / "two.jsonl")  # audited again from scratch: the same assessments, updated
    assert again.returncode == 0, again.stderr[-3000:]
    assert _check(url, traces, tmp_path / "two.jsonl") == ids
    assert "0 created" in again.stderr

    local = _audit(store, tmp_path / "three.jsonl")  # the sqlite store through MLflow's client, as the server's
    assert local.returncode == 0, local.stderr[-3000:]
    assert _check(url, traces, tmp_path / "three.jsonl") == ids


def test_evaluate_with_groundedness_gives_the_same_verdicts(server, traces):
    url, _ = server
    done = subprocess.run([sys.executable, "-c", EVALUATE, EXPERIMENT], capture_output=True, text=True, timeout=600,
                          env={**CHILD_ENV, "MLFLOW_TRACKING_URI": url})
    assert done.returncode == 0, done.stderr[-3000:]
    values = json.loads(done.stdout.strip().splitlines()[-1])
    assert values == {trace_id: "no" if record["hallucinated"] else "yes" for trace_id, record in traces.items()}
    # evaluate logs its feedback under the scorer's name: the audit's stays one a trace
    assert all(sum(a["assessment_name"] == "rt4chart" for a in notes) == 1
               for notes in _assessments(url, sorted(traces)).values())
