"""How often ``rt4chart.evidence.one_edit`` fires on RAGTruth train, and how often on a gold hallucination.

    python3 -m training.experiments.one_edit_fires               # train outside the validation slice, 1 min
    python3 -m training.experiments.one_edit_fires --validation  # the validation slice only
    python3 -m training.experiments.one_edit_fires --typed       # the typed edits (evidence.typed) too
    python3 -m training.experiments.one_edit_fires --typed --every 4 --dump fires.jsonl   # every 4th answer, and
                                                                 # each typed fire as a JSON line

Every answer is cut into claims by the rule decomposer and each claim is read against the whole context, as at
global verification. Prints, per kind of edit (name, number word, closed-class word, added negation, dropped
negation), the fires and how many of them are gold-hallucinated claims, then every fire. The judges apply the edit
whatever their model says, so a kind that fires often on faithful claims would cost precision: the rule was fitted
on these counts (docs/history.md, Trained offline judge), never on the test split.
"""

from __future__ import annotations

import argparse
import json
import time

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import load_ragtruth
from rt4chart.evidence import EvidenceIndex, one_edit
from rt4chart.evidence import tokens
from rt4chart.evidence import TYPED_KINDS as TYPED
from rt4chart.evidence import instruction, typed_edit

from ..splits import claim_is_hallucinated, data_dir, shipped_card, split_groups

KINDS = ("name", "number", "word", "negation", "affirmation")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--validation", action="store_true", help="the validation slice instead of the rest of train")
    ap.add_argument("--typed", action="store_true", help="also the typed edits, where one_edit finds none")
    ap.add_argument("--every", type=int, default=1, help="read every N-th answer only")
    ap.add_argument("--dump", default=None, help="write each typed fire as a JSON line to this file")
    args = ap.parse_args()
    card = shipped_card()
    records = load_ragtruth("train", data_dir=data_dir())
    fold_of = split_groups([r.group for r in records], card["seed"], card["val_frac"], 1)
    decomposer = RuleDecomposer()
    t0, claims, fires, typed = time.time(), 0, [], []
    dump = open(args.dump, "w") if args.dump else None
    read = 0
    for r in records:
        if (fold_of[r.group] < 0) != args.validation:
            continue
        read += 1
        if read % args.every:
            continue
        index = EvidenceIndex(r.context)
        sentences = index.edits  # what the judges hand one_edit for this context
        answer_claims = decomposer.decompose_sync(r.answer)
        for c in answer_claims:
            claims += 1
            edit = one_edit(c.text, sentences)
            span = c.answer_spans[0]
            if edit is not None:
                fires.append((edit, claim_is_hallucinated(span.start, span.end, r.spans), r, c.text))
            elif args.typed:
                t = typed_edit(c.text, index.clauses)
                if t is not None:
                    gold = claim_is_hallucinated(span.start, span.end, r.spans)
                    typed.append((t, gold, r, c.text))
                    if dump:
                        dump.write(json.dumps({"id": r.id, "task": r.task, "kind": t.edit.kind, "label": t.label,
                                               "gold": bool(gold), "claims": len(answer_claims),
                                               "words": len(tokens(c.text)), "claim": c.text,
                                               "instruction": instruction(c.text),
                                               "reason": t.reason}) + "\n")
                        dump.flush()
    where = "validation slice" if args.validation else "train outside the validation slice"
    print(f"RAGTruth {where}: {claims} claims, {len(fires)} fires, {time.time() - t0:.0f} s\n")
    print("| edit | fires | gold hallucinated |\n|---|---:|---:|")
    for kind in KINDS:
        mine = [f for f in fires if f[0].kind == kind]
        print(f"| {kind} | {len(mine)} | {sum(g for _, g, _, _ in mine)} |")
    if args.typed:
        print("\n| typed edit | fires | gold hallucinated |\n|---|---:|---:|")
        for kind in TYPED:
            mine = [f for f in typed if f[0].edit.kind == kind]
            print(f"| {kind} | {len(mine)} | {sum(g for _, g, _, _ in mine)} |")
    for edit, gold, r, text in fires:
        print(f"\n{'GOLD' if gold else 'faithful'} {r.id} ({r.task}) {edit.kind}: {text[:160]}\n"
              f"    claim {edit.claim_text!r}, evidence {edit.evidence_text!r}")
    for t, gold, r, text in typed:
        print(f"\n{'GOLD' if gold else 'faithful'} {r.id} ({r.task}) typed {t.edit.kind} -> {t.label}: {text[:160]}\n"
              f"    {t.reason[:300]}")


if __name__ == "__main__":
    main()
