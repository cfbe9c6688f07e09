#!/usr/bin/env python3
"""Per-answer latency of the trained offline judge vs the lexical judge, through the full RT4CHART pipeline.

    python3 benchmarks/local_judge_speed.py [--records 300] [--threads 2]

Audits the same RAGTruth test records one at a time (W=25, O=10, global verification on, rule decomposer) with each
judge and prints median / p95 / mean milliseconds per answer and the ratio to the lexical judge: the lexical judge,
the local judge's trees alone (``semantic=False``) and the default local judge (trees, plus the MiniLM tagger and its
tree pair at global verification). Records are spread over
the three tasks; the lexical judge runs first, so the sentence-index caches both judges share are warm for neither
(each record's context is indexed again for each judge: the caches hold the last 64 texts).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rt4chart.audit.auditor import Auditor  # noqa: E402
from rt4chart.eval.datasets import load_ragtruth  # noqa: E402
from rt4chart.judges.lexical import LexicalJudge  # noqa: E402
from rt4chart.judges.local import LocalJudge, is_available  # noqa: E402


def pick(n: int) -> list[dict]:
    records = load_ragtruth("test")
    by_task: dict[str, list] = {}
    for r in records:
        by_task.setdefault(r.task, []).append(r)
    out = []
    i = 0
    while len(out) < n:
        for task in sorted(by_task):
            if i < len(by_task[task]) and len(out) < n:
                out.append(by_task[task][i].to_record())
        i += 1
    return out


def timed(auditor: Auditor, records: list[dict]) -> list[float]:
    async def go() -> list[float]:
        times = []
        for rec in records:
            t0 = time.perf_counter()
            await auditor.audit(rec)
            times.append((time.perf_counter() - t0) * 1000)
        return times

    return asyncio.run(go())


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model-dir", type=Path, default=None, help="model folder (default: the packaged model)")
    args = ap.parse_args()
    if args.model_dir is None and not is_available():
        sys.exit("the local judge model is not installed (pass --model-dir to time a model elsewhere)")
    records = pick(args.records)
    rows = []
    lexical = timed(Auditor(judge=LexicalJudge()), records)
    trees = timed(Auditor(judge=LocalJudge(threads=args.threads, directory=args.model_dir, semantic=False)),
                  records)
    full = LocalJudge(threads=args.threads, directory=args.model_dir)
    local = timed(Auditor(judge=full), records)
    timings = [("lexical", lexical), ("local, trees only (semantic=False)", trees)]
    if full.semantic:
        timings.append(("local (default: trees + MiniLM tagger at global verification)", local))
    for name, xs in timings:
        rows.append((name, statistics.median(xs), pct(xs, 0.95), statistics.mean(xs)))
    print(f"{len(records)} RAGTruth test answers, one at a time, {args.threads} inference threads\n")
    print("| judge | median ms | p95 ms | mean ms | median vs lexical |")
    print("|---|---:|---:|---:|---:|")
    base = rows[0][1]
    for name, med, p95, mean in rows:
        print(f"| {name} | {med:.1f} | {p95:.1f} | {mean:.1f} | {med / base:.1f}x |")


if __name__ == "__main__":
    main()
