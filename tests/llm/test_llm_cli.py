"""End to end: ``rt4chart audit --judge llm`` on the paper example against the scripted server, then from cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from paper_server import paper_judge

from rt4chart.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper_example.jsonl"


@pytest.mark.parametrize("granularity", ["per-claim", "batched"])
def test_cli_audit_with_llm_judge_then_rerun_from_cache(serve, tmp_path, monkeypatch, granularity):
    server = serve(paper_judge)
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["audit", str(EXAMPLE), "--judge", "llm", "--base-url", server.base_url, "--model", "fake-model",
            "-W", "2", "-O", "1", "--granularity", granularity, "--decomposition", "sentence",
            "--price-in", "0.15", "--price-out", "0.6", "-q"]
    first = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "a.jsonl")])
    assert first.exit_code == 0, first.output
    calls = len(server.requests)
    (rec,) = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert rec["label"] == "contradicted"
    assert [c["label"] for c in rec["claims"]] == ["contradicted", "contradicted", "entailed", "entailed", "baseless"]
    assert rec["usage"]["calls"] == calls and rec["usage"]["cost_usd"] > 0
    assert (tmp_path / "cache" / "llm-cache.sqlite3").exists()

    second = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "b.jsonl")])
    assert second.exit_code == 0, second.output
    assert len(server.requests) == calls  # served entirely from the cache
    (again,) = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert again["usage"]["calls"] == 0
    assert [c["label"] for c in again["claims"]] == [c["label"] for c in rec["claims"]]
