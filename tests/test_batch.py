"""The local engine's per-record path as a function (``audit_lines``), which the Ray engine and ``audit_frame``
call: the same lines ``run_batch`` writes, and the same counts from a line as from its result."""

import asyncio
import json

from rt4chart.batch import BatchSummary, audit_lines, run_batch
from rt4chart.io import Row
from rt4chart.judges.registry import build_auditor

RECORDS = [
    {"id": "a", "context": "The free trial lasts 14 days.", "answer": "The free trial lasts 30 days."},
    {"id": "b", "context": "Rome is in Italy."},
    {"id": "c", "context": ["Rome is in Italy.", "Oslo is in Norway."], "answer": "Oslo is in Norway."},
    {"id": "a", "context": "Rome is in Italy.", "answer": "Rome is in Italy."},
]


def _untimed(line: dict) -> dict:
    return {**line, "usage": {k: v for k, v in line["usage"].items() if k != "seconds"}} if "usage" in line else line


def test_audit_lines_are_the_lines_run_batch_writes(tmp_path):
    run_batch(RECORDS, build_auditor("lexical"), tmp_path / "out.jsonl")
    written = [_untimed(json.loads(x)) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    rows = [Row(i, r) for i, r in enumerate(RECORDS)]
    lines = asyncio.run(audit_lines(rows, build_auditor("lexical")))
    assert [_untimed(x) for x in lines] == written
    assert [x["index"] for x in lines] == [0, 1, 2, 3] and "error" in lines[1] and "error" in lines[3]
    # rows an earlier run wrote are left out: by id for a result, by position for an error row
    later = asyncio.run(audit_lines(rows, build_auditor("lexical"), done={"id:a", "row:1"}))
    assert [x["index"] for x in later] == [2, 3]


def test_a_summary_counts_the_lines_as_the_local_engine_counts_its_results(tmp_path):
    summary = run_batch(RECORDS, build_auditor("lexical"), tmp_path / "out.jsonl")
    from_lines = BatchSummary()
    for raw in (tmp_path / "out.jsonl").read_text().splitlines():
        from_lines.add_line(json.loads(raw))
    from_lines.seconds = summary.seconds
    assert from_lines == summary
    assert (from_lines.records, from_lines.ok, from_lines.errors, from_lines.hallucinated) == (4, 2, 2, 1)
    assert from_lines.claim_labels["contradicted"] == 1
