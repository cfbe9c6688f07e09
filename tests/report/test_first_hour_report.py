"""Issue 42 item 3: `rt4chart report` given the input file, not the results, exits 2 saying what the file is."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rt4chart.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "records.jsonl"


def test_report_of_an_input_file_is_an_error_that_says_to_run_audit_first(tmp_path):
    res = CliRunner().invoke(main, ["report", str(EXAMPLES), "-o", str(tmp_path / "wrong.html")])
    assert res.exit_code == 2, res.output
    assert "is an input file" in res.output and "run rt4chart audit first" in res.output
    assert not (tmp_path / "wrong.html").exists()


def test_report_of_a_csv_input_or_other_json_says_what_the_file_looks_like(tmp_path):
    csv = tmp_path / "answers.csv"
    csv.write_text("id,passage,question,response\n1,C.,Q?,A.\n")
    res = CliRunner().invoke(main, ["report", str(csv), "-o", str(tmp_path / "a.html")])
    assert res.exit_code == 2 and "is not a results file: line 1 is not valid JSON" in res.output
    csv.write_text("id,context,answer\n1,C.,A.\n")
    res = CliRunner().invoke(main, ["report", str(csv), "-o", str(tmp_path / "a.html")])
    assert res.exit_code == 2 and "is an input file (CSV" in res.output
    other = tmp_path / "estimate.jsonl"
    other.write_text(json.dumps({"setting": "x", "calls": 3}) + "\n")
    res = CliRunner().invoke(main, ["report", str(other), "-o", str(tmp_path / "b.html")])
    assert res.exit_code == 2 and "not a results file" in res.output and "setting, calls" in res.output


def test_report_of_results_still_works_and_counts_in_words(tmp_path):
    out = tmp_path / "results.jsonl"
    assert CliRunner().invoke(main, ["audit", str(EXAMPLES), "-o", str(out), "--judge", "lexical", "-q"]).exit_code == 0
    res = CliRunner().invoke(main, ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert res.exit_code == 0, res.output
    assert "6 records" in res.output and "0 errors" in res.output
    one = tmp_path / "one.jsonl"
    one.write_text(out.read_text().splitlines()[0] + "\n")
    assert "1 record," in CliRunner().invoke(main, ["report", str(one), "-o", str(tmp_path / "o.html")]).output
