"""An offline judge's "entailed vs not" accuracy on samples of the shared NLI sets (measuring only)::

    python3 -m training.experiments.nli_entailed [--judge local] [--per-set 150] [--seed 0]
        [--sets snli/dev,anli/r1_dev,healthver/dev,conjnli/dev,wice/dev] [--nli-dir ../shared/data/nli]

Each pair is audited as a record (the premise the context, the hypothesis the answer, no question, one at a time
through ``rt4chart.Auditor``); the answer is entailed when every claim is. Gold: "entailment" against the rest
(contradiction, neutral, WiCE's partially_supported and not_supported). The sample is seeded and balanced over the
set's labels. Prints per set the accuracy, the share of gold-entailed pairs judged entailed, and of the others
judged not entailed.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
from pathlib import Path

from rt4chart.judges.registry import auditor_for

SETS = "snli/dev,anli/r1_dev,healthver/dev,conjnli/dev,wice/dev"


def sample(path: Path, per_set: int, seed: int) -> list[dict]:
    rows = [json.loads(line) for line in gzip.open(path, "rt")]
    labels = sorted({r["label"] for r in rows})
    rng = random.Random(seed)
    out = []
    for label in labels:
        pool = [r for r in rows if r["label"] == label]
        out += rng.sample(pool, min(len(pool), per_set // len(labels)))
    return out


async def judged(auditor, rows: list[dict]) -> list[bool]:
    out = []
    for r in rows:
        result = await auditor.audit({"id": "nli", "context": r["premise"], "answer": r["hypothesis"]})
        out.append(bool(result.claims) and all(c.label.value == "entailed" for c in result.claims))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", default="local")
    ap.add_argument("--per-set", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sets", default=SETS)
    ap.add_argument("--nli-dir", default="../shared/data/nli")
    args = ap.parse_args()
    auditor = auditor_for(args.judge)
    print("| set | pairs | accuracy | entailed kept | not-entailed caught |\n|---|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        rows = sample(Path(args.nli_dir) / f"{name}.jsonl.gz", args.per_set, args.seed)
        pred = asyncio.run(judged(auditor, rows))
        gold = [r["label"] == "entailment" for r in rows]
        right = sum(p == g for p, g in zip(pred, gold))
        pos = [p for p, g in zip(pred, gold) if g]
        neg = [not p for p, g in zip(pred, gold) if not g]
        print(f"| {name} | {len(rows)} | {right / len(rows):.3f} | {sum(pos)}/{len(pos)} | {sum(neg)}/{len(neg)} |",
              flush=True)


if __name__ == "__main__":
    main()
