"""Issue 42 item 3: `rt4chart diff` given an input file, not results, exits 2 saying what the file is."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rt4chart.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "records.jsonl"


def test_diff_of_an_input_file_says_to_run_audit_first(tmp_path):
    results = tmp_path / "results.jsonl"
    assert CliRunner().invoke(main, ["audit", str(EXAMPLES), "-o", str(results), "--judge", "lexical",
                                     "-q"]).exit_code == 0
    for before, after in ((EXAMPLES, results), (results, EXAMPLES)):
        res = CliRunner().invoke(main, ["diff", str(before), str(after)])
        assert res.exit_code == 2, res.output
        assert f"{EXAMPLES} is an input file" in res.output and "run rt4chart audit first" in res.output
        assert "Field required" not in res.output  # not pydantic's words
    assert CliRunner().invoke(main, ["diff", str(results), str(results), "-q"]).exit_code == 0
