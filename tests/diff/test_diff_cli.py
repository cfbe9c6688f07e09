"""``rt4chart diff`` end to end: outputs, ``--fail-on`` rules that trip and pass, exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from diff_helpers import EXPECTED, rate_runs, two_runs

from rt4chart.cli import main

EXIT_OK, EXIT_USAGE, EXIT_TRIPPED = 0, 2, 3


def _diff(*args):
    return CliRunner().invoke(main, ["diff", *map(str, args)])


def test_json_html_and_console_summary(tmp_path):
    before, after = two_runs(tmp_path)
    res = _diff(before, after, "--json", tmp_path / "diff.json", "-o", tmp_path / "diff.html")
    assert res.exit_code == EXIT_OK, res.output
    doc = json.loads((tmp_path / "diff.json").read_text())
    assert doc["counts"]["newly_hallucinated"] == 1 and doc["rules"] == []
    assert {r["id"]: (r["status"], r["change"]) for r in doc["records"]} == EXPECTED
    html = (tmp_path / "diff.html").read_text()
    assert html.startswith("<!doctype html>") and "<img src=x" not in html  # ids travel as escaped JSON
    assert "newly hallucinated │ 1" in res.stderr and "newly hallucinated newly" in res.stderr
    assert "contradicted: The free trial lasts 30 days." in res.stderr
    stdout = _diff(before, after, "--json", "-", "-q")
    assert stdout.exit_code == EXIT_OK and json.loads(stdout.stdout)["counts"] == doc["counts"]
    assert stdout.stderr == ""


def test_new_hallucinations_trips_on_a_regression_and_passes_on_the_same_run(tmp_path):
    before, after = two_runs(tmp_path)
    res = _diff(before, after, "--fail-on", "new-hallucinations", "--json", tmp_path / "d.json")
    assert res.exit_code == EXIT_TRIPPED, res.output
    assert "new-hallucinations: 1 newly hallucinated -> TRIPPED" in res.stderr
    assert json.loads((tmp_path / "d.json").read_text())["rules"] == [
        {"rule": "new-hallucinations", "kind": "new-hallucinations", "limit": 0.0, "value": 1, "tripped": True}]
    assert _diff(before, before, "--fail-on", "new-hallucinations").exit_code == EXIT_OK


@pytest.mark.parametrize("rule, code", [
    ("rate:+0.02", EXIT_OK),        # 10 -> 11 of 50 answers: the rate rose by exactly 0.02
    ("rate:0.02", EXIT_OK),
    ("rate:+0.019", EXIT_TRIPPED),
    ("rate:0", EXIT_TRIPPED),
    ("rate:-0.01", EXIT_TRIPPED),   # a drop of 1 point was asked for
])
def test_rate_rule_at_its_boundary(tmp_path, rule, code):
    before, after = rate_runs(tmp_path, 50, 10, 11)
    res = _diff(before, after, "--fail-on", rule)
    assert res.exit_code == code, res.output
    assert _diff(after, before, "--fail-on", rule).exit_code == EXIT_OK  # the reverse: the rate fell by 0.02


def test_rate_rule_trips_when_no_record_is_in_both_runs(tmp_path):
    before, _ = rate_runs(tmp_path, 3, 0, 0)
    other = tmp_path / "other.jsonl"
    other.write_text(before.read_text().replace('"id": "r', '"id": "x'))
    res = _diff(before, other, "--fail-on", "rate:+0.5")
    assert res.exit_code == EXIT_TRIPPED and "no record in both runs -> TRIPPED" in res.stderr


@pytest.mark.parametrize("rule, code", [("flips:4", EXIT_OK), ("flips:3", EXIT_TRIPPED), ("flips:0", EXIT_TRIPPED)])
def test_flips_rule(tmp_path, rule, code):
    before, after = two_runs(tmp_path)  # four claims change label
    assert _diff(before, after, "--fail-on", rule).exit_code == code


def test_every_rule_is_checked_and_any_one_trips(tmp_path):
    before, after = two_runs(tmp_path)
    res = _diff(before, after, "--fail-on", "flips:10", "--fail-on", "rate:+0.1", "--json", tmp_path / "d.json")
    assert res.exit_code == EXIT_OK
    res = _diff(before, after, "--fail-on", "flips:10", "--fail-on", "flips:1", "--json", tmp_path / "d.json")
    assert res.exit_code == EXIT_TRIPPED
    assert [r["tripped"] for r in json.loads((tmp_path / "d.json").read_text())["rules"]] == [False, True]


@pytest.mark.parametrize("rule, message", [
    ("new-hallucination", "unknown rule"), ("rate:+two", "a fraction between -1 and 1"), ("rate:", "unknown rule"),
    ("flips:-1", "a whole number"), ("flips:1.5", "a whole number"),
])
def test_bad_rules_are_usage_errors(tmp_path, rule, message):
    before, after = two_runs(tmp_path)
    res = _diff(before, after, "--fail-on", rule)
    assert res.exit_code == EXIT_USAGE and message in res.output


def test_bad_files_are_usage_errors_naming_file_line_and_field(tmp_path):
    before, after = two_runs(tmp_path)
    assert _diff(before, tmp_path / "missing.jsonl").exit_code == EXIT_USAGE
    lines = after.read_text().splitlines()
    lines[2] = lines[2].replace('"hallucinated": false', '"hallucinated": "maybe"')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    res = _diff(before, bad, "--fail-on", "new-hallucinations")
    assert res.exit_code == EXIT_USAGE
    assert f"record '{bad} line 3', field 'hallucinated'" in " ".join(res.stderr.split())  # rich wraps lines


def test_help_documents_the_exit_codes():
    res = CliRunner().invoke(main, ["diff", "--help"])
    assert "3 a --fail-on rule tripped" in " ".join(res.output.split())
    assert "diff" in CliRunner().invoke(main, ["--help"]).output
