"""The worked example of docs/diff.md: audit, audit again with --baseline, diff with a gate."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rt4chart.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_readme_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("records.jsonl", "records_v2.jsonl"):
        (tmp_path / "examples").mkdir(exist_ok=True)
        (tmp_path / "examples" / name).write_bytes((ROOT / "examples" / name).read_bytes())
    runner = CliRunner()
    res = runner.invoke(main, "audit examples/records.jsonl -o before.jsonl --judge lexical".split())
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ("audit examples/records_v2.jsonl -o after.jsonl --baseline before.jsonl "
                               "--judge lexical").split())
    assert res.exit_code == 0, res.output
    assert "│ audited              │ 4 " in res.stderr and "│ reused from baseline │ 2 " in res.stderr
    res = runner.invoke(main, ("diff before.jsonl after.jsonl -o diff.html --json diff.json "
                               "--fail-on new-hallucinations").split())
    assert res.exit_code == 3, res.output
    doc = json.loads(Path("diff.json").read_text())
    assert {k: v for k, v in doc["counts"].items() if v} == {
        "newly_hallucinated": 1, "fixed": 2, "still_hallucinated": 2, "only_before": 1, "only_after": 1,
        "answer_changed": 3, "unchanged": 2}
    assert (doc["rate"]["before"], doc["rate"]["after"]) == (0.8, 0.6)
    assert [r["id"] for r in doc["records"] if r["status"] == "newly_hallucinated"] == ["qa-clean"]
    assert "newly hallucinated qa-clean" in res.stderr and Path("diff.html").stat().st_size > 10_000
