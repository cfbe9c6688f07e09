"""``rt4chart audit --baseline PREV``: unchanged records get PREV's result again, only the others are audited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart import Auditor
from rt4chart.jobs.batch import read_baseline, run_batch
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.registry import build_auditor

ROOT = Path(__file__).parents[2]
RECORDS = ROOT / "examples" / "records.jsonl"


class Counting(Auditor):
    """The lexical auditor of ``build_auditor("lexical")`` (same fingerprint), noting every record it audits."""

    def __init__(self, **options) -> None:
        super().__init__(judge=LexicalJudge(), fingerprint=build_auditor("lexical", **options).fingerprint, **options)
        self.audited: list = []

    async def audit(self, record, *, index=None):
        self.audited.append(record["id"])
        return await super().audit(record, index=index)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _audit(*args: str):
    return CliRunner().invoke(main, ["audit", *args, "--judge", "lexical"])


@pytest.fixture
def prev(tmp_path) -> Path:
    out = tmp_path / "prev.jsonl"
    assert _audit(str(RECORDS), "-o", str(out), "-q").exit_code == 0
    return out


def test_unchanged_input_audits_nothing_and_writes_the_same_file(tmp_path, prev):
    res = _audit(str(RECORDS), "-o", str(tmp_path / "again.jsonl"), "--baseline", str(prev))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "again.jsonl").read_bytes() == prev.read_bytes()
    assert "│ audited              │ 0 " in res.stderr and "│ reused from baseline │ 6 " in res.stderr

    auditor = Counting()
    summary = run_batch(_rows(RECORDS), auditor, tmp_path / "api.jsonl", baseline=read_baseline(prev))
    assert auditor.audited == [] and (summary.records, summary.reused, summary.ok) == (6, 6, 6)
    assert summary.hallucinated == sum(r["hallucinated"] for r in _rows(prev))
    assert (tmp_path / "api.jsonl").read_bytes() == prev.read_bytes()


def test_only_changed_records_are_audited(tmp_path, prev):
    rows = _rows(RECORDS)
    rows[1]["answer"] += " It is in Paris."                                  # qa-clean: answer
    rows[2]["question"] = "What did Acme report?"                           # qa-number-conflict: question
    rows[3]["context"] = rows[3]["context"].replace("Tuesday", "Monday")    # summary-baseless: context
    rows[4]["task"] = "summary"                                             # qa-negation: task
    rows.append({"id": "new", "context": "Rome is in Italy.", "answer": "Rome is in Italy."})
    changed = _write(tmp_path / "changed.jsonl", rows)

    auditor = Counting()
    summary = run_batch(_rows(changed), auditor, tmp_path / "out.jsonl", baseline=read_baseline(prev))
    assert sorted(auditor.audited) == sorted(["qa-clean", "qa-number-conflict", "summary-baseless", "qa-negation",
                                              "new"])
    assert (summary.records, summary.reused) == (7, 2)
    old, new = prev.read_text().splitlines(), (tmp_path / "out.jsonl").read_text().splitlines()
    assert [new[i] == old[i] for i in range(6)] == [True, False, False, False, False, True]
    fresh = json.loads(new[1])
    assert fresh["answer"] == rows[1]["answer"] and fresh["index"] == 1


def test_another_judge_configuration_audits_everything_again(tmp_path, prev):
    res = _audit(str(RECORDS), "-o", str(tmp_path / "w10.jsonl"), "--baseline", str(prev), "-W", "10", "-O", "2")
    assert res.exit_code == 0, res.output
    assert "│ audited              │ 6 " in res.stderr and "│ reused from baseline │ 0 " in res.stderr
    fingerprints = {r["config"]["judge_fingerprint"] for r in _rows(tmp_path / "w10.jsonl")}
    assert len(fingerprints) == 1 and fingerprints.isdisjoint(r["config"]["judge_fingerprint"] for r in _rows(prev))


def test_error_lines_failed_calls_and_rows_without_a_fingerprint_are_audited_again(tmp_path, prev):
    rows = _rows(prev)
    rows[0] = {"id": rows[0]["id"], "index": 0, "error": {"field": None, "message": "boom", "kind": "internal"}}
    rows[1]["errors"] = [{"field": None, "message": "decomposition fell back", "kind": "backend"}]
    del rows[2]["config"]["judge_fingerprint"]
    baseline = _write(tmp_path / "damaged.jsonl", rows)
    auditor = Counting()
    summary = run_batch(_rows(RECORDS), auditor, tmp_path / "out.jsonl", baseline=read_baseline(baseline))
    assert auditor.audited == ["paper-figure-1", "qa-clean", "qa-number-conflict"] and summary.reused == 3
    # audited again, the same verdicts (the lexical judge is deterministic); only the timings differ
    assert [{**r, "usage": None} for r in _rows(tmp_path / "out.jsonl")] == [{**r, "usage": None} for r in _rows(prev)]


def test_baseline_with_resume_appends_the_rest_from_the_baseline(tmp_path, prev):
    out = tmp_path / "out.jsonl"
    out.write_text("".join(prev.read_text().splitlines(keepends=True)[:2]))
    res = _audit(str(RECORDS), "-o", str(out), "--resume", "--baseline", str(prev))
    assert res.exit_code == 0, res.output
    assert out.read_bytes() == prev.read_bytes()
    assert "6 (+2 already done)" not in res.stderr and "│ records              │ 4 (+2 already done)" in res.stderr
    assert "│ audited              │ 0 " in res.stderr


def test_baseline_usage_errors(tmp_path, prev):
    res = _audit(str(RECORDS), "-o", str(prev), "--baseline", str(prev))
    assert res.exit_code == 2 and "is the baseline" in res.output
    res = _audit(str(RECORDS), "-o", str(tmp_path / "out.jsonl"), "--baseline", str(RECORDS))  # not results
    assert res.exit_code == 2
    assert f"{RECORDS} is an input file" in res.stderr and "run rt4chart audit first" in res.stderr
    with pytest.raises(ConfigError, match="fingerprint"):
        run_batch(_rows(RECORDS), Auditor(judge=LexicalJudge()), tmp_path / "x.jsonl", baseline=read_baseline(prev))
