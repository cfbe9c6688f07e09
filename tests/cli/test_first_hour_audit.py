"""Issue 42, a new user's first hour with `rt4chart audit`, end to end through the command line: a dead LLM endpoint
stops the run (item 1), input mistakes are said once for the whole file (item 4), and the console reads well when
piped (item 8). `report` and `diff` given an input file: tests/report/test_first_hour_report.py and
tests/diff/test_first_hour_diff.py; the HTTP server: tests/server/test_first_hour_server.py."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from rt4chart.testing.openai_server import Reply

import rt4chart
from rt4chart.cli import main
from rt4chart.llm.faults import UnreachableError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "records.jsonl"


def _refused_url() -> str:
    """The base URL of a loopback port that nothing listens on (bound, then closed: the kernel refuses it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _audit(*args: str, **kw) -> "object":
    return CliRunner().invoke(main, ["audit", *args], **kw)


def _llm(base_url: str) -> list[str]:
    return ["--judge", "llm", "--base-url", base_url, "--model", "foo", "--no-cache"]


# -- item 1: a dead LLM endpoint ---------------------------------------------------------------------------------
def test_a_refused_connection_on_the_first_calls_stops_the_run_with_exit_2_naming_the_url(tmp_path):
    url = _refused_url()
    res = _audit(str(EXAMPLES), "-o", str(tmp_path / "out.jsonl"), *_llm(url))
    assert res.exit_code == 2, res.output
    message = " ".join(res.output.split())
    assert f"cannot reach {url}/chat/completions" in message and "check --base-url" in message
    assert "Connect" in message  # what failed: the connection
    assert "errors 0" not in message and "LLM calls" not in message  # no summary of a run that did not happen


@pytest.mark.parametrize("what", ["dns", "tls"])
def test_a_dns_or_tls_failure_on_the_first_calls_stops_the_run_too(tmp_path, what):
    if what == "dns":
        url = "http://no-such-host.invalid/v1"  # RFC 6761: never resolves
        res = _audit(str(EXAMPLES), "-o", str(tmp_path / "out.jsonl"), *_llm(url))
    else:  # https to a server that speaks plain TCP: the TLS handshake fails
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(16)
            stop = threading.Event()

            def answer_garbage() -> None:
                server.settimeout(0.2)
                while not stop.is_set():
                    try:
                        conn, _ = server.accept()
                    except OSError:
                        continue
                    with conn:
                        conn.sendall(b"HTTP/1.1 400 Not TLS\r\n\r\n")

            thread = threading.Thread(target=answer_garbage, daemon=True)
            thread.start()
            url = f"https://127.0.0.1:{server.getsockname()[1]}/v1"
            try:
                res = _audit(str(EXAMPLES), "-o", str(tmp_path / "out.jsonl"), *_llm(url))
            finally:
                stop.set()
                thread.join(5)
    assert res.exit_code == 2, res.output
    assert f"cannot reach {url}/chat/completions" in " ".join(res.output.split())


def test_the_python_api_raises_for_an_endpoint_it_cannot_reach():
    url = _refused_url()
    with pytest.raises(UnreachableError, match="cannot reach"):
        rt4chart.audit(context="The library opens at 9 am.", answer="It opens at 9 am.", judge="llm", base_url=url,
                       model="foo", cache=False, decomposition="rule")


def test_an_endpoint_that_dies_later_in_the_run_counts_in_errors_and_exits_1(tmp_path, serve):
    records = tmp_path / "in.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in [
        {"id": "first", "context": "The shop opens at 9 am.", "answer": "The shop opens at 9 am."},
        {"id": "second", "context": "The museum opens at 10 am.", "answer": "The museum opens at 10 am."},
    ]) + "\n")
    state: dict = {}

    def handler(req):
        if "museum" in req.user:  # the second record: the server goes away, as a crashed one does
            state["server"].close()  # the listening socket is closed: later connections are refused
            return Reply.drop()
        return {"reasoning": "r", "evidence": ["The shop opens at 9 am."], "verdict": "entailed", "reason": "r"}

    state["server"] = serve(handler)
    out = tmp_path / "out.jsonl"
    res = _audit(str(records), "-o", str(out), *_llm(state["server"].base_url), "--concurrency", "1",
                 "--decomposition", "rule", "--no-global")
    assert res.exit_code == 1, res.output
    first, second = [json.loads(line) for line in out.read_text().splitlines()]
    assert first["label"] == "entailed" and first["errors"] == []
    assert second["label"] == "unverified" and [c["label"] for c in second["claims"]] == ["unverified"]
    assert [e["kind"] for e in second["errors"]] == ["backend"]
    assert "cannot reach" in second["errors"][0]["message"]
    assert re.search(r"with failed LLM calls\s*│\s*1 ", res.output), res.output


# -- item 4: input mistakes said once --------------------------------------------------------------------------
def test_a_csv_without_the_answer_column_is_one_error_naming_the_columns_and_the_option(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("id,context,question\n" + "".join(f"{i},The shop opens at 9.,When?\n" for i in range(5)))
    res = _audit(str(path), "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical")
    assert res.exit_code == 2, res.output
    assert res.output.count("error:") == 1 and "is missing" not in res.output
    assert "no record of" in res.output and "has the column 'answer'" in res.output
    assert "columns found: id, context, question" in res.output and "--answer-field" in res.output
    assert not (tmp_path / "out.jsonl").exists()


def test_other_column_names_are_named_with_the_options_that_map_them(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("id,passage,question,response\n1,The shop opens at 9.,When?,It opens at 9.\n")
    res = _audit(str(path), "--judge", "lexical")
    assert res.exit_code == 2, res.output
    assert "the columns 'context' and 'answer'" in res.output
    assert "columns found: id, passage, question, response" in res.output
    assert "--context-field and --answer-field" in res.output
    mapped = _audit(str(path), "--judge", "lexical", "--context-field", "passage", "--answer-field", "response")
    assert mapped.exit_code == 0, mapped.output
    assert json.loads(mapped.stdout.splitlines()[0])["label"] == "entailed"


def test_an_empty_input_is_an_error_unless_allowed(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = _audit(str(empty), "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical")
    assert res.exit_code == 2 and "holds no records" in res.output and "--allow-empty" in res.output
    ok = _audit(str(empty), "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical", "--allow-empty")
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "out.jsonl").read_text() == ""
    header_only = tmp_path / "empty.csv"
    header_only.write_text("id,context,answer\n")
    assert _audit(str(header_only), "--judge", "lexical").exit_code == 2


def test_a_span_file_without_traces_is_an_error_unless_allowed(tmp_path):
    spans = tmp_path / "spans.json"
    spans.write_text('{"resourceSpans": []}')
    res = _audit(str(spans), "--from", "openinference", "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical")
    assert res.exit_code == 2 and "holds no traces" in res.output and "--allow-empty" in res.output, res.output
    assert not (tmp_path / "out.jsonl").exists()
    ok = _audit(str(spans), "--from", "openinference", "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical",
                "--allow-empty")
    assert ok.exit_code == 0, ok.output


# -- item 8: the console -----------------------------------------------------------------------------------------
def test_piped_console_lines_are_whole_cut_with_an_ellipsis_and_name_records_from_1(tmp_path):
    long_claim = "The museum's west wing, " + "which was rebuilt after the fire, " * 8 + "opens at 10 am."
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join([
        json.dumps({"id": "one", "context": "The shop opens at 9 am.", "answer": "The shop opens at 9 am."}),
        json.dumps({"context": "No id here.", "answer": "An answer."}),  # no id: named by its number
        "{not json",
        json.dumps({"id": "long", "context": "The museum opens at 10 am.", "answer": long_claim}),
    ]) + "\n")
    res = _audit(str(path), "-o", str(tmp_path / "out.jsonl"), "--judge", "lexical")
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    assert "one  entailed  (1 claim)" in lines
    assert not any(line.startswith("None") for line in lines)
    assert any(line.startswith("#2  error record '#2', field 'id': is missing") for line in lines), res.output
    assert any(line.startswith("#3  error record '#3': line 3 is not valid JSON") for line in lines), res.output
    claim_line = next(line for line in lines if "The museum's west wing" in line)
    assert claim_line.endswith("…") and len(claim_line) < len(long_claim)
    table = [line for line in lines if line.startswith("│")]
    assert table and all(line.endswith("│") for line in table)  # rows not wrapped at 80 columns


def _big_input(path: Path, n: int = 400) -> None:
    context = "The shop opens at 9 am and closes at 6 pm on weekdays. " * 10
    path.write_text("".join(json.dumps({"id": i, "context": context, "answer": "The shop opens at 9 am."}) + "\n"
                            for i in range(n)))


def test_a_closed_pipe_ends_quietly_with_exit_0(tmp_path):
    src = tmp_path / "in.jsonl"
    _big_input(src)  # about 400 kB of results: more than a pipe holds, so the writer meets the closed end
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "rt4chart.cli", "audit", str(src), "--judge", "lexical"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    _, err = proc.communicate(timeout=120)
    assert json.loads(first)["id"] == 0
    assert proc.returncode == 0, err.decode()
    assert b"Broken pipe" not in err and b"Traceback" not in err and b"error" not in err, err.decode()
