"""`rt4chart audit` end to end: outputs, bad rows, exit codes, resume after SIGKILL."""

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.audit.relation import violations
from rt4chart.cli import main
from rt4chart.types import AuditResult

ROOT = Path(__file__).parents[2]
RECORDS = ROOT / "examples" / "records.jsonl"


def _lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def _run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_audit_examples_contract(tmp_path):
    out = tmp_path / "out.jsonl"
    res = _run("audit", str(RECORDS), "-o", str(out), "--judge", "lexical")
    assert res.exit_code == 0, res.output
    inputs = _lines(RECORDS)
    results = _lines(out)
    assert [r["id"] for r in results] == [r["id"] for r in inputs]
    for r in results:
        ctx, ans = r["context"], r["answer"]
        assert r["label"] in {"entailed", "contradicted", "baseless", "unverified"}
        for c in r["claims"]:
            assert c["label"] in {"entailed", "contradicted", "baseless", "unverified"}
            for sp in c["answer_spans"]:
                assert 0 <= sp["start"] < sp["end"] <= len(ans) and ans[sp["start"]:sp["end"]].strip()
            for ev in c["evidence"]:
                assert ctx[ev["start"]:ev["end"]] == ev["text"]
            if c["label"] == "baseless":
                assert c["evidence"] == []
        r.pop("index")
        assert violations(AuditResult.model_validate(r)) == []


def _mixed(tmp_path):
    good = _lines(RECORDS)[:4]
    rows = [json.dumps(r) for r in good]
    rows += [json.dumps({**good[0], "id": "g5"}), json.dumps({**good[1], "id": "g6"}),
             json.dumps({**good[2], "id": "g7"})]
    rows.insert(2, json.dumps({"id": "no-answer", "context": "Some context."}))          # missing field
    rows.insert(5, '{"id": "broken", "context": ')                                         # invalid JSON
    rows.append(json.dumps({**good[0]}))                                                    # duplicate id
    path = tmp_path / "mixed.jsonl"
    path.write_bytes("\n".join(rows).encode() + b"\n")
    return path


def test_bad_rows_are_reported_and_the_rest_goes_on(tmp_path):
    path, out = _mixed(tmp_path), tmp_path / "out.jsonl"
    res = _run("audit", str(path), "-o", str(out), "-q")
    assert res.exit_code == 1
    lines = _lines(out)
    assert len(lines) == 10
    errors = [x for x in lines if "error" in x]
    assert len(errors) == 3 and len(lines) - len(errors) == 7
    by_id = {e["id"]: e["error"] for e in errors}
    assert by_id["no-answer"]["field"] == "answer"
    assert "duplicate id" in by_id["paper-figure-1"]["message"]
    assert "not valid JSON" in by_id[None]["message"]
    assert [x["index"] for x in lines] == list(range(10))


@pytest.mark.parametrize("record,field", [
    ({"context": "c", "answer": "a"}, "id"),
    ({"id": 1.5, "context": "c", "answer": "a"}, "id"),
    ({"id": True, "context": "c", "answer": "a"}, "id"),
    ({"id": 1, "context": 5, "answer": "a"}, "context"),
    ({"id": 1, "context": "", "answer": "a"}, "context"),
    ({"id": 1, "context": ["ok", 3], "answer": "a"}, "context[1]"),
    ({"id": 1, "context": "c", "answer": "  "}, "answer"),
    ({"id": 1, "context": "c", "answer": "a", "question": ["q"]}, "question"),
])
def test_each_bad_field_is_named(tmp_path, record, field):
    path = tmp_path / "in.jsonl"
    ok = {"id": "ok", "context": "The sky is blue.", "answer": "The sky is blue."}
    path.write_text(json.dumps(record) + "\n" + json.dumps(ok))
    out = tmp_path / "out.jsonl"
    assert _run("audit", str(path), "-o", str(out), "-q").exit_code == 1
    bad, ok = _lines(out)
    assert bad["error"]["field"] == field
    assert ok["label"] == "entailed"


def test_invalid_utf8_is_a_record_error(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"id": "u", "context": "caf\xe9 au lait", "answer": "ok"}\n'
                     b'{"id": "v", "context": "Tea.", "answer": "Tea."}\n')
    out = tmp_path / "out.jsonl"
    assert _run("audit", str(path), "-o", str(out), "-q").exit_code == 1
    bad, ok = _lines(out)
    assert bad["error"]["field"] == "context" and "UTF-8" in bad["error"]["message"]
    assert ok["id"] == "v"


def test_csv_json_stdin_and_field_mapping(tmp_path):
    csv_path = tmp_path / "in.csv"
    csv_path.write_text('doc_id,passage,query,response\n1,"The sky is blue.",,"The sky is blue."\n')
    res = _run("audit", str(csv_path), "--id-field", "doc_id", "--context-field", "passage",
               "--question-field", "query", "--answer-field", "response", "-q")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.splitlines()[0])["label"] == "entailed"
    arr = tmp_path / "in.json"
    arr.write_text(json.dumps([{"id": 1, "context": "A cat.", "answer": "A dog barked loudly."}]))
    res = _run("audit", str(arr), "-q")
    assert json.loads(res.stdout)["label"] == "baseless"
    res = _run("audit", "-", "-q", input=json.dumps({"id": 2, "context": "A cat.", "answer": "A cat."}))
    assert json.loads(res.stdout)["id"] == 2


def test_usage_errors_exit_2(tmp_path):
    assert _run("audit", str(tmp_path / "missing.jsonl"), "-q").exit_code == 2
    assert _run("audit", str(RECORDS), "-W", "5", "-O", "5", "-q").exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    assert _run("audit", str(bad), "-q").exit_code == 2
    assert _run("audit", str(RECORDS), "--resume", "-q").exit_code == 2


def test_resume_after_sigkill(tmp_path):
    n = 1000  # large enough that the kill below lands mid-run on a fast machine
    src = tmp_path / "many.jsonl"
    with src.open("w") as fh:
        for i in range(n):
            ctx = " ".join(f"Item {j} of record {i} weighs {j * 3} kilograms." for j in range(40))
            fh.write(json.dumps({"id": f"r{i}", "context": ctx, "answer": f"Item 3 of record {i} weighs 9 kilograms."})
                     + "\n")
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "rt4chart.cli", "audit", str(src), "-o", str(out), "-q", "--judge", "lexical"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or out.stat().st_size < 20_000):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = out.read_bytes().count(b"\n")
    assert 0 < partial < n, "the kill should land mid-run"
    with out.open("ab") as fh:  # simulate a torn write as well
        fh.write(b'{"id": "r-torn", "lab')
    res = subprocess.run(cmd + ["--resume"], capture_output=True)
    assert res.returncode == 0, res.stderr
    ids = [json.loads(x)["id"] for x in out.read_text().splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(n))
    assert ids == [f"r{i}" for i in range(n)]  # input order, exactly once each


def test_gate_accept_routes_lowest_risk_without_judging(tmp_path):
    out = tmp_path / "out.jsonl"
    res = _run("audit", str(RECORDS), "-o", str(out), "--judge", "lexical", "--gate-accept", "0.5", "-q")
    assert res.exit_code == 0, res.output
    lines = _lines(out)
    accepted = [r for r in lines if r["routed"] == "accepted"]
    verified = [r for r in lines if r["routed"] == "verified"]
    assert len(accepted) == math.ceil(len(lines) / 2) and len(verified) == len(lines) - len(accepted)
    assert max(r["risk"] for r in accepted) <= min(r["risk"] for r in verified)
    for r in accepted:  # not judged: no claims, never reported as entailed
        assert r["claims"] == [] and r["label"] == "unverified" and r["hallucinated"] is None
    assert all(r["claims"] for r in verified)


def test_audit_refuses_to_write_its_results_over_its_input(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(RECORDS.read_text())
    res = _run("audit", str(path), "-o", str(tmp_path / "." / "records.jsonl"), "--judge", "lexical")
    assert res.exit_code == 2 and "would overwrite it" in res.output
    assert path.read_text() == RECORDS.read_text()


@pytest.mark.parametrize("args, message", [
    (["--judge", "lexical", "--threshold", "0.3"], "--threshold configures the local judge, but the judge here is"),
    (["--judge", "lexical", "--no-tagger", "--threshold", "0.3"], "--threshold and --no-tagger configure the local"),
    (["--judge", "local", "--decomposition", "holistic"], "--decomposition holistic configures the LLM judge"),
    (["--judge", "lexical", "--model-dir", "."], "--model-dir configures the local judge, but the judge here is"),
    (["--judge", "local", "--model-dir", "."], "no trained local judge model in"),
])
def test_options_the_judge_does_not_read_are_usage_errors(tmp_path, monkeypatch, args, message):
    monkeypatch.delenv("RT4CHART_BASE_URL", raising=False)
    res = _run("audit", str(RECORDS), "-o", str(tmp_path / "out.jsonl"), *args)
    assert res.exit_code == 2 and message in " ".join(res.output.split()), res.output
    assert not (tmp_path / "out.jsonl").exists()


def test_audit_citations_writes_the_check_and_fail_on_exits_3(tmp_path):
    inp = tmp_path / "cited.jsonl"
    passages = ["The museum opens at nine in the morning.", "Tickets cost twelve euros for adults."]
    inp.write_text(json.dumps({"id": "m", "context": passages,
                               "answer": "Tickets cost twelve euros for adults [1]."}) + "\n")
    out = tmp_path / "out.jsonl"
    res = _run("audit", str(inp), "-o", str(out), "--judge", "lexical", "--citations", "--fail-on", "misattributed")
    assert res.exit_code == 3, res.output
    assert "1 claim(s) misattributed" in res.output
    (line,) = [json.loads(x) for x in out.read_text().splitlines()]
    check = line["citation_check"]["claims"][0]
    assert (check["status"], check["passages"], check["evidence_passages"]) == ("misattributed", [1], [2])
    # a status that did not occur passes; markers are checked without --citations too; --fail-on with
    # --no-citations is a usage error
    assert _run("audit", str(inp), "-o", str(tmp_path / "b.jsonl"), "--judge", "lexical", "--citations",
                "--fail-on", "invalid").exit_code == 0
    assert _run("audit", str(inp), "-o", str(tmp_path / "d.jsonl"), "--judge", "lexical", "--fail-on",
                "misattributed").exit_code == 3
    res = _run("audit", str(inp), "-o", str(tmp_path / "c.jsonl"), "--judge", "lexical", "--no-citations",
               "--fail-on", "invalid")
    assert res.exit_code == 2 and "--no-citations" in res.output
