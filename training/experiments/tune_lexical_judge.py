"""Choose the lexical judge's thresholds on the RAGTruth train split (never on test).

The sample: source-context groups of the train split drawn with a fixed seed until about ``--size`` answers
(every task, whole groups). Each answer is cut into claims by the rule decomposer; every claim is assessed once
against its full context (with global verification on, the lexical judge's final label is its judgment on the
full context, so the chunks do not change the answer label), and each grid point then only re-applies the decision
rules. The score is answer-level F1 over the sample (AND-join: any contradicted/baseless claim flags the answer),
ties broken by span-level F1. Prints the table (best first) and the chosen values, which are the defaults in
``rt4chart.judges.lexical.LexicalJudge``.

    nice -n 10 python3 -m training.experiments.tune_lexical_judge    # about a minute on one core
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections import Counter

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import TASKS, load_ragtruth
from rt4chart.eval.metrics import answer_prf, span_prf
from rt4chart.evidence import EvidenceIndex, assess
from rt4chart.judges.lexical import LexicalJudge

from ..splits import data_dir

#: ``match`` only decides contradicted vs baseless for a number mismatch (both flag the answer), so it is chosen
#: afterwards: among flagged claims that overlap a gold span, the balanced accuracy of the type (mean of the
#: recalls of gold contradicted and gold baseless), since plain accuracy would favour never saying contradicted.
MATCH = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9)
GRID = {
    "support": (0.3, 0.4, 0.5, 0.6, 0.7, 0.75),
    "negation": (0.6, 0.8, 1.0, None),
    "names": (True, False),
    "max_sentences": (1, 2, 3, 5),
}
FLAG = {"no-evidence", "number-conflict", "negation-conflict", "number-missing", "name-missing", "low-coverage"}


def sample(size: int, seed: int) -> list:
    records = load_ragtruth("train", data_dir=data_dir())
    groups: dict[tuple[str, str], list] = {}
    for r in records:
        groups.setdefault((r.task, r.group), []).append(r)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    out: list = []
    for k in keys:
        if len(out) >= size:
            break
        out.extend(groups[k])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1500, help="answers in the train sample (whole groups)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=25, help="rows of the table to print")
    args = ap.parse_args()

    started = time.perf_counter()
    records = sample(args.size, args.seed)
    decomposer = RuleDecomposer()
    kmax = max(GRID["max_sentences"])
    assessed = []
    for r in records:
        claims = decomposer.decompose_sync(r.answer)
        index = EvidenceIndex(r.context)
        assessed.append([(c, assess(c.text, index, r.question, kmax)) for c in claims])
    n_claims = sum(len(a) for a in assessed)
    print(f"train sample: {len(records)} answers ({sum(r.hallucinated for r in records)} hallucinated), "
          f"{n_claims} claims, seed {args.seed}; assessed in {time.perf_counter() - started:.0f} s")
    print("tasks: " + ", ".join(f"{t} {sum(r.task == t for r in records)}" for t in TASKS))

    gold = [r.hallucinated for r in records]
    gold_spans = [[(s.start, s.end) for s in r.spans] for r in records]
    rows = []
    for values in itertools.product(*GRID.values()):
        params = dict(zip(GRID, values))
        judge = LexicalJudge(**params)
        pred, spans = [], []
        for claims in assessed:
            flagged = [c for c, a in claims if judge.rule(a) in FLAG]
            pred.append(bool(flagged))
            spans.append([(s.start, s.end) for c in flagged for s in c.answer_spans])
        overall = answer_prf(gold, pred)
        per_task = {}
        for t in TASKS:
            idx = [i for i, r in enumerate(records) if r.task == t]
            per_task[t] = answer_prf([gold[i] for i in idx], [pred[i] for i in idx]).f1
        span = span_prf(gold_spans, spans)
        rows.append((overall.f1, span.f1, params, overall, per_task, sum(pred)))
    rows.sort(key=lambda row: (-round(row[0], 6), -row[1]))

    print()
    print("| support | negation | names | max_sentences | flagged | answer P | answer R | answer F1 | F1 qa | "
          "F1 summary | F1 data2txt | span F1 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    defaults = LexicalJudge()
    shown = rows[: args.top] + [row for row in rows[args.top:] if row[2] == {
        k: getattr(defaults, k) for k in GRID}]
    for f1, sf1, p, o, pt, n in shown:
        print(f"| {p['support']} | {p['negation']} | {p['names']} | {p['max_sentences']} | {n} | "
              f"{o.precision:.3f} | {o.recall:.3f} | {f1:.3f} | {pt['qa']:.3f} | {pt['summary']:.3f} | "
              f"{pt['data2txt']:.3f} | {sf1:.3f} |")
    best = rows[0][2]
    print()
    print("contradicted vs baseless, at the chosen values: flagged claims overlapping a gold span, by gold type")
    print("| match | gold contradicted -> contradicted | gold contradicted -> baseless | "
          "gold baseless -> contradicted | gold baseless -> baseless | balanced accuracy |")
    print("|---|---|---|---|---|---|")
    typed = []
    for match in MATCH:
        judge = LexicalJudge(match=match, **best)
        tally: Counter[tuple[str, str]] = Counter()
        for r, claims in zip(records, assessed):
            for c, a in claims:
                rule = judge.rule(a)
                if rule not in FLAG:
                    continue
                span = c.answer_spans[0]
                hit = [g.label for g in r.spans if g.start < span.end and span.start < g.end]
                if hit:
                    said = "contradicted" if rule in ("number-conflict", "negation-conflict") else "baseless"
                    tally[(hit[0], said)] += 1
        con = tally[("contradicted", "contradicted")] / max(1, tally[("contradicted", "contradicted")]
                                                            + tally[("contradicted", "baseless")])
        nic = tally[("baseless", "baseless")] / max(1, tally[("baseless", "baseless")]
                                                    + tally[("baseless", "contradicted")])
        acc = (con + nic) / 2
        typed.append((round(acc, 6), match))
        print(f"| {match} | {tally[('contradicted', 'contradicted')]} | {tally[('contradicted', 'baseless')]} | "
              f"{tally[('baseless', 'contradicted')]} | {tally[('baseless', 'baseless')]} | {acc:.3f} |")
    best = {**best, "match": max(typed)[1]}
    print()
    print(f"chosen: {best}  (defaults in the code: { {k: getattr(defaults, k) for k in best} })")
    print(f"always-hallucinated on this sample: F1 {answer_prf(gold, [True] * len(gold)).f1:.3f}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
