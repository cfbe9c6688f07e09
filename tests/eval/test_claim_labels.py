"""eval.runner.claim_labels: the claim labels of audit results, overall and per task, with the unverified rate."""

import json

from rt4chart.eval.datasets import EvalRecord
from rt4chart.eval.runner import claim_labels


def _rec(i, task):
    return EvalRecord(id=str(i), context="c", question=None, answer="a", task=task, group=f"g{i}", hallucinated=False,
                      spans=())


def test_counts_and_rates(tmp_path):
    rows = [{"id": "1", "claims": [{"label": "entailed"}, {"label": "unverified"}]},
            {"id": "2", "claims": [{"label": "baseless"}]},
            {"id": "3", "claims": []},
            {"id": "4", "error": {"kind": "input", "message": "bad"}}]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    got = claim_labels(path, [_rec(1, "qa"), _rec(2, "summary"), _rec(3, "qa"), _rec(4, "qa")])
    assert got["all"] == {"answers": 3, "answers_without_claims": 1, "claims": 3, "entailed": 1, "unverified": 1,
                          "baseless": 1, "unverified_rate": 0.3333}
    assert got["qa"]["claims"] == 2 and got["qa"]["unverified_rate"] == 0.5 and got["qa"]["answers"] == 2
    assert got["summary"] == {"answers": 1, "answers_without_claims": 0, "claims": 1, "baseless": 1,
                              "unverified_rate": 0.0}
