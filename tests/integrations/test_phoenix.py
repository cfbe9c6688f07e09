"""``rt4chart audit --from phoenix`` against a scripted Phoenix REST server on loopback: the project's spans read
page by page, one record per trace; ``--write-back`` posts one trace annotation per result and one span annotation
per flagged claim, with fixed identifiers (the server keys them as Phoenix does, so a second run updates); a dead or
wrong server is exit 2; a failing write-back leaves the output complete and says so. The same against a real
``phoenix serve``: test_phoenix_live.py (opt-in)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from click.testing import CliRunner

from rt4chart import ConfigError
from rt4chart.cli import main
from rt4chart.integrations.phoenix import PhoenixClient, PhoenixError
from rt4chart.io.traces import answer_spans, span_rows

CLEAN, HALLUCINATED, NO_RETRIEVAL = "a" * 32, "b" * 32, "c" * 32


def _span(trace: str, span: str, parent, kind: str, start: int, attributes: dict) -> dict:
    """A span as Phoenix's REST API gives it (``GET /v1/projects/{p}/spans``): ids in ``context``, the kind in
    ``span_kind`` (not among the attributes), attributes flat with list positions in their keys."""
    return {"id": f"U3Bhbjo{span}", "name": kind.lower(), "context": {"trace_id": trace, "span_id": span},
            "span_kind": kind, "parent_id": parent, "start_time": f"2026-01-01T00:00:{start:02d}+00:00",
            "end_time": f"2026-01-01T00:00:{start + 1:02d}+00:00", "status_code": "OK", "status_message": "",
            "attributes": attributes, "events": []}


def _trace(trace: str, n: int, question: str, passages: list[str], answer: str, retrieve: bool = True) -> list[dict]:
    root, retriever, llm = f"{n}1".rjust(16, "0"), f"{n}2".rjust(16, "0"), f"{n}3".rjust(16, "0")
    spans = [_span(trace, root, None, "CHAIN", 10 * n + 1, {"input.value": question})]
    if retrieve:
        spans.append(_span(trace, retriever, root, "RETRIEVER", 10 * n + 2, {
            f"retrieval.documents.{i}.document.content": p for i, p in enumerate(passages)}))
    spans.append(_span(trace, llm, root, "LLM", 10 * n + 3, {"llm.output_messages.0.message.role": "assistant",
                                                             "llm.output_messages.0.message.content": answer}))
    return spans


@pytest.fixture(scope="module")
def project_spans(paper, passages, clean_answer) -> list[dict]:
    return [*_trace(CLEAN, 1, paper["question"], passages, clean_answer),
            *_trace(HALLUCINATED, 2, paper["question"], passages, paper["answer"]),
            *_trace(NO_RETRIEVAL, 3, "hello", [], "no retrieval here", retrieve=False)]


class FakePhoenix:
    """Phoenix's REST API as far as rt4chart uses it: spans of project ``demo`` in pages of ``limit`` (newest first,
    as Phoenix gives them), and annotations stored by (name, trace or span id, identifier), ``sync=true``
    answering one id per annotation. ``fail_annotations``: answer annotation posts with a 500."""

    def __init__(self, spans: list[dict]) -> None:
        self.spans = list(reversed(spans))
        self.requests: list[tuple[str, str, dict]] = []
        self.annotations: dict[tuple, dict] = {}
        self.fail_annotations = False
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

            def do_GET(self):
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                fake.requests.append(("GET", url.path, query))
                if url.path != "/v1/projects/demo/spans":
                    return self._send(404, {"detail": "Project not found"})
                start, limit = int(query.get("cursor", 0)), int(query["limit"])
                page = fake.spans[start:start + limit]
                more = start + limit < len(fake.spans)
                self._send(200, {"data": page, "next_cursor": str(start + limit) if more else None})

            def do_POST(self):
                url = urlparse(self.path)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(("POST", url.path, {**parse_qs(url.query), "body": body}))
                if fake.fail_annotations:
                    return self._send(500, {"detail": "database is locked"})
                target = "trace_id" if url.path == "/v1/trace_annotations" else "span_id"
                for item in body["data"]:
                    fake.annotations[(target, item["name"], item[target], item.get("identifier", ""))] = item
                self._send(200, {"data": [{"id": str(i)} for i, _ in enumerate(body["data"])]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def trace_annotations(self) -> dict[str, dict]:
        return {key[2]: item for key, item in self.annotations.items() if key[0] == "trace_id"}

    def span_annotations(self) -> list[dict]:
        return [item for key, item in self.annotations.items() if key[0] == "span_id"]


@pytest.fixture
def phoenix(project_spans):
    fake = FakePhoenix(project_spans)
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def _audit(phoenix: FakePhoenix, out, *extra: str):
    return CliRunner().invoke(main, ["audit", "--from", "phoenix", phoenix.url, "--project", "demo", "-o", str(out),
                                     "--judge", "local", "-q", *extra])


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_spans_are_read_page_by_page(phoenix, project_spans):
    with PhoenixClient(phoenix.url) as client:
        spans = client.spans("demo", page_size=3, since="2026-01-01")
    gets = [query for method, _, query in phoenix.requests if method == "GET"]
    assert [q.get("cursor") for q in gets] == [None, "3", "6"]
    assert {q["limit"] for q in gets} == {"3"} and {q["start_time"] for q in gets} == {"2026-01-01T00:00:00"}
    assert sorted(s["id"] for s in spans) == sorted(s["id"] for s in project_spans)
    rows = list(span_rows(spans))
    assert [r.data["id"] for r in rows if r.data] == [CLEAN, HALLUCINATED]
    assert [r.error.field for r in rows if r.error] == ["context"]
    assert answer_spans(spans) == {CLEAN: "0000000000000013", HALLUCINATED: "0000000000000023",
                                   NO_RETRIEVAL: "0000000000000033"}


def test_since_must_be_a_time(phoenix):
    with PhoenixClient(phoenix.url) as client, pytest.raises(ConfigError, match="ISO 8601"):
        client.spans("demo", since="yesterday")


def test_api_key_is_a_bearer_token():
    seen = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(401, json={"detail": "unauthorized"})

    with PhoenixClient("http://phoenix.test", api_key="k3y", transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(PhoenixError, match="PHOENIX_API_KEY"):
            client.spans("demo")
    assert seen == ["Bearer k3y"]


def test_audit_and_write_back(phoenix, tmp_path):
    out = tmp_path / "out.jsonl"
    res = _audit(phoenix, out, "--write-back")
    assert res.exit_code == 1, res.output  # the trace without retrieval is an error line
    lines = _lines(out)
    assert [line["id"] for line in lines] == [CLEAN, HALLUCINATED, None]
    assert [line.get("hallucinated") for line in lines] == [False, True, None]
    assert lines[2]["error"]["field"] == "context"  # the trace without retrieval

    traces = phoenix.trace_annotations()
    assert sorted(traces) == [CLEAN, HALLUCINATED]  # one per result; none for the error line
    clean, bad = traces[CLEAN], traces[HALLUCINATED]
    assert clean["result"]["label"] == "supported" and bad["result"]["label"] == "hallucinated"
    assert clean["name"] == "rt4chart" and clean["annotator_kind"] == "CODE" and clean["identifier"] == "rt4chart"
    assert clean["result"]["score"] == 0.0 and 0.0 < bad["result"]["score"] <= 1.0
    flagged = [c for c in lines[1]["claims"] if c["label"] != "entailed"]
    assert flagged and bad["metadata"]["flagged"] == len(flagged)
    for claim in flagged:
        assert f"claim {claim['index'] + 1} ({claim['label']}): {claim['text']}" in bad["result"]["explanation"]

    spans = phoenix.span_annotations()  # one per flagged claim, on the LLM span of the hallucinated trace
    assert len(spans) == len(flagged)
    assert {s["span_id"] for s in spans} == {"0000000000000023"}
    assert sorted(s["identifier"] for s in spans) == sorted(f"rt4chart-claim-{c['index'] + 1}" for c in flagged)
    assert sorted(s["result"]["label"] for s in spans) == sorted(c["label"] for c in flagged)
    posts = [query for method, _, query in phoenix.requests if method == "POST"]
    assert all(q["sync"] == ["true"] for q in posts)


def test_a_second_run_updates_rather_than_duplicates(phoenix, tmp_path):
    _audit(phoenix, tmp_path / "one.jsonl", "--write-back")
    first = dict(phoenix.annotations)
    res = _audit(phoenix, tmp_path / "one.jsonl", "--write-back", "--resume")  # nothing left to audit
    assert res.exit_code == 1, res.output  # the error line of the earlier run
    _audit(phoenix, tmp_path / "two.jsonl", "--write-back")  # audited again from scratch
    assert phoenix.annotations.keys() == first.keys()
    posted = [len(q["body"]["data"]) for method, _, q in phoenix.requests if method == "POST"]
    assert sum(posted) == 3 * len(first)  # each run wrote every annotation once, with the same keys


def test_without_write_back_nothing_is_posted(phoenix, tmp_path):
    res = _audit(phoenix, tmp_path / "out.jsonl")
    assert res.exit_code == 1, res.output
    assert all(method == "GET" for method, _, _ in phoenix.requests) and not phoenix.annotations


def test_write_back_failure_leaves_the_output_complete(phoenix, tmp_path):
    phoenix.fail_annotations = True
    out = tmp_path / "out.jsonl"
    res = _audit(phoenix, out, "--write-back")
    assert res.exit_code == 2
    assert "500" in res.output and f"{out} are complete" in res.output
    assert [line["id"] for line in _lines(out)] == [CLEAN, HALLUCINATED, None]
    phoenix.fail_annotations = False  # the server is back: --resume writes them without auditing again
    res = _audit(phoenix, out, "--write-back", "--resume")
    assert res.exit_code == 1 and sorted(phoenix.trace_annotations()) == [CLEAN, HALLUCINATED]


def test_dead_server_is_exit_2(tmp_path):
    dead = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = dead.server_address[1]
    dead.server_close()  # a port nothing listens on
    res = CliRunner().invoke(main, ["audit", "--from", "phoenix", f"http://127.0.0.1:{port}", "--project", "demo",
                                    "-o", str(tmp_path / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "cannot reach Phoenix" in res.output
    assert not (tmp_path / "out.jsonl").exists()


def test_wrong_server_or_project_is_exit_2(phoenix, tmp_path):
    res = CliRunner().invoke(main, ["audit", "--from", "phoenix", phoenix.url, "--project", "nope", "-o",
                                    str(tmp_path / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "404" in res.output and "Project not found" in res.output

    def not_phoenix(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>hello</html>")

    with PhoenixClient("http://elsewhere.test", transport=httpx.MockTransport(not_phoenix)) as client:
        with pytest.raises(PhoenixError, match="is it a Phoenix server"):
            client.spans("demo")


@pytest.mark.parametrize("args, message", [
    (["--from", "phoenix", "http://127.0.0.1:9"], "needs --project"),
    (["--from", "phoenix", "http://127.0.0.1:9", "--project", "p", "--write-back"], "--write-back needs -o"),
    (["x.jsonl", "--project", "p"], "--project work with --from phoenix only"),
    (["--from", "phoenix", "127.0.0.1:9", "--project", "p"], "not a Phoenix URL"),
])
def test_option_errors(args, message):
    res = CliRunner().invoke(main, ["audit", *args, "-q"])
    assert res.exit_code == 2 and message in res.output, res.output
