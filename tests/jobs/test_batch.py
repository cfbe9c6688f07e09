"""The local engine's per-record path as a function (``audit_lines``), which the Ray engine and ``audit_frame``
call: the same lines ``run_batch`` writes, and the same counts from a line as from its result."""

import asyncio
import json

from rt4chart.jobs.batch import BatchSummary, audit_lines, run_batch
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


def test_an_iterator_of_rows_is_audited_with_retry_errors_and_the_gate(tmp_path):
    """Rows given as an iterator are read once for the audit and again for the retry: every row gets its line, with
    and without the gate cascade (which scores the rows the audit checks)."""
    from rt4chart.jobs.batch import run_batch_async
    from rt4chart.io import Row

    records = [{"id": f"r{i}", "context": "The sky is blue. Grass is green.", "answer": answer}
               for i, answer in enumerate(["The sky is blue.", "Grass is green.", "The sky is red."])]
    auditor = build_auditor("lexical")
    for gate in (None, 0.3):  # ceil(0.3 * 3) = 1 accepted
        out = tmp_path / f"out-{gate}.jsonl"
        summary = asyncio.run(run_batch_async(iter(Row(i, r) for i, r in enumerate(records)), auditor, out,
                                              retry_errors=True, gate_accept=gate))
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert [line["id"] for line in lines] == ["r0", "r1", "r2"] and summary.records == 3
        if gate is not None:
            assert summary.cascade is not None and len(summary.cascade.accepted) == 1
            assert sum(line.get("routed") == "accepted" for line in lines) == 1
            assert all(line.get("routed") in ("accepted", "verified") for line in lines)
