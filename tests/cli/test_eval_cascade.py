"""``rt4chart eval run --gate-accept``: the gate cascade's savings and what it gives up, on a hand-made folder."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.eval.datasets import load_ragtruth

from test_eval import data_dir  # noqa: F401  (fixture: a tiny RAGTruth folder)


def test_cascade_accepts_lowest_risk_and_reports_what_it_missed(data_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["eval", "run", "--dataset", "ragtruth", "--split", "test", "--judge", "lexical",
                                    "--gate-accept", "0.5", "--no-baselines", "--bootstrap", "20", "-o", str(out),
                                    "-q"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "metrics.json").read_text())
    c = report["cascade"]
    results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    accepted = [r for r in results if r["routed"] == "accepted"]
    assert c["records"] == len(results) == 18
    assert c["accepted_without_judge"] == len(accepted) == 9 and c["judge_records_saved"] == 0.5
    gold = {r.id: r.hallucinated for r in load_ragtruth("test", root=data_dir)}
    missed = sum(gold[str(r["id"])] for r in accepted)
    assert c["gold_hallucinated_accepted"] == missed
    assert c["recall_ceiling"] == round(1 - missed / sum(gold.values()), 4)
    preds = {p["id"]: p for p in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}
    assert all(preds[str(r["id"])]["hallucinated"] is False for r in accepted)
