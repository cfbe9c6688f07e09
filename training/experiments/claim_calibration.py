"""Reliability table of a judge's claim scores against RAGTruth gold spans, from an ``rt4chart eval run`` folder.

    rt4chart eval run --dataset ragtruth --split test --judge local -o runs/local-ship -q
    python3 -m training.experiments.claim_calibration runs/local-ship [--split test]

A claim counts as gold-hallucinated by ``training.splits.claim_is_hallucinated`` (gold spans cover a
quarter of its answer span or 12 characters: the rule the judge trains on). Prints claims, mean score and observed
rate per score bin, and the expected calibration error (ECE) over those bins. Claims without a score (unverified)
are left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rt4chart.eval.datasets import load_ragtruth

from ..splits import claim_is_hallucinated, data_dir

EDGES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="an eval run folder holding results.jsonl")
    ap.add_argument("--split", default="test")
    args = ap.parse_args()
    gold = {r.id: r for r in load_ragtruth(args.split, data_dir=data_dir())}
    pairs: list[tuple[float, bool]] = []
    for line in (args.run / "results.jsonl").open():
        result = json.loads(line)
        record = gold.get(result.get("id"))
        if record is None:
            continue
        for claim in result.get("claims") or ():
            if claim.get("score") is None or not claim.get("answer_spans"):
                continue
            span = claim["answer_spans"][0]
            pairs.append((float(claim["score"]), claim_is_hallucinated(span["start"], span["end"], record.spans)))
    if not pairs:
        sys.exit(f"no scored claims in {args.run / 'results.jsonl'}")
    print("| claim score bin | claims | mean score | observed hallucinated rate |")
    print("|---|---:|---:|---:|")
    ece = 0.0
    for lo, hi in zip(EDGES, EDGES[1:]):
        inside = [(q, y) for q, y in pairs if lo <= q < hi or (hi == 1.0 and q == 1.0)]
        if not inside:
            continue
        mean_q = sum(q for q, _ in inside) / len(inside)
        rate = sum(y for _, y in inside) / len(inside)
        ece += len(inside) / len(pairs) * abs(mean_q - rate)
        print(f"| [{lo:.2f}, {hi:.2f}{']' if hi == 1.0 else ')'} | {len(inside)} | {mean_q:.3f} | {rate:.3f} |")
    base = sum(y for _, y in pairs) / len(pairs)
    print(f"\n{len(pairs)} scored claims, base rate {base:.3f}, ECE {ece:.4f}")


if __name__ == "__main__":
    main()
