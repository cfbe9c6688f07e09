#!/usr/bin/env python3
"""How often the local judge's semantic stage can be skipped: on the validation slice of RAGTruth train, the answer
decisions of the trees alone, of the semantic stage, and of the cascade that runs the tagger only when the trees
alone put some claim at or above ``lo`` (their calibrator's answer risk; or a rule fires), for several ``lo``.

    python3 scripts/semantic_cascade.py        # about 2.5 minutes on 2 threads

Claims come from the rule decomposer and are read against the whole context, as at global verification.
Chooses nothing by itself: ``rt4chart.judges.local.SKIP_TAGGER_BELOW`` was set from its output.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from rt4chart.audit.decompose import RuleDecomposer  # noqa: E402
from rt4chart.eval.metrics import answer_prf  # noqa: E402
from rt4chart.judges import local as L  # noqa: E402
from train_local_tagger import validation_records  # noqa: E402


def main() -> None:
    records = validation_records()
    judge = L.LocalJudge(threads=2)
    models, dec = judge._models, RuleDecomposer()
    t_trees, t_sem = judge._cuts[False][0], judge._cuts[True][0]
    risk, trees, semantic, gold = [], [], [], []
    for r in records:
        claims = dec.decompose_sync(r.answer)
        gold.append(r.hallucinated)
        if not claims:
            risk.append(0.0)
            trees.append(False)
            semantic.append(False)
            continue
        rows = judge.rows(claims, r.context, r.question)
        spared = L.exempt(claims, rows, r.context)
        _, q0, rule0 = models.predict(rows, spared=spared)
        _, q1, rule1 = models.predict(rows, judge.tag(claims, r.context, r.question, rows), spared=spared)
        risk.append(float(q0.max()))
        trees.append(bool((rule0 | (q0 >= t_trees)).any()))
        semantic.append(bool((rule1 | (q1 >= t_sem)).any()))
    risk_a, trees_a, sem_a, gold_a = map(np.array, (risk, trees, semantic, gold))
    print(f"{len(records)} validation answers")
    print("| decision | tagger skipped | P | R | F1 |\n|---|---:|---:|---:|---:|")
    for name, pred, skipped in (("trees alone", trees_a, 1.0), ("semantic stage on every answer", sem_a, 0.0)):
        a = answer_prf(gold_a, pred)
        print(f"| {name} | {skipped:.1%} | {a.precision:.4f} | {a.recall:.4f} | {a.f1:.4f} |")
    for lo in (0.10, 0.14, 0.16, 0.18, 0.20, 0.22, 0.24, 0.26, 0.28, 0.30, 0.34):
        skip = (risk_a < lo) & ~trees_a
        a = answer_prf(gold_a, np.where(skip, trees_a, sem_a))
        print(f"| cascade, lo = {lo:.2f} | {skip.mean():.1%} | {a.precision:.4f} | {a.recall:.4f} | {a.f1:.4f} |")


if __name__ == "__main__":
    main()
