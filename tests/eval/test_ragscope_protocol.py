"""The RAGScope evaluation protocol: grouped folds, weighted operating points, a small end-to-end run, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from rt4chart.eval.studies.ragscope import ProtocolData, grouped_folds, render_markdown, run_protocol
from rt4chart.eval.studies.ragscope.intervals import _weighted_top_rate
from rt4chart.gate.routing import accepted_risk, review_precision


def test_grouped_folds_never_split_a_context_group(synth):
    _, y, groups, _ = synth
    folds = grouped_folds(y, groups)
    assert len(folds) == 5
    seen = np.concatenate([test for _, test in folds])
    assert sorted(seen.tolist()) == list(range(len(y)))
    for train, test in folds:
        assert not set(groups[train]) & set(groups[test])
    again = grouped_folds(y, groups)
    assert all((a[1] == b[1]).all() for a, b in zip(folds, again))


def test_weighted_operating_points_equal_the_expanded_dataset():
    rng = np.random.default_rng(0)
    y = rng.random(40) < 0.4
    s = rng.random(40)
    W = rng.integers(0, 3, size=(5, 40)).astype(float)
    for f in (0.1, 0.3):
        top = _weighted_top_rate(y, s, W, f, True)
        low = _weighted_top_rate(y, s, W, 0.5, False)
        for b in range(5):
            idx = np.repeat(np.arange(40), W[b].astype(int))
            assert top[b] == pytest.approx(review_precision(y[idx], s[idx], f))
            assert low[b] == pytest.approx(accepted_risk(y[idx], s[idx], 0.5))


def test_run_protocol_end_to_end_on_synthetic_data(synth):
    X, y, groups, tasks = synth
    data = ProtocolData(X, y, groups, tasks)
    result = run_protocol(data, n_boot=60, n_seeds=2, calibration_labels=(6, 10))
    ranking = result["ranking"]
    assert {"uncovered", "ROUGE-L", "RAGScope-Z", "RAGScope-C", "RAGScope-E"} <= set(ranking)
    for scorer in ranking.values():
        assert set(scorer) == {"qa", "summary", "data2txt", "macro", "combined"}
        point, lo, hi = scorer["combined"]["auroc"]
        assert lo <= point + 1e-9 and point <= hi + 1e-9
    # copied vs invented answers are easy: the learned gates rank them almost perfectly out of fold
    assert ranking["RAGScope-E"]["combined"]["auroc"][0] > 0.95
    # Z is the uncovered-token score, computed through the estimator
    np.testing.assert_allclose(result["scores"]["RAGScope-Z"], result["scores"]["uncovered"])
    assert set(result["deltas"]) == {"uncovered", "ROUGE-L"}
    assert set(result["operating_points"]["RAGScope-E"]["combined"]["review"]) == {
        "0.05", "0.10", "0.15", "0.20", "0.25", "0.30"}
    assert set(result["transfer"]) == {"qa", "summary", "data2txt"}
    assert set(result["calibration"]["macro"]) == {"zero-shot", "6", "10"}
    assert all(v > 0 for v in result["ms_per_example"].values())
    md = render_markdown(result)
    assert "| RAGScope-E |" in md and "Leave one task out" in md and "Target-only calibration" in md


def test_protocol_data_checks_lengths():
    with pytest.raises(ValueError):
        ProtocolData([{}], [True, False], ["g"], ["qa"])


def test_triage_eval_writes_json_and_markdown(tmp_path, monkeypatch, synth):
    from rt4chart.cli import triage as cli
    from rt4chart.eval.studies.ragscope import data

    X, y, groups, tasks = synth
    monkeypatch.setattr(data, "load_ragtruth_data", lambda split, **_: data.ProtocolData(X, y, groups, tasks))
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    res = CliRunner().invoke(cli.triage_group, ["eval", "--n-boot", "20", "--no-transfer", "--no-calibration",
                                                "--json", str(js), "--markdown", str(md)])
    assert res.exit_code == 0, res.output
    result = json.loads(js.read_text())
    assert result["n"] == len(X) and "transfer" not in result
    assert "| RAGScope-E |" in md.read_text()


def test_triage_keeps_the_gate_commands_beside_eval():
    from rt4chart.cli import main
    from rt4chart.cli import triage as cli

    assert set(cli.triage_group.commands) == {"route", "eval"}
    assert main.get_command(None, "triage") is cli.triage_group
