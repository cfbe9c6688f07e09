"""``rt4chart audit --from mlflow`` against a scripted MLflow REST server on loopback (no MLflow package needed): the
experiment's traces searched page by page, their spans read with batchGet (and from the traces.json artifact for a
trace whose spans the store does not hold), one record per trace; ``--write-back`` creates one ``rt4chart`` feedback
per trace and one ``rt4chart-claim-N`` per flagged claim on the answer's span, and a rerun updates them (still one
each); a dead or wrong server is exit 2; a failing write-back leaves the output complete and says so. The same
against a real ``mlflow server``: test_mlflow_live.py (opt-in)."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from click.testing import CliRunner

from rt4chart import ConfigError
from rt4chart.cli import main
from rt4chart.errors import MlflowError
from rt4chart.integrations.mlflow import MlflowTraces, answer_spans, trace_record, trace_rows

EXPERIMENT, EXPERIMENT_ID = "rag-demo", "7"
NO_RETRIEVAL = "tr-" + "d" * 32


def _b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def _any(value) -> dict:
    """A Python value as OTLP ``AnyValue`` JSON with snake_case names, as batchGet writes span attributes."""
    if isinstance(value, str):
        return {"string_value": value}
    if isinstance(value, bool):
        return {"bool_value": value}
    if isinstance(value, int):
        return {"int_value": value}
    if isinstance(value, list):
        return {"array_value": {"values": [_any(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlist_value": {"values": [{"key": k, "value": _any(v)} for k, v in value.items()]}}
    return {}


def _span(trace_hex: str, span_hex: str, parent, name: str, kind: str, start: int, inputs, outputs, otlp: bool) -> dict:
    attributes = {"mlflow.spanType": kind, "mlflow.spanInputs": inputs}
    if outputs is not None:
        attributes["mlflow.spanOutputs"] = outputs
    span = {"trace_id": _b64(trace_hex), "span_id": _b64(span_hex), "parent_span_id": _b64(parent) if parent else None,
            "name": name, "start_time_unix_nano": start * 10**9, "end_time_unix_nano": start * 10**9 + 5,
            "status": {"code": "STATUS_CODE_OK"}}
    if otlp:  # batchGet: a list of key/value pairs, OTLP values
        span["attributes"] = [{"key": k, "value": _any(v)} for k, v in attributes.items()]
    else:  # Span.to_dict() (the traces.json artifact): values JSON-encoded
        span["attributes"] = {k: json.dumps(v) for k, v in attributes.items()}
    return span


def _trace(n: int, rec: dict | None, *, answer_from: str = "root", retrieve: bool = True, otlp: bool = True) -> dict:
    """Trace ``n``: a root span (CHAIN) with the question, a RETRIEVER span returning the passages as Documents and
    a CHAT_MODEL span with a chat completion; the answer is the root's output (``answer_from`` "root") or only the
    chat model's ("llm")."""
    trace_hex = f"{n:x}" * 32
    root, retriever, llm = (f"{n:x}{i}".rjust(16, "0") for i in (1, 2, 3))
    question = rec["question"] if rec else "hello"
    answer = rec["answer"] if rec else "no retrieval here"
    start = 1_800_000_000 + 100 * n
    spans = [_span(trace_hex, root, None, "answer", "CHAIN", start, {"question": question},
                   answer if answer_from == "root" else None, otlp)]
    if retrieve:
        spans.append(_span(trace_hex, retriever, root, "retrieve", "RETRIEVER", start + 1, {"query": question},
                           [{"page_content": p, "metadata": {"doc_uri": f"doc-{i}"}, "id": None}
                            for i, p in enumerate(rec["context"])], otlp))
    spans.append(_span(trace_hex, llm, root, "generate", "CHAT_MODEL", start + 2, {"messages": [
        {"role": "user", "content": question}]}, {"choices": [{"message": {"role": "assistant", "content": answer}}]},
        otlp))
    trace_id = "tr-" + trace_hex
    info = {"trace_id": trace_id, "request_time": f"2027-01-15T08:{n:02d}:00.000Z", "state": "OK",
            "trace_location": {"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": {"experiment_id": EXPERIMENT_ID}},
            "tags": {"mlflow.trace.spansLocation": "TRACKING_STORE" if otlp else "ARTIFACT_REPO"},
            "timestamp_ms": start * 1000}
    return {"info": info, "spans": spans}


@pytest.fixture(scope="module")
def experiment_traces(mlflow_records) -> list[dict]:
    faithful, revenue, flash = mlflow_records
    return [_trace(1, faithful), _trace(2, revenue, answer_from="llm"), _trace(3, flash, otlp=False),
            _trace(0xd, None, retrieve=False)]


class FakeMlflow:
    """MLflow 3's REST API as far as rt4chart uses it: experiment ``rag-demo``; trace search newest first, in pages
    of ``max_results`` with an offset as the page token, with ``trace.timestamp_ms >= T``; batchGet (OTLP spans) and
    the traces.json artifact; batchGetInfos with each trace's assessments; assessments created (with a fresh id),
    updated (PATCH, metadata merged as MLflow merges it) and deleted. ``fail_assessments``: answer assessment writes
    with a 500."""

    def __init__(self, traces: list[dict]) -> None:
        self.traces = {t["info"]["trace_id"]: t for t in traces}
        self.requests: list[tuple[str, str, dict]] = []
        self.assessments: dict[str, dict] = {}  # by assessment id
        self.fail_assessments = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> dict:
                length = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(length)) if length else {}

            def do_GET(self):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                fake.requests.append(("GET", url.path, query))
                if url.path == "/api/2.0/mlflow/experiments/get-by-name":
                    if query.get("experiment_name") != [EXPERIMENT]:
                        return self._send(404, {"error_code": "RESOURCE_DOES_NOT_EXIST", "message":
                                                f"Could not find experiment with name '{query['experiment_name'][0]}'"})
                    return self._send(200, {"experiment": {"experiment_id": EXPERIMENT_ID, "name": EXPERIMENT}})
                if url.path == "/api/3.0/mlflow/traces/batchGet":
                    found = [fake.traces[t] for t in query["trace_ids"] if t in fake.traces]
                    return self._send(200, {"traces": [{"trace_info": fake.info(t["info"]["trace_id"]),
                                                        "spans": t["spans"]} for t in found]})
                if url.path == "/ajax-api/2.0/mlflow/get-trace-artifact":
                    return self._send(200, {"spans": fake.traces[query["request_id"][0]]["spans"]})
                self._send(404, {"error_code": "ENDPOINT_NOT_FOUND", "message": "no such endpoint"})

            def do_POST(self):
                url = urlparse(self.path)
                body = self._body()
                fake.requests.append(("POST", url.path, body))
                if url.path == "/api/3.0/mlflow/traces/search":
                    assert body["locations"] == [{"type": "MLFLOW_EXPERIMENT",
                                                  "mlflow_experiment": {"experiment_id": EXPERIMENT_ID}}]
                    assert body["order_by"] == ["timestamp_ms DESC"]
                    since = int(body["filter"].split(">=")[1]) if body.get("filter") else 0
                    infos = sorted((fake.info(t) for t in fake.traces), key=lambda i: -i["timestamp_ms"])
                    infos = [i for i in infos if i["timestamp_ms"] >= since]
                    start, size = int(body.get("page_token") or 0), int(body["max_results"])
                    more = start + size < len(infos)
                    return self._send(200, {"traces": infos[start:start + size],
                                            **({"next_page_token": str(start + size)} if more else {})})
                if url.path == "/api/3.0/mlflow/traces/batchGetInfos":
                    return self._send(200, {"trace_infos": [fake.info(t) for t in body["trace_ids"]]})
                if url.path.endswith("/assessments"):
                    if fake.fail_assessments:
                        return self._send(500, {"error_code": "INTERNAL_ERROR", "message": "database is locked"})
                    trace_id = url.path.split("/")[-2]
                    assessment = {**body["assessment"], "assessment_id": f"a-{len(fake.requests)}", "valid": True}
                    assert assessment["trace_id"] == trace_id
                    fake.assessments[assessment["assessment_id"]] = assessment
                    return self._send(200, {"assessment": assessment})
                self._send(404, {"error_code": "ENDPOINT_NOT_FOUND", "message": "no such endpoint"})

            def do_PATCH(self):
                url = urlparse(self.path)
                body = self._body()
                fake.requests.append(("PATCH", url.path, body))
                if fake.fail_assessments:
                    return self._send(500, {"error_code": "INTERNAL_ERROR", "message": "database is locked"})
                old = fake.assessments[url.path.split("/")[-1]]
                assert body["update_mask"] == "feedback,rationale,metadata"
                new = body["assessment"]
                old.update(feedback=new["feedback"], rationale=new["rationale"],
                           metadata={**old.get("metadata", {}), **new["metadata"]})
                self._send(200, {"assessment": old})

            def do_DELETE(self):
                url = urlparse(self.path)
                fake.requests.append(("DELETE", url.path, {}))
                del fake.assessments[url.path.split("/")[-1]]
                self._send(200, {})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def info(self, trace_id: str) -> dict:
        return {**self.traces[trace_id]["info"],
                "assessments": [a for a in self.assessments.values() if a["trace_id"] == trace_id]}

    def of(self, trace_id: str, *, span: bool) -> list[dict]:
        return [a for a in self.assessments.values() if a["trace_id"] == trace_id and ("span_id" in a) == span]


@pytest.fixture
def mlflow_server(experiment_traces):
    fake = FakeMlflow(experiment_traces)
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def _audit(server: FakeMlflow, out, *extra: str):
    return CliRunner().invoke(main, ["audit", "--from", "mlflow", server.url, "--experiment", EXPERIMENT, "-o",
                                     str(out), "--judge", "local", "-q", *extra])


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _ids(traces: list[dict]) -> list[str]:
    return [t["info"]["trace_id"] for t in traces]


def test_traces_are_read_page_by_page(mlflow_server, experiment_traces, mlflow_records):
    with MlflowTraces(mlflow_server.url) as client:
        traces = client.traces(EXPERIMENT, page_size=3, since="2027-01-01")
    searches = [body for method, path, body in mlflow_server.requests if path.endswith("/traces/search")]
    assert [s.get("page_token") for s in searches] == [None, "3"]
    assert {s["filter"] for s in searches} == {"trace.timestamp_ms >= 1798761600000"}  # 2027-01-01 UTC
    assert _ids(traces) == _ids(experiment_traces)  # oldest first
    artifact = [q for method, path, q in mlflow_server.requests if path.endswith("get-trace-artifact")]
    assert artifact == [{"request_id": [_ids(experiment_traces)[2]]}]  # the trace whose spans the store lacks

    rows = list(trace_rows(traces))
    records = [r.data for r in rows if r.data]
    assert [r["id"] for r in records] == _ids(experiment_traces)[:3]
    for got, want in zip(records, mlflow_records):
        assert (got["context"], got["question"], got["answer"]) == (want["context"], want["question"], want["answer"])
    assert [(r.error.record, r.error.field) for r in rows if r.error] == [(NO_RETRIEVAL, "context")]
    # the answer's span: the root where it holds the answer, else the chat model's
    assert answer_spans(traces) == {_ids(traces)[0]: "0000000000000011", _ids(traces)[1]: "0000000000000023",
                                    _ids(traces)[2]: "0000000000000031", NO_RETRIEVAL: "00000000000000d1"}


def test_max_traces_and_since(mlflow_server, experiment_traces):
    with MlflowTraces(mlflow_server.url) as client:
        newest = client.traces(EXPERIMENT, max_traces=2, page_size=1)
        assert _ids(newest) == [_ids(experiment_traces)[2], NO_RETRIEVAL]  # the two newest, oldest first
        assert client.traces(EXPERIMENT, since="2030-01-01") == []
        with pytest.raises(ConfigError, match="ISO 8601"):
            client.traces(EXPERIMENT, since="yesterday")


def test_a_trace_without_an_answer_is_an_error_naming_it(mlflow_records):
    trace = _trace(4, mlflow_records[0], answer_from="llm")
    trace["spans"] = trace["spans"][:2]  # no chat model span, and the root has no output
    error = trace_record(trace)
    assert error.field == "answer" and error.record == "tr-" + "4" * 32 and "no answer" in str(error)


def test_audit_and_write_back(mlflow_server, experiment_traces, mlflow_records, tmp_path):
    out = tmp_path / "out.jsonl"
    res = _audit(mlflow_server, out, "--write-back")
    assert res.exit_code == 1, res.output  # the trace without retrieval is an error line
    lines = _lines(out)
    ids = _ids(experiment_traces)
    assert [line["id"] for line in lines] == [*ids[:3], None]
    assert [line.get("hallucinated") for line in lines] == [r["hallucinated"] for r in mlflow_records] + [None]
    assert lines[3]["error"]["field"] == "context" and NO_RETRIEVAL in lines[3]["error"]["message"]

    values = {}
    for line in lines[:3]:
        [feedback] = mlflow_server.of(line["id"], span=False)  # exactly one trace assessment each
        assert feedback["assessment_name"] == "rt4chart"
        assert feedback["source"] == {"source_type": "CODE", "source_id": "rt4chart"}
        values[line["id"]] = feedback["feedback"]["value"]
        flagged = [c for c in line["claims"] if c["label"] != "entailed"]
        assert feedback["metadata"]["answer_label"] == line["label"] and feedback["metadata"]["judge"] == "local"
        assert feedback["metadata"]["flagged"] == str(len(flagged))
        assert feedback["metadata"]["claims"] == str(len(line["claims"]))
        for claim in flagged:
            assert f"claim {claim['index'] + 1} ({claim['label']}): {claim['text']}" in feedback["rationale"]
        claims = mlflow_server.of(line["id"], span=True)  # one per flagged claim, on the answer's span
        assert sorted(a["assessment_name"] for a in claims) == sorted(f"rt4chart-claim-{c['index'] + 1}"
                                                                      for c in flagged)
        assert sorted(a["feedback"]["value"] for a in claims) == sorted(c["label"] for c in flagged)
    assert values == {ids[0]: "supported", ids[1]: "hallucinated", ids[2]: "hallucinated"}
    assert {a["span_id"] for a in mlflow_server.of(ids[1], span=True)} == {"0000000000000023"}
    assert not mlflow_server.of(NO_RETRIEVAL, span=False)  # error lines get no assessment


def test_a_rerun_updates_and_leaves_one_each(mlflow_server, experiment_traces, tmp_path):
    _audit(mlflow_server, tmp_path / "one.jsonl", "--write-back")
    first = {k: dict(v) for k, v in mlflow_server.assessments.items()}
    res = _audit(mlflow_server, tmp_path / "one.jsonl", "--write-back", "--resume")  # nothing left to audit
    assert res.exit_code == 1, res.output
    _audit(mlflow_server, tmp_path / "two.jsonl", "--write-back")  # audited again from scratch
    assert mlflow_server.assessments.keys() == first.keys()  # the same assessments, updated in place
    patches = [path for method, path, _ in mlflow_server.requests if method == "PATCH"]
    assert len(patches) == 2 * len(first)

    # a stale claim assessment (a claim no longer flagged) and a second copy of the trace's are deleted
    trace_id = _ids(experiment_traces)[0]
    mlflow_server.assessments["a-stale"] = {"assessment_id": "a-stale", "assessment_name": "rt4chart-claim-9",
                                            "trace_id": trace_id, "span_id": "0000000000000011",
                                            "source": {"source_type": "CODE", "source_id": "rt4chart"}}
    [feedback] = mlflow_server.of(trace_id, span=False)
    mlflow_server.assessments["a-copy"] = {**feedback, "assessment_id": "a-copy"}
    mlflow_server.assessments["a-human"] = {**feedback, "assessment_id": "a-human",
                                            "source": {"source_type": "HUMAN", "source_id": "ann"}}
    _audit(mlflow_server, tmp_path / "three.jsonl", "--write-back")
    assert mlflow_server.assessments.keys() == {*first.keys(), "a-human"}  # someone else's is left alone


def test_without_write_back_nothing_is_written(mlflow_server, tmp_path):
    res = _audit(mlflow_server, tmp_path / "out.jsonl")
    assert res.exit_code == 1, res.output
    assert {method for method, path, _ in mlflow_server.requests} <= {"GET", "POST"}
    assert not any(path.endswith(("/assessments", "batchGetInfos")) for _, path, _ in mlflow_server.requests)
    assert not mlflow_server.assessments


def test_write_back_failure_leaves_the_output_complete(mlflow_server, experiment_traces, tmp_path):
    mlflow_server.fail_assessments = True
    out = tmp_path / "out.jsonl"
    res = _audit(mlflow_server, out, "--write-back")
    assert res.exit_code == 2
    assert "500" in res.output and "database is locked" in res.output and f"{out} are complete" in res.output
    assert [line["id"] for line in _lines(out)] == [*_ids(experiment_traces)[:3], None]
    mlflow_server.fail_assessments = False  # the server is back: --resume writes them without auditing again
    res = _audit(mlflow_server, out, "--write-back", "--resume")
    assert res.exit_code == 1
    assert all(len(mlflow_server.of(t, span=False)) == 1 for t in _ids(experiment_traces)[:3])


def test_dead_server_is_exit_2(tmp_path):
    dead = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = dead.server_address[1]
    dead.server_close()  # a port nothing listens on
    res = CliRunner().invoke(main, ["audit", "--from", "mlflow", f"http://127.0.0.1:{port}", "--experiment", "x",
                                    "-o", str(tmp_path / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "cannot reach MLflow" in res.output
    assert not (tmp_path / "out.jsonl").exists()


def test_wrong_experiment_or_server_is_exit_2(mlflow_server, tmp_path):
    res = CliRunner().invoke(main, ["audit", "--from", "mlflow", mlflow_server.url, "--experiment", "nope", "-o",
                                    str(tmp_path / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "404" in res.output and "Could not find experiment" in res.output

    def not_mlflow(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>hello</html>")

    with MlflowTraces("http://elsewhere.test", transport=httpx.MockTransport(not_mlflow)) as client:
        with pytest.raises(MlflowError, match="is it an MLflow tracking server"):
            client.traces(EXPERIMENT)


def test_credentials_from_the_environment(monkeypatch):
    seen = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(401, json={"error_code": "UNAUTHENTICATED"})

    with MlflowTraces("http://mlflow.test", token="t0k", transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(MlflowError, match="MLFLOW_TRACKING_TOKEN"):
            client.traces(EXPERIMENT)
    assert seen == ["Bearer t0k"]


def test_a_local_store_without_mlflow_names_the_extra(tmp_path):
    try:
        import mlflow  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("mlflow is installed here: the missing-extra message cannot show")
    res = CliRunner().invoke(main, ["audit", "--from", "mlflow", f"sqlite:///{tmp_path}/mlflow.db", "--experiment",
                                    "x", "-o", str(tmp_path / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "pip install 'rt4chart[mlflow]'" in res.output, res.output


@pytest.mark.parametrize("args, message", [
    (["--from", "mlflow", "http://127.0.0.1:9"], "needs --experiment"),
    (["--from", "mlflow", "http://127.0.0.1:9", "--experiment", "e", "--write-back"], "--write-back needs -o"),
    (["x.jsonl", "--experiment", "e"], "--experiment work with --from mlflow only"),
    (["--from", "phoenix", "http://127.0.0.1:9", "--project", "p", "--max-traces", "3"],
     "--max-traces work with --from mlflow only"),
    (["--from", "mlflow", "http://127.0.0.1:9", "--experiment", "e", "--project", "p"],
     "--project work with --from phoenix only"),
])
def test_option_errors(args, message):
    res = CliRunner().invoke(main, ["audit", *args, "-q"])
    assert res.exit_code == 2 and message in res.output, res.output
