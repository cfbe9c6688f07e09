"""Is the first evidence shown for a claim the context sentence that decided it? Measured on the evidence set
(``benchmarks.evidence_cases``): for every claim with a deciding sentence, whether the first evidence item of the
claim the judge made of that answer sentence lies in it, and whether an entailed claim shows a sentence that
contradicts it (the expected deciding sentence of a contradicted claim of the same text).

    python3 -m benchmarks.evidence_order [--judges local,lexical] [-o OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Optional

from rt4chart.judges.registry import auditor_for

from .evidence_cases import RECORDS


def run(judge: str) -> list[dict]:
    """One row per expected claim: the judge's label, its evidence's sentence ids in order, and whether the first is
    the expected sentence."""
    auditor = auditor_for(judge, concurrency=1)
    rows = []
    for case in RECORDS:
        result = asyncio.run(auditor.audit({"id": case.id, "context": case.context, "question": case.question,
                                            "answer": case.answer}))
        for expected in case.claims:
            start = case.answer.index(expected.text)
            made = next((c for c in result.claims if c.answer_spans
                         and c.answer_spans[0].start <= start + 2 < c.answer_spans[-1].end + 1), None)
            shown = [e.sentence_ids[0] if e.sentence_ids else None for e in made.evidence] if made else []
            rows.append({
                "id": case.id, "claim": expected.text, "expected_label": expected.label.value,
                "label": made.label.value if made else None, "expected_sentence": expected.sentence,
                "shown": shown, "first_right": bool(shown) and shown[0] == expected.sentence,
                "reason": made.reason if made else None,
            })
    return rows


def summarize(rows: list[dict]) -> dict:
    with_sentence = [r for r in rows if r["expected_sentence"] is not None]
    shown = [r for r in with_sentence if r["shown"]]
    entailed_shown = [r for r in shown if r["label"] == "entailed"]
    return {
        "claims": len(with_sentence),
        "first_right": sum(r["first_right"] for r in with_sentence),
        "with_evidence": len(shown),
        "first_right_of_shown": sum(r["first_right"] for r in shown),
        "right_label_first_right": sum(r["first_right"] for r in with_sentence if r["label"] == r["expected_label"]),
        "right_label": sum(r["label"] == r["expected_label"] for r in with_sentence),
        # an entailed verdict showing, first, the sentence that contradicts the claim (the expected sentence of a
        # claim expected contradicted)
        "entailed_shows_contradiction": sum(1 for r in entailed_shown if r["expected_label"] == "contradicted"
                                            and r["shown"][0] == r["expected_sentence"]),
    }


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judges", default="local,lexical")
    ap.add_argument("-o", "--out", default=None, help="a folder for evidence-<judge>.jsonl")
    args = ap.parse_args(argv)
    lines = ["| judge | first evidence is the deciding sentence | of claims with evidence | of claims labelled right "
             "| entailed verdicts shown with a contradicting sentence first |", "|---|---|---|---|---|"]
    for judge in args.judges.split(","):
        rows = run(judge)
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            (Path(args.out) / f"evidence-{judge}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        s = summarize(rows)
        lines.append(f"| {judge} | {s['first_right']} of {s['claims']} | {s['first_right_of_shown']} of "
                     f"{s['with_evidence']} | {s['right_label_first_right']} of {s['right_label']} | "
                     f"{s['entailed_shows_contradiction']} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
