"""The gate → judge cascade on RAGTruth test: accept the lowest-risk fraction unjudged, judge the rest.

    python3 -m benchmarks.gate_cascade [--judge lexical] [--limit N] [--data-root DIR]

The shipped RAGScope-E gate (fitted on RAGTruth train; the test split is group-disjoint from it) scores every test
record; the judge (in an ``Auditor`` from ``rt4chart.judges.registry.build_auditor``, as the CLI builds it) audits
every record once, and each cascade row combines the two: records among the lowest-risk ``accept`` fraction are
predicted faithful without a judge call, the others keep the judge's verdict. Judge errors count as "not
hallucinated" predictions here only for scoring and are reported. Positive class = hallucinated; "missed by
accepting" counts gold-unfaithful records that were accepted. A random-acceptance row (mean of 20 seeds) at 50%
shows what the ranking buys.
"""

from __future__ import annotations

import argparse
import os
import asyncio
import math
import time

import numpy as np

from rt4chart.audit.auditor import Auditor
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.eval.metrics import answer_prf
from rt4chart.gate import load_default_gate
from rt4chart.judges.registry import build_auditor

ACCEPT = (0.0, 0.3, 0.5, 0.7)


async def _judge_all(auditor: Auditor, X: list[dict]) -> tuple[np.ndarray, int, float]:
    pred = np.zeros(len(X), dtype=bool)
    errors = 0
    t0 = time.perf_counter()
    async for index, result, _ in auditor.audit_many(enumerate(X)):
        if hasattr(result, "hallucinated"):
            pred[index] = bool(result.hallucinated)
        else:
            errors += 1
    return pred, errors, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="lexical")
    parser.add_argument("--limit", type=int, default=None, help="first N records only (smoke runs)")
    parser.add_argument("--data-root", default=None,
                        help="RAGTruth folder (default: found via $RT4CHART_DATA_DIR or shared/data)")
    args = parser.parse_args()

    recs = load_ragtruth("test", root=args.data_root, data_dir=os.environ.get(ENV_DATA_DIR))[: args.limit]
    X = [r.to_record() for r in recs]
    y = np.array([r.hallucinated for r in recs])
    tasks = np.array([r.task for r in recs])
    gate = load_default_gate()
    t0 = time.perf_counter()
    risk = gate.predict_proba(X)[:, 1]
    gate_s = time.perf_counter() - t0
    judged, errors, judge_s = asyncio.run(_judge_all(build_auditor(args.judge), X))

    n = len(X)
    order = np.argsort(risk, kind="stable")
    print(f"Cascade on RAGTruth test: {n} records (positive rate {y.mean():.3f}), judge={args.judge} "
          f"({judge_s / n * 1000:.1f} ms/record, {errors} judge errors), RAGScope-E gate {gate_s / n * 1000:.2f} "
          "ms/record")
    print()
    print("| accept | judge calls | calls saved | missed by accepting | precision | recall | F1 | recall lost |")
    print("|---|---|---|---|---|---|---|---|")
    base = answer_prf(y, judged)
    for a in ACCEPT:
        accepted = np.zeros(n, dtype=bool)
        accepted[order[: math.ceil(a * n - 1e-9)]] = True
        pred = judged & ~accepted
        m = answer_prf(y, pred)
        print(f"| {a:.0%} | {n - accepted.sum()} | {accepted.sum() / n:.1%} | {int((y & accepted).sum())} | "
              f"{m.precision:.3f} | {m.recall:.3f} | {m.f1:.3f} | {base.recall - m.recall:.3f} |")
    rng = np.random.default_rng(13)
    rand = []
    for _ in range(20):
        accepted = np.zeros(n, dtype=bool)
        accepted[rng.permutation(n)[: math.ceil(0.5 * n)]] = True
        rand.append(answer_prf(y, judged & ~accepted))
    print(f"| 50% random | {n - math.ceil(0.5 * n)} | 50.0% | – | {np.mean([m.precision for m in rand]):.3f} | "
          f"{np.mean([m.recall for m in rand]):.3f} | {np.mean([m.f1 for m in rand]):.3f} | "
          f"{base.recall - np.mean([m.recall for m in rand]):.3f} |")
    print()
    print("Per task at accept 50% (F1 judge alone → cascade):")
    accepted = np.zeros(n, dtype=bool)
    accepted[order[: math.ceil(0.5 * n)]] = True
    for t in dict.fromkeys(tasks.tolist()):
        m0 = answer_prf(y[tasks == t], judged[tasks == t])
        m1 = answer_prf(y[tasks == t], (judged & ~accepted)[tasks == t])
        print(f"  {t}: accepted {accepted[tasks == t].mean():.1%}, F1 {m0.f1:.3f} → {m1.f1:.3f}, "
              f"recall {m0.recall:.3f} → {m1.recall:.3f}")


if __name__ == "__main__":
    main()
