"""``rt4chart audit --resume`` after ``kill -9`` with error rows present (issue 26): every input row has exactly one
line, in input order, no torn line; error rows are kept by ``--resume`` and audited again by ``--retry-errors``, which
rewrites the output atomically (a kill during the retry leaves the old file, byte for byte).

Real subprocesses killed with SIGKILL; every wait is bounded; servers listen on loopback only."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from rt4chart.testing.openai_server import ChatRequest, Reply

# A real `rt4chart audit` whose judge is the lexical judge made slow (FLAKY_DELAY seconds per call) and, while
# FLAKY=1, raising on claims that contain FLAKY: those records end as error rows (kind "internal").
DRIVER = '''
import asyncio, os, sys
import rt4chart.judges.registry as registry
from rt4chart.judges.lexical import LexicalJudge

class SlowFlaky(LexicalJudge):
    async def judge(self, claims, evidence, **kw):
        await asyncio.sleep(float(os.environ["FLAKY_DELAY"]))
        if os.environ.get("FLAKY") == "1" and any("FLAKY" in c.text for c in claims):
            raise RuntimeError("the flaky judge failed")
        return await super().judge(claims, evidence, **kw)

registry.make_judge = lambda name="auto", **options: (SlowFlaky(), None)
from rt4chart.cli import main
main(prog_name="rt4chart")
'''


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _flaky_records(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        mark = " FLAKY" if i % 7 == 3 else ""
        rows.append({"id": f"r{i}", "context": f"Crate {i} holds {i + 2} apples. It sits in aisle {i % 5}.",
                     "answer": f"Crate {i} holds {i + 2} apples{mark}."})
    return rows


def _wait(predicate: Callable[[], bool], proc: subprocess.Popen, seconds: float = 60) -> bool:
    """Poll ``predicate`` until it holds, the process ends, or ``seconds`` pass (a bounded wait)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def _rows(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data.endswith(b"\n"), "torn last line"
    return [json.loads(line) for line in data.decode().splitlines()]  # every line is whole JSON


def _check_once_in_order(path: Path, records: list[dict]) -> list[dict]:
    rows = _rows(path)
    assert [r["id"] for r in rows] == [r.get("id") for r in records]  # every input row once, in input order
    assert [r["index"] for r in rows] == list(range(len(records)))
    return rows


def _env(**extra: str) -> dict:
    return {**{k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}, **extra}


def _complete(path: Path) -> bytes:
    """The file up to its last newline (a kill may have torn the line after it)."""
    data = path.read_bytes()
    return data[: data.rfind(b"\n") + 1]


def _flaky_audit(tmp_path: Path, records: list, concurrency: int) -> tuple[Path, Path, list[str]]:
    """The input file of ``records``, the output path, and the ``rt4chart audit`` command through the driver."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, records)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    return src, out, [sys.executable, str(driver), "audit", str(src), "-o", str(out), "-q", "--concurrency",
                      str(concurrency)]


def test_resume_keeps_error_rows_and_retry_errors_replaces_them(tmp_path):
    records = _flaky_records(70)
    src, out, cmd = _flaky_audit(tmp_path, records, concurrency=2)
    flaky = _env(FLAKY="1", FLAKY_DELAY="0.03")

    proc = subprocess.Popen(cmd, env=flaky, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _wait(lambda: _lines(out) >= 12, proc), "the run ended before writing 12 lines"
    _kill(proc)
    assert 12 <= _lines(out) < len(records), "the kill should land mid-run"
    before = _complete(out)
    assert b'"error"' in before  # error rows were written before the kill
    with out.open("ab") as fh:  # and a torn write on top
        fh.write(b'{"id": "r-torn", "lab')

    res = subprocess.run(cmd + ["--resume"], env=flaky, capture_output=True, timeout=120)
    assert res.returncode == 1, res.stderr  # the output holds failed records
    rows = _check_once_in_order(out, records)
    assert out.read_bytes().startswith(before)  # what was written before the kill is kept as it was
    failed = [r["id"] for r in rows if "error" in r]
    assert failed == [r["id"] for r in records if "FLAKY" in r["answer"]]
    assert {r["error"]["kind"] for r in rows if "error" in r} == {"internal"}

    again = subprocess.run(cmd + ["--resume"], env=flaky, capture_output=True, timeout=120)
    assert again.returncode == 1 and out.read_bytes().count(b"\n") == len(records)  # nothing re-audited

    kept = out.read_bytes()
    healthy = _env(FLAKY="0", FLAKY_DELAY="0.03")
    res = subprocess.run(cmd + ["--retry-errors"], env=healthy, capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    rows = _check_once_in_order(out, records)
    assert not [r for r in rows if "error" in r]
    assert [r["label"] for r in rows if r["id"] in failed] and all(r["claims"] for r in rows)
    old = kept.decode().splitlines()
    new = out.read_text().splitlines()
    assert [a for a, r in zip(old, rows) if r["id"] not in failed] == \
           [b for b, r in zip(new, rows) if r["id"] not in failed]  # the other lines are untouched
    assert not (tmp_path / "out.jsonl.retry-tmp").exists()


def test_a_kill_during_retry_leaves_the_old_file(tmp_path):
    records = _flaky_records(42)
    src, out, cmd = _flaky_audit(tmp_path, records, concurrency=1)
    res = subprocess.run(cmd, env=_env(FLAKY="1", FLAKY_DELAY="0"), capture_output=True, timeout=120)
    assert res.returncode == 1, res.stderr
    old = out.read_bytes()
    failed = [r["id"] for r in _check_once_in_order(out, records) if "error" in r]
    assert len(failed) == 6

    tmp = tmp_path / "out.jsonl.retry-tmp"
    slow = _env(FLAKY="0", FLAKY_DELAY="0.25")  # each retried record takes about half a second
    proc = subprocess.Popen(cmd + ["--retry-errors"], env=slow, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    assert _wait(lambda: tmp.exists() and tmp.stat().st_size > 0, proc), "the retry never started writing"
    time.sleep(1.2)  # mid-rewrite: some records retried, others not
    _kill(proc)
    assert out.read_bytes() == old  # the old file, byte for byte, never a mix
    assert tmp.exists()

    res = subprocess.run(cmd + ["--resume"], env=slow, capture_output=True, timeout=120)
    assert res.returncode == 1 and out.read_bytes() == old  # nothing to do; the stale temporary file is gone
    assert not tmp.exists()

    res = subprocess.run(cmd + ["--retry-errors"], env=_env(FLAKY="0", FLAKY_DELAY="0"), capture_output=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    rows = _check_once_in_order(out, records)
    assert not [r for r in rows if "error" in r] and not tmp.exists()


BASELESS = {"reasoning": "not stated", "evidence": [], "verdict": "baseless", "reason": "the text does not say"}


def _llm_handler(req: ChatRequest):
    """Slow (the server's latency), with 503s, garbage replies and a dropped connection now and then."""
    if req.index % 11 == 5:
        return Reply.error(503, retry_after=0)
    if req.index % 13 == 7:
        return "I cannot comply {"
    if req.index % 29 == 3:
        return Reply.drop()
    m = re.search(r"SENTENCE TO DECOMPOSE:\n<<<\n(.*?)\n>>>", req.user, re.DOTALL)
    return {"claims": [m.group(1)]} if m else BASELESS


def test_resume_against_a_slow_faulty_llm_server(serve, tmp_path):
    server = serve(_llm_handler, latency=0.02)
    records = []
    for i in range(60):
        rec = {"id": f"q{i}", "context": f"Shelf {i} holds {i} books. The shelf is oak.",
               "answer": f"Shelf {i} holds {i + 1} books. The shelf is oak."}
        if i % 9 == 4:
            del rec["answer"]  # an input error row
        records.append(rec)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, records)
    cmd = [sys.executable, "-m", "rt4chart.cli", "audit", str(src), "-o", str(out), "-q", "--judge", "llm",
           "--base-url", server.base_url, "--model", "fake-model", "--no-cache", "--concurrency", "4",
           "--timeout", "10"]
    env = _env()

    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _wait(lambda: _lines(out) >= 8, proc), "the run ended before writing 8 lines"
    _kill(proc)
    assert 8 <= _lines(out) < len(records), "the kill should land mid-run"
    before = _complete(out)

    res = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, timeout=300)
    assert res.returncode == 1, res.stderr  # the input error rows
    rows = _check_once_in_order(out, records)
    assert out.read_bytes().startswith(before)
    assert [r["id"] for r in rows if "error" in r] == [r["id"] for r in records if "answer" not in r]
    assert all(r["claims"] and r["label"] != "entailed" for r in rows if "error" not in r)

    done = out.read_bytes()
    res = subprocess.run(cmd + ["--retry-errors"], env=env, capture_output=True, timeout=300)
    assert res.returncode == 1, res.stderr  # input errors are not retried: the records are still invalid
    assert out.read_bytes() == done


def _line(rid: str, index: int, **extra) -> str:
    return json.dumps({"id": rid, "index": index, **extra}) + "\n"


def test_retry_rewrites_a_file_an_older_version_duplicated(tmp_path):
    """An older version re-audited error rows on --resume and appended them: the retry leaves one line per row,
    in input order."""
    from rt4chart import Auditor, LexicalJudge
    from rt4chart.jobs.batch import run_batch

    records = [{"id": f"r{i}", "context": "The sky is blue.", "answer": "The sky is blue."} for i in range(5)]
    out = tmp_path / "out.jsonl"
    err = {"error": {"field": None, "message": "boom", "kind": "internal"}}
    out.write_text(_line("r0", 0, label="entailed") + _line("r1", 1, **err) + _line("r2", 2, label="entailed")
                   + _line("r3", 3, **err) + _line("r1", 1, label="baseless") + _line("r2", 2, label="entailed"))
    resumed = run_batch(records, Auditor(judge=LexicalJudge()), out, resume=True)
    assert resumed.records == 1 and resumed.skipped == 4  # r4 appended; r1 and r3 kept as they are
    summary = run_batch(records, Auditor(judge=LexicalJudge()), out, retry_errors=True)
    rows = _check_once_in_order(out, records)
    assert rows[1]["label"] == "baseless"  # r1 had a result already: its error row is dropped, not retried
    assert rows[3]["label"] == "entailed" and "error" not in rows[3]  # r3 retried
    assert summary.records == 1 and summary.previous_errors == 0 and summary.errors == 0
