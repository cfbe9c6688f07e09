"""What the local judge's typed-edit gate (``rules.TYPED_GATES``) changes on RAGTruth train, at the judge's level:
the claims it flags that the judge without typed edits would have called entailed, by kind and by gold label.

    python3 -m training.experiments.typed_gate                 # train outside the validation slice
    python3 -m training.experiments.typed_gate --validation    # the validation slice
    python3 -m training.experiments.typed_gate --gates quantifier=5,requirement=5   # try other gates

Every answer is cut into claims by the rule decomposer; answers with a claim that has a typed edit (``evidence.typed``)
under the widest gate tried are audited twice by the default local judge, with its typed edits and without them
(``rules.typed`` returning None), and each claim's label is compared with the gold spans (``splits``). A gate adds
a false alarm where a claim the judge would have left entailed is flagged and gold calls it faithful.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import time
from unittest import mock

from rt4chart import Auditor
from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import load_ragtruth
from rt4chart.evidence import EvidenceIndex, tokens
from rt4chart.evidence import fragment, instruction, typed_edit
from rt4chart.judges.local import rules as R
from rt4chart.judges.registry import build_auditor

from ..splits import claim_is_hallucinated, data_dir, shipped_card, split_groups


def _gates(text: str) -> dict[str, int]:
    gates = dict(R.TYPED_GATES)
    for item in filter(None, text.split(",")):
        kind, _, n = item.partition("=")
        gates[kind] = int(n)
    return gates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--validation", action="store_true", help="the validation slice instead of the rest of train")
    ap.add_argument("--gates", default="", help="kind=claims,... overriding rules.TYPED_GATES")
    args = ap.parse_args()
    gates = _gates(args.gates)
    card = shipped_card()
    records = load_ragtruth("train", data_dir=data_dir())
    fold_of = split_groups([r.group for r in records], card["seed"], card["val_frac"], 1)
    decomposer = RuleDecomposer()
    t0 = time.time()
    candidates = []
    for r in records:
        if (fold_of[r.group] < 0) != args.validation:
            continue
        claims = decomposer.decompose_sync(r.answer)
        if len(claims) > max(gates.values()):
            continue
        index = EvidenceIndex(r.context).clauses
        for c in claims:
            if len(tokens(c.text)) > R.TYPED_MAX_WORDS or instruction(c.text) or fragment(c.text):
                continue
            t = typed_edit(c.text, index)
            if t is not None and len(claims) <= gates.get(t.edit.kind, 0):
                candidates.append(r)
                break
    print(f"{len(candidates)} answers with a typed edit inside the gates ({time.time() - t0:.0f} s)")
    with_typed: Auditor = build_auditor("local")
    without: Auditor = build_auditor("local")  # another judge: each keeps its own recent judgments
    added = collections.Counter()
    examples = []
    with mock.patch.object(R, "TYPED_GATES", gates):
        for r in candidates:
            record = {"id": r.id, "context": r.context, "answer": r.answer}
            on = asyncio.run(with_typed.audit(record))
            with mock.patch.object(R, "typed", lambda *a, **k: None):
                off = asyncio.run(without.audit(record))
            for a, b in zip(on.claims, off.claims):
                if a.label == b.label:
                    continue
                gold = claim_is_hallucinated(a.answer_spans[0].start, a.answer_spans[0].end, r.spans)
                added[(b.label.value, a.label.value, gold)] += 1
                examples.append((gold, r.id, r.task, len(on.claims), b.label.value, a.label.value, a.text, a.reason))
    print("\n| without typed edits | with | gold hallucinated | claims |\n|---|---|---|---:|")
    for (before, after, gold), n in sorted(added.items()):
        print(f"| {before} | {after} | {gold} | {n} |")
    for gold, rid, task, n, before, after, text, reason in examples:
        print(f"\n{'GOLD' if gold else 'faithful'} {rid} ({task}, {n} claims) {before} -> {after}: {text[:140]}\n"
              f"    {(reason or '')[:200]}")


if __name__ == "__main__":
    main()
