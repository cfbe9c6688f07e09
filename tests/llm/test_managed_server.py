"""``--gguf``: rt4chart starts llama.cpp's server itself (``rt4chart.llm.managed``), audits, and always stops it. A
stand-in ``llama-server`` (a Python script that takes llama-server's arguments and answers /health, /props and
one-token Yes/No chat completions on the port it is given) plays the binary, so the start, the run and the stop go
through real processes and real HTTP."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.llm.managed import ManagedServer, find_llama_server, managed_model, server_slots

STAND_IN = textwrap.dedent('''\
    #!{python}
    import json, math, os, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    args = sys.argv[1:]
    port = int(args[args.index("--port") + 1])
    assert os.path.isfile(args[args.index("-m") + 1])
    open(os.environ["STAND_IN_PIDS"], "a").write(f"{{os.getpid()}}\\n")
    if os.environ.get("STAND_IN_FAIL"):
        print("error: failed to load model", flush=True)
        sys.exit(3)
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass
        def send(self, obj):
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        def do_GET(self):
            self.send({{"status": "ok"}} if self.path == "/health" else {{"total_slots": 2}})
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            claim = body["messages"][-1]["content"].rsplit("Claim: ", 1)[1]
            p = 0.03 if "free" in claim else 0.96
            top = [{{"token": "Yes", "logprob": math.log(p)}}, {{"token": "No", "logprob": math.log(1 - p)}}]
            self.send({{"choices": [{{"index": 0, "finish_reason": "length",
                        "message": {{"role": "assistant", "content": "Yes" if p > 0.5 else "No"}},
                        "logprobs": {{"content": [{{"token": "Yes", "logprob": math.log(p), "top_logprobs": top}}]}}}}],
                        "usage": {{"prompt_tokens": 50, "completion_tokens": 1}}}})
    ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
''')

CONTEXT = "The museum opens at 9 a.m. and closes at 5 p.m. Entry costs 12 euros. Guided tours start at 11 a.m."
RECORDS = [{"id": "m1", "context": CONTEXT, "answer": "The museum opens at 9 a.m. Entry is free."},
           {"id": "m2", "context": CONTEXT, "answer": "Guided tours start at 11 a.m."}]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch) -> dict:
    binary = tmp_path / "llama-server"
    binary.write_text(STAND_IN.format(python=sys.executable))
    binary.chmod(0o755)
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    pids = tmp_path / "pids"
    monkeypatch.setenv("STAND_IN_PIDS", str(pids))
    monkeypatch.setenv("RT4CHART_LLAMA_SERVER", str(binary))
    monkeypatch.delenv("RT4CHART_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return {"binary": str(binary), "gguf": str(gguf), "pids": pids}


def started(stand_in: dict) -> list[int]:
    return [int(x) for x in stand_in["pids"].read_text().split()] if stand_in["pids"].exists() else []


def test_cli_audit_with_gguf_starts_and_stops_the_server(stand_in, tmp_path: Path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out.jsonl"
    run = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "--gguf", stand_in["gguf"], "--no-cache",
                                    "-q"])
    assert run.exit_code == 0, run.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["judge"] for r in rows] == ["hybrid", "hybrid"]  # --judge auto with a model file: hybrid
    assert rows[0]["claims"][1]["label"] != "entailed" and rows[0]["hallucinated"] is True
    # the model's verdicts came from the started server (a claim a local rule decided is not asked)
    assert rows[0]["usage"]["calls"] > 0
    assert all(raw["decided_by"] == "local" or raw["p_supported"] > 0.5
               for raw in (json.loads(c["raw"]) for c in rows[1]["claims"]))
    [pid] = started(stand_in)
    assert not _alive(pid)  # stopped after the run


def test_the_server_is_stopped_when_the_run_fails(stand_in):
    options = {"gguf": stand_in["gguf"], "judge_name": "auto"}
    with pytest.raises(RuntimeError, match="boom"):
        with managed_model(options, binary=stand_in["binary"]) as server:
            assert options["judge_name"] == "hybrid" and options["base_url"] == server.base_url
            assert server_slots(server.base_url) == 2
            raise RuntimeError("boom")
    [pid] = started(stand_in)
    assert not _alive(pid)


def test_the_server_is_stopped_on_ctrl_c(stand_in):
    server = ManagedServer(stand_in["gguf"], binary=stand_in["binary"])
    # Ctrl-C as the rt4chart command on a terminal receives it: Python's default handler raises KeyboardInterrupt
    # (a test run started in the background by a non-interactive shell inherits SIGINT ignored, and keeps it so)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with server:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
    finally:
        signal.signal(signal.SIGINT, previous)
    [pid] = started(stand_in)
    assert not _alive(pid) and server.process is None


def test_a_server_that_fails_to_load_says_why(stand_in, monkeypatch):
    monkeypatch.setenv("STAND_IN_FAIL", "1")
    with pytest.raises(ConfigError, match="exited with code 3 .*failed to load model"):
        ManagedServer(stand_in["gguf"], binary=stand_in["binary"]).start()


def test_missing_binary_or_model_file_names_what_to_install(stand_in, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ConfigError, match="install llama.cpp .*RT4CHART_LLAMA_SERVER"):
        find_llama_server()
    with pytest.raises(ConfigError, match="no such model file"):
        ManagedServer(str(tmp_path / "missing.gguf"), binary=stand_in["binary"])
    run = CliRunner().invoke(main, ["audit", "-", "--gguf", str(tmp_path / "missing.gguf")], input="{}")
    assert run.exit_code == 2 and "no such model file" in " ".join(run.output.split())


def test_gguf_refuses_other_judges_and_a_second_server(stand_in):
    with pytest.raises(ConfigError, match="the judge here is local"):
        with managed_model({"gguf": stand_in["gguf"], "judge_name": "local"}):
            pass
    with pytest.raises(ConfigError, match="give one of them"):
        with managed_model({"gguf": stand_in["gguf"], "base_url": "http://x/v1"}):
            pass
    assert started(stand_in) == []
