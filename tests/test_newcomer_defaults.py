"""Defaults that are the default: ``Auditor()`` with no judge audits with the offline default, the judges are
exported where users look, the pytest plugin judges with the default judge, ``-o -`` is stdout for the commands
that write results, and the hybrid judge without a model names ``--gguf``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import rt4chart
from rt4chart import testing
from rt4chart.cli import main
from rt4chart.errors import ConfigError

CONTEXT = "The free trial lasts 14 days from the date of activation."


def test_an_auditor_without_a_judge_uses_the_offline_default():
    auditor = rt4chart.Auditor()
    assert isinstance(auditor.judge, rt4chart.LocalJudge)
    assert type(auditor.judge) is type(rt4chart.default_judge())
    result = asyncio.run(auditor.audit({"id": 1, "context": CONTEXT, "answer": "The free trial lasts 30 days."}))
    assert result.label.value == "contradicted"


def test_the_judges_are_exported_from_the_package():
    for name in ("LocalJudge", "LexicalJudge", "LLMJudge", "HybridJudge", "make_judge", "default_judge"):
        assert name in rt4chart.__all__ and getattr(rt4chart, name) is not None, name
    assert rt4chart.LocalJudge.__module__ == "rt4chart.judges.local.judge"
    judge, _ = rt4chart.make_judge("lexical")
    assert isinstance(judge, rt4chart.LexicalJudge)
    with pytest.raises(AttributeError):
        rt4chart.NoSuchJudge  # noqa: B018 - the module hook must not invent names


def test_the_pytest_plugin_judges_with_the_default_judge():
    assert testing.DEFAULT_JUDGE == "local"
    result = testing.assert_grounded("The free trial lasts 14 days.", CONTEXT)
    assert result.judge == "local"


def test_audit_dash_o_dash_writes_the_results_to_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "r1", "context": CONTEXT, "answer": "The free trial lasts 30 days."}) + "\n")
    out = CliRunner().invoke(main, ["audit", str(records), "-o", "-", "--judge", "lexical", "-q"])
    assert out.exit_code == 0, out.output
    assert not (tmp_path / "-").exists()
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [line["id"] for line in lines] == ["r1"] and lines[0]["label"] == "contradicted"


def test_report_dash_o_dash_writes_the_page_to_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "r1", "context": CONTEXT, "answer": "The free trial lasts 14 days."}) + "\n")
    results = tmp_path / "results.jsonl"
    assert CliRunner().invoke(main, ["audit", str(records), "-o", str(results), "--judge", "lexical",
                                     "-q"]).exit_code == 0
    out = CliRunner().invoke(main, ["report", str(results), "-o", "-"])
    assert out.exit_code == 0, out.output
    assert out.stdout.lstrip().lower().startswith("<!doctype html") and not (tmp_path / "-").exists()


def test_diff_dash_o_dash_writes_the_page_to_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    runs = []
    for answer in ("The free trial lasts 14 days.", "The free trial lasts 30 days."):
        records = tmp_path / "records.jsonl"
        records.write_text(json.dumps({"id": "r1", "context": CONTEXT, "answer": answer}) + "\n")
        runs.append(tmp_path / f"run{len(runs)}.jsonl")
        assert CliRunner().invoke(main, ["audit", str(records), "-o", str(runs[-1]), "--judge", "lexical",
                                         "-q"]).exit_code == 0
    out = CliRunner().invoke(main, ["diff", str(runs[0]), str(runs[1]), "-o", "-", "-q"])
    assert out.exit_code == 0, out.output
    assert out.stdout.lstrip().lower().startswith("<!doctype html") and not (tmp_path / "-").exists()


def test_the_hybrid_judge_without_a_model_names_gguf():
    with pytest.raises(ConfigError, match="--gguf"):
        rt4chart.make_judge("hybrid")
