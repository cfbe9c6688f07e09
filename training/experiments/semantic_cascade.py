"""How often the local judge's semantic stage can be skipped: on the validation slice of RAGTruth train, the answer
decisions of the trees alone, of the semantic stage, and of the cascade that runs the tagger only when the trees
alone put some claim at or above ``lo`` (their calibrator's answer risk; or a rule fires), for several ``lo``.

    python3 -m training.experiments.semantic_cascade        # about 2.5 minutes on 2 threads

Claims come from the rule decomposer and are read against the whole context, as at global verification.
Chooses nothing by itself: ``rt4chart.judges.local.rules.SKIP_TAGGER_BELOW`` was set from its output.
"""

from __future__ import annotations

import argparse

import numpy as np

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.metrics import answer_prf
from rt4chart.judges import local as L

from ..splits import validation_records


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
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
        evidence = judge.evidence(r.context)  # read once, for the rows, the rules and the tagger
        rows = judge.rows(claims, evidence, r.question)
        spared = L.exempt(claims, rows, evidence)
        _, q0, rule0 = models.predict(rows, spared=spared)
        _, q1, rule1 = models.predict(rows, judge.tag(claims, evidence, r.question, rows), spared=spared)
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
