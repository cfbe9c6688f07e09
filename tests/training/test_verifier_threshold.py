"""rt4chart_training.verifier.threshold: the loto run's pooled answer threshold becomes the card's entailment
threshold, with its provenance; the model files' hashes are untouched."""

from __future__ import annotations

import json

import pytest

from rt4chart_training.verifier import threshold


def _loto(tmp_path, chosen):
    report = {"config": {"command": "python3 -m rt4chart_training.verifier.loto --pool local-validation",
                         "pool": "local-validation", "per_task": 300},
              "sample": {"scored": 900},
              "rows": [{"task": t, "threshold": 0.4, "auroc": 0.8, "auroc_uncovered": 0.7, "f1": 0.6,
                        "f1_always": 0.5, "passes": True} for t in ("qa", "summary", "data2txt")],
              "threshold_all_tasks": chosen}
    path = tmp_path / "loto.json"
    path.write_text(json.dumps(report))
    return path


def test_entailment_threshold_flags_the_same_answers():
    t = threshold.entailment_threshold(0.35)
    # a claim with 1 - P(entailment) = 0.35 reaches the answer threshold: its P(entailment) = 0.65 must be below t
    assert 0.65 < t < 0.6501
    with pytest.raises(ValueError):
        threshold.entailment_threshold(0.0)


def test_the_card_gets_the_threshold_and_its_source(tmp_path):
    card = {"files": {"verifier.onnx": "abc"}, "thresholds": {"contradiction": 0.6}}
    (tmp_path / "verifier.json").write_text(json.dumps(card))
    assert threshold.main(["--loto", str(_loto(tmp_path, 0.25)), "--model", str(tmp_path)]) == 0
    got = json.loads((tmp_path / "verifier.json").read_text())
    assert got["thresholds"]["contradiction"] == 0.6
    assert got["thresholds"]["entailment"] == pytest.approx(0.75, abs=1e-5)
    assert got["files"] == card["files"]
    assert got["selection"]["answer_threshold"] == 0.25 and len(got["selection"]["loto"]) == 3


def test_a_per_task_run_has_no_pooled_threshold(tmp_path):
    (tmp_path / "verifier.json").write_text("{}")
    with pytest.raises(SystemExit, match="threshold_all_tasks"):
        threshold.main(["--loto", str(_loto(tmp_path, None)), "--model", str(tmp_path)])
