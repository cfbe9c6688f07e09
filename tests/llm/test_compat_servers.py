"""rt4chart against real OpenAI-compatible servers (issue 26), opt-in: ``python3 -m pytest -m compat``.

Each test writes a tiny llama GGUF (``tiny_gguf``: constant hidden state, fixed token ranking, so every
constrained reply is known in advance), starts a real server on loopback with it, and runs ``rt4chart audit`` on
``examples/paper_example.jsonl`` (or on one record whose context does not fit) as a subprocess:

- llama.cpp's ``llama-server`` (C++), the binary named by ``RT4CHART_LLAMA_SERVER``;
- llama-cpp-python's server (``python -m llama_cpp.server``), run by the python named by
  ``RT4CHART_LLAMA_CPP_PYTHON``.

``scripts/build_compat_servers.sh`` builds both and prints the two variables. A test whose variable is unset
skips, so the default run (no ``-m compat``) does not depend on them.

rt4chart reaches the server through ``Recorder``, a loopback pass-through that forwards every request unchanged
and keeps each request body with the server's status and reply: what the tests assert about the traffic (which
``response_format`` was sent, what came back) is what the real server answered.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

import rt4chart
from rt4chart.llm.ask import CUT_OFF, TRUNCATED
from rt4chart.llm.backend import DEFAULT_MAX_TOKENS
from tiny_gguf import CLAIMS, VERDICT, write_tiny_gguf
from rt4chart.llm.managed import free_port

pytestmark = pytest.mark.compat

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "paper_example.jsonl"
LLAMA_SERVER = "RT4CHART_LLAMA_SERVER"
LLAMA_CPP_PYTHON = "RT4CHART_LLAMA_CPP_PYTHON"
N_CTX = 4096  # the longest prompt of the paper example is about 2,400 tokens with this one-character vocabulary
RUNAWAY_CTX = 3072  # a runaway reply fills the context: a smaller one keeps the test short
START_TIMEOUT = 120.0
AUDIT_TIMEOUT = 900.0
SENTENCES = 4  # the paper example's answer has four sentences


# -- the pass-through recorder --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exchange:
    """One request as rt4chart sent it and the real server's answer."""

    body: dict[str, Any]
    status: int
    reply: Any  # the JSON body, or the text when it is not JSON

    @property
    def mode(self) -> Optional[str]:
        return (self.body.get("response_format") or {}).get("type")

    @property
    def choice(self) -> dict[str, Any]:
        return self.reply["choices"][0]

    @property
    def content(self) -> str:
        return self.choice["message"]["content"]

    @property
    def roles(self) -> list[str]:
        return [m["role"] for m in self.body["messages"]]

    @property
    def user(self) -> str:
        return self.body["messages"][-1]["content"]


class Recorder:
    """A loopback HTTP server that forwards each request to ``upstream`` unchanged and records the exchange."""

    def __init__(self, upstream_port: int) -> None:
        self.exchanges: list[Exchange] = []
        lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self, method: str) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=AUDIT_TIMEOUT)
                headers = {"Content-Type": self.headers.get("Content-Type") or "application/json"}
                conn.request(method, self.path, body=data or None, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                conn.close()
                if method == "POST":
                    try:
                        reply: Any = json.loads(payload)
                    except ValueError:
                        reply = payload.decode("utf-8", "replace")
                    with lock:
                        recorder.exchanges.append(Exchange(json.loads(data), response.status, reply))
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.getheader("Content-Type") or "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # rt4chart gave up on this request (its timeout): the exchange is recorded anyway
                    self.close_connection = True

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self._forward("POST")

            def do_GET(self) -> None:  # noqa: N802
                self._forward("GET")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- the servers ------------------------------------------------------------------------------------------------

def _get(port: int, path: str, timeout: float = 5.0) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _post(port: int, path: str, body: dict[str, Any], timeout: float = 120.0) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@dataclass
class Server:
    kind: str
    port: int
    process: subprocess.Popen
    log: Path

    def log_tail(self, n: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""


def _command(kind: str, model: Path, port: int, n_ctx: int) -> list[str]:
    if kind == "llama-server":
        binary = os.environ.get(LLAMA_SERVER)
        if not binary:
            pytest.skip(f"{LLAMA_SERVER} is not set (scripts/build_compat_servers.sh builds llama-server)")
        return [binary, "--model", str(model), "--host", "127.0.0.1", "--port", str(port), "--ctx-size", str(n_ctx),
                "--parallel", "1", "--threads", "1", "--seed", "0"]
    python = os.environ.get(LLAMA_CPP_PYTHON)
    if not python:
        pytest.skip(f"{LLAMA_CPP_PYTHON} is not set (scripts/build_compat_servers.sh builds llama-cpp-python)")
    return [python, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", str(n_ctx), "--n_threads", "1", "--model_alias", "tiny"]


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Any]:
    """``start_server(kind, runaway=False, n_ctx=N_CTX)`` writes the tiny model, starts that server on loopback with
    a context of ``n_ctx`` tokens and one slot, waits until it answers, and stops it after the test."""
    started: list[Server] = []

    def start(kind: str, *, runaway: bool = False, n_ctx: int = N_CTX) -> Server:
        model = tmp_path / f"tiny{'-runaway' if runaway else ''}.gguf"
        port = free_port()
        command = _command(kind, model, port, n_ctx)  # skips when the server's variable is unset
        pytest.importorskip("gguf", reason="the gguf package writes the test's model (pip install gguf)")
        write_tiny_gguf(model, runaway=runaway)
        log = tmp_path / f"{kind}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        server = Server(kind, port, process, log)
        started.append(server)
        ready = "/health" if kind == "llama-server" else "/v1/models"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"{kind} exited with {process.returncode}:\n{server.log_tail()}")
            try:
                if _get(port, ready)[0] == 200:
                    return server
            except OSError:
                pass
            time.sleep(0.2)
        pytest.fail(f"{kind} did not answer {ready} within {START_TIMEOUT:g} s:\n{server.log_tail()}")

    yield start
    for server in started:
        server.process.terminate()
        try:
            server.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=20)


def audit(server: Server, tmp_path: Path, *extra: str,
          records: Path = EXAMPLE) -> tuple[subprocess.CompletedProcess, list[dict], Recorder]:
    """``rt4chart audit RECORDS --judge llm`` (``examples/paper_example.jsonl`` by default) against ``server``
    (through a ``Recorder``), as a subprocess of the rt4chart this test imports."""
    recorder = Recorder(server.port)
    out = tmp_path / f"{server.kind}.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RT4CHART_", "OPENAI_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(rt4chart.__file__).resolve().parents[1]),
                                         *filter(None, [os.environ.get("PYTHONPATH")])])
    env["RT4CHART_CACHE_DIR"] = str(tmp_path / "cache")
    command = [sys.executable, "-m", "rt4chart.cli", "audit", str(records), "-o", str(out), "--judge", "llm",
               "--base-url", recorder.base_url, "--model", "tiny", "--no-cache", "-q", *extra]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=AUDIT_TIMEOUT)
    finally:
        recorder.close()
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return done, rows, recorder


def _explain(done: subprocess.CompletedProcess, server: Server) -> str:
    return f"exit {done.returncode}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}\n" \
           f"{server.kind} log:\n{server.log_tail()}"


def _check_usage(row: dict, exchanges: list[Exchange]) -> None:
    """The result's metered usage is the traffic the server saw: every request, and the tokens it reported."""
    answered = [e for e in exchanges if e.status == 200]
    assert row["usage"]["calls"] == len(exchanges)
    assert row["usage"]["prompt_tokens"] == sum(e.reply["usage"]["prompt_tokens"] for e in answered)
    assert row["usage"]["completion_tokens"] == sum(e.reply["usage"]["completion_tokens"] for e in answered)


def _check_constant_audit(rows: list[dict]) -> None:
    (row,) = rows  # one row per record
    assert row["id"] == "paper-figure-1" and not row["errors"]
    assert row["config"]["decomposer"] == "llm-sentence"
    claims = row["claims"]
    # each answer sentence decomposed into the claim "ok"; every local and global verdict is the constant one
    assert [(c["text"], c["sentence_index"]) for c in claims] == [("ok", i) for i in range(SENTENCES)]
    assert [c["label"] for c in claims] == ["baseless"] * SENTENCES
    assert [c["local_label"] for c in claims] == ["baseless"] * SENTENCES
    assert all(c["reason"] == "ok" and c["evidence"] == [] and c["raw"] == VERDICT for c in claims)
    assert [c["prompt_version"] for c in claims] == ["llm@v2/global_nic"] * SENTENCES
    assert row["label"] == "baseless" and row["hallucinated"] is True


# -- plain requests ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["llama-server", "llama-cpp-python"])
def test_plain_request_stops_at_once(start_server, kind):
    """Without a grammar the model's first choice is ``</s>``: an empty reply that stops, with usage."""
    server = start_server(kind)
    status, reply = _post(server.port, "/v1/chat/completions", {
        "model": "tiny", "messages": [{"role": "user", "content": "Say something."}], "temperature": 0,
        "max_tokens": 16})
    assert status == 200, reply
    choice = reply["choices"][0]
    assert (choice["message"]["content"] or "") == "" and choice["finish_reason"] == "stop"
    assert reply["usage"]["prompt_tokens"] > 0


# -- the constant model: exact results ------------------------------------------------------------------------------
def test_llama_server_honours_json_schema(start_server, tmp_path):
    server = start_server("llama-server")
    done, rows, recorder = audit(server, tmp_path)
    assert done.returncode == 0, _explain(done, server)
    _check_constant_audit(rows)
    ex = recorder.exchanges
    # 4 decompositions, then 4 local and 4 global verdicts; all honoured json_schema on the first try
    assert len(ex) == 3 * SENTENCES
    assert {(e.mode, e.status) for e in ex} == {("json_schema", 200)}
    assert sorted(e.content for e in ex) == [CLAIMS] * SENTENCES + [VERDICT] * 2 * SENTENCES
    assert {e.choice["finish_reason"] for e in ex} == {"stop"}
    assert all(e.body["max_tokens"] == DEFAULT_MAX_TOKENS and e.body["temperature"] == 0 for e in ex)
    assert all(e.reply["usage"]["prompt_tokens"] > 0 and e.reply["usage"]["completion_tokens"] > 0 for e in ex)
    _check_usage(rows[0], ex)


def test_llama_cpp_python_falls_back_to_json_object(start_server, tmp_path):
    server = start_server("llama-cpp-python")
    done, rows, recorder = audit(server, tmp_path)
    assert done.returncode == 0, _explain(done, server)
    _check_constant_audit(rows)
    ex = recorder.exchanges
    refused = [e for e in ex if e.mode == "json_schema"]
    answered = [e for e in ex if e.mode != "json_schema"]
    # the first (concurrent) decomposition requests asked for json_schema: HTTP 500 naming json_object ...
    assert 1 <= len(refused) <= SENTENCES
    assert all(e.status == 500 and "json_object" in json.dumps(e.reply) for e in refused)
    assert all("SENTENCE TO DECOMPOSE:" in e.body["messages"][-1]["content"] for e in refused)
    # ... and every call was then answered in json_object mode, with the schema, on the first try
    assert len(answered) == 3 * SENTENCES
    assert {(e.mode, e.status) for e in answered} == {("json_object", 200)}
    assert all(e.body["response_format"]["schema"]["required"] for e in answered)
    assert sorted(e.content for e in answered) == [CLAIMS] * SENTENCES + [VERDICT] * 2 * SENTENCES
    assert {e.choice["finish_reason"] for e in answered} == {"stop"}
    _check_usage(rows[0], ex)


# -- the runaway model: a reply that never closes its JSON ----------------------------------------------------------
@pytest.mark.parametrize("kind, cap", [("llama-server", None), ("llama-cpp-python", 256)],
                         ids=["llama-server-fills-the-context", "llama-cpp-python-hits-the-cap"])
def test_a_runaway_reply_never_stops_the_run(start_server, tmp_path, kind, cap):
    """Every constrained reply runs on (``{"reasoning":"aaaa...``) until the cap or, with the default cap of 4096
    above the 3072-token context, until the context is full: ``finish_reason: length`` every time. Each call is
    asked again once without echoing the cut-off reply, then fails alone: the decomposition falls back to the rule
    decomposer, every claim is ``unverified`` saying why, and the run completes with one row and exit code 0."""
    server = start_server(kind, runaway=True, n_ctx=RUNAWAY_CTX)
    extra = ["--timeout", "600"]  # the queued calls of a slow shared machine are not what this test is about
    if cap is not None:
        extra += ["--max-tokens", str(cap)]
    done, rows, recorder = audit(server, tmp_path, *extra)
    assert done.returncode == 0, _explain(done, server)
    (row,) = rows
    ex = recorder.exchanges
    answered = [e for e in ex if e.status == 200]
    assert len(answered) == len(ex) - sum(e.mode == "json_schema" and e.status == 500 for e in ex)
    assert {e.choice["finish_reason"] for e in answered} == {"length"}
    assert all(e.content.startswith(('{"reasoning":"aaaa', '{"claims":["aaaa')) for e in answered)
    if cap is not None:
        assert {e.reply["usage"]["completion_tokens"] for e in answered} == {cap}
    else:  # the reply stopped where the context ended
        used = {e.reply["usage"]["prompt_tokens"] + e.reply["usage"]["completion_tokens"] for e in answered}
        assert used == {RUNAWAY_CTX}
    # never echoed: no request carries an assistant turn; each re-ask is the first question plus the note
    assert all(e.roles == ["system", "user"] for e in ex)
    firsts = [e.user for e in answered if not e.user.endswith(TRUNCATED)]
    reasks = [e.user for e in answered if e.user.endswith(TRUNCATED)]
    assert sorted(f"{u}\n\n{TRUNCATED}" for u in firsts) == sorted(reasks)
    # the decomposition fell back to the rule decomposer (noted), then 5 claims x (local + global), each asked twice
    (note,) = row["errors"]
    assert note["kind"] == "judge" and note["message"].startswith(
        f"decomposition fell back to the rule decomposer: decomposition (decompose_sentence.v2) reply unusable "
        f"after one re-ask: {CUT_OFF}")
    assert row["config"]["decomposer"] == "rule" and row["config"]["decomposer_failed"] == "llm-sentence"
    claims = row["claims"]
    assert len(claims) == 5 and len(answered) == 2 * (SENTENCES + 2 * len(claims))
    assert [c["label"] for c in claims] == ["unverified"] * 5
    assert all(c["reason"].startswith(f"judge reply unusable after one re-ask: {CUT_OFF}") for c in claims)
    assert all(c["evidence"] == [] and c["raw"].startswith('{"reasoning":"aaaa') for c in claims)
    assert row["label"] == "unverified" and row["hallucinated"] is False
    _check_usage(row, ex)


# -- a prompt longer than the context ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind, said", [  # what each server says, as the result keeps it (prompt lengths vary)
    ("llama-server", r"exceed_context_size_error: request \(\d+ tokens\) exceeds the available context size "
                     r"\(4096 tokens\), try increasing it"),
    ("llama-cpp-python", r"invalid_request_error: This model's maximum context length is 4096 tokens\. However, "
                         r"you requested (\d+) tokens \(\1 in the messages, None in the completion\)"),
], ids=["llama-server", "llama-cpp-python"])
def test_a_prompt_over_the_context_fails_that_call_not_the_run(start_server, tmp_path, kind, said):
    """A context of about 3,900 characters: its two-sentence chunks fit the 4096-token context, the global prompt
    (the whole context) does not. The server refuses it (HTTP 400), rt4chart asks once more without the cap, then
    that claim alone is ``unverified`` with the sanitized reason; the run completes."""
    server = start_server(kind)
    context = " ".join(f"Clause {i} of the policy concerns the billing address only." for i in range(65))
    record = {"id": "long", "context": context, "question": "What does the policy say?",
              "answer": "The policy covers billing."}
    records = tmp_path / "long.jsonl"
    records.write_text(json.dumps(record) + "\n")
    done, rows, recorder = audit(server, tmp_path, "-W", "2", "-O", "1", records=records)
    assert done.returncode == 0, _explain(done, server)
    (row,) = rows
    assert not row["errors"] and row["config"]["chunks"] == 64
    (claim,) = row["claims"]
    assert (claim["text"], claim["local_label"], claim["label"]) == ("ok", "baseless", "unverified")
    ex = recorder.exchanges
    refused = [e for e in ex if e.status == 400]
    # the global call, sent with the cap and then without it; every other call fitted and was answered
    assert [e.body.get("max_tokens") for e in refused] == [DEFAULT_MAX_TOKENS, None]
    assert all("FULL CONTEXT:" in e.user and context in e.user for e in refused)
    assert sum(e.status == 200 for e in ex) == 1 + 64  # the decomposition and one local call per chunk
    assert re.fullmatch(rf"judge call failed: the request exceeds the model's context: HTTP 400 {said}.*"
                        r" \(after 2 attempt\(s\)\)", claim["reason"]), claim["reason"]
    assert str(tmp_path) not in claim["reason"] and len(claim["reason"]) < 400
    assert row["label"] == "unverified"
