#!/usr/bin/env python3
"""Per-answer latency of the trained offline judge vs the lexical judge, through the full RT4CHART pipeline.

    python3 -m benchmarks.local_judge_speed [--records 300] [--threads 2] [--runs 3]   # from the repository root

Audits the same RAGTruth test records one at a time (W=25, O=10, global verification on, rule decomposer) with each
judge and prints median / p95 / mean milliseconds per answer and the ratio to the lexical judge: the lexical judge,
the local judge's trees alone (``semantic=False``) and the default local judge (trees, plus the MiniLM tagger and its
tree pair at global verification). Records are spread over the three tasks, in the split's order, so the six
answers to one context come one after another: the judges index a context (sentences, word keys, the tagger's
token ids) once per 64 texts and reuse it for the next answers, as a batch or an eval does. ``--distinct-contexts``
takes one answer per context, so that no answer finds its context ready (what a service answering new questions
pays). The lexical judge runs first, so the caches both judges share are warm for neither (each record's context
is indexed again for each judge: the caches hold the last 64 texts, so this holds from 64 records up). ``--runs N``
repeats the three passes N times and reports each judge's median over the runs, with every run's median beside it:
on a shared machine one run's median can be a few ms off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from rt4chart.audit.auditor import Auditor
from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.local import LocalJudge, is_available


def pick(n: int, distinct: bool = False) -> list[dict]:
    records = load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR) or None)
    by_task: dict[str, list] = {}
    seen: set[str] = set()
    for r in records:
        if distinct and r.context in seen:
            continue
        seen.add(r.context)
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
    ap.add_argument("--runs", type=int, default=1,
                    help="repeat the whole measurement this many times (each judge's figures are then its median "
                    "over the runs, each run's median listed beside it): single runs on a shared machine vary")
    ap.add_argument("--model-dir", type=Path, default=None, help="model folder (default: the packaged model)")
    ap.add_argument("--distinct-contexts", action="store_true",
                    help="one answer per context: no answer finds its context already indexed and tokenised by an "
                    "earlier one (RAGTruth has six answers per context, and by default they come one after another)")
    args = ap.parse_args()
    if args.model_dir is None and not is_available():
        sys.exit("the local judge model is not installed (pass --model-dir to time a model elsewhere)")
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    records = pick(args.records, args.distinct_contexts)
    full = LocalJudge(threads=args.threads, model_dir=args.model_dir)
    judges = [("lexical", Auditor(judge=LexicalJudge())),
              ("local, trees only (semantic=False)",
               Auditor(judge=LocalJudge(threads=args.threads, model_dir=args.model_dir, no_tagger=True)))]
    if full.semantic:
        judges.append(("local (default: trees + MiniLM tagger at global verification)", Auditor(judge=full)))
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in judges}
    for _ in range(args.runs):
        for name, auditor in judges:  # the lexical judge first in each run: the ratios compare within a run
            xs = timed(auditor, records)
            runs[name].append((statistics.median(xs), pct(xs, 0.95), statistics.mean(xs)))
    print(f"{len(records)} RAGTruth test answers" + (" with distinct contexts" if args.distinct_contexts else "")
          + f", one at a time, {args.threads} inference threads"
          + (f", {args.runs} runs (medians over the runs)" if args.runs > 1 else "") + "\n")
    print("| judge | median ms | p95 ms | mean ms | median vs lexical |" + (" medians per run |" if args.runs > 1
                                                                             else ""))
    print("|---|---:|---:|---:|---:|" + ("---|" if args.runs > 1 else ""))
    base = [r[0] for r in runs["lexical"]]
    for name, _ in judges:
        rs = runs[name]
        ratio = statistics.median(r[0] / b for r, b in zip(rs, base))
        row = (f"| {name} | {statistics.median(r[0] for r in rs):.1f} | {statistics.median(r[1] for r in rs):.1f} | "
               f"{statistics.median(r[2] for r in rs):.1f} | {ratio:.1f}x |")
        print(row + (f" {', '.join(f'{r[0]:.1f}' for r in rs)} |" if args.runs > 1 else ""))


if __name__ == "__main__":
    main()
