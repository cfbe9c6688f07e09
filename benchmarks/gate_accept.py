"""What the triage gate's accept path lets through: the share of contradicted, baseless and faithful answers among
the lowest-risk fraction it accepts without a judge.

    python3 -m benchmarks.gate_accept [--data-root DIR] [-o FILE]

The shipped RAGScope-E gate scores RAGTruth test (an answer is contradicted when one of its gold spans is a conflict,
baseless when all are baseless info) and the everyday, meaning and assistant sets (by their expected answer label);
each set's lowest-risk ``ACCEPT`` fraction is accepted, as ``rt4chart triage route --accept`` does within a batch.
The gate reads words only: an answer that reuses the context's words and changes what they say scores as low as a
faithful one.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import numpy as np

from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
from rt4chart.gate import load_default_gate

from . import assistant_cases, everyday_cases, meaning3_cases

ACCEPT = (0.3, 0.5)
KINDS = ("contradicted", "baseless", "faithful")


def ragtruth_rows(root) -> tuple[list[dict], list[str]]:
    recs = load_ragtruth("test", root=root, data_dir=os.environ.get(ENV_DATA_DIR))
    kinds = []
    for r in recs:
        labels = [s.label.lower() for s in r.spans]
        kinds.append("faithful" if not labels else
                     "contradicted" if any("conflict" in lab or "contradict" in lab for lab in labels) else "baseless")
    return [r.to_record() for r in recs], kinds


def case_rows(records) -> tuple[list[dict], list[str]]:
    rows = [{"id": r.id, "context": r.context, "question": r.question, "answer": r.answer} for r in records]
    kinds = [{"entailed": "faithful", "contradicted": "contradicted", "baseless": "baseless"}.get(r.label.value, "")
             for r in records]
    return rows, kinds


def table(name: str, risk: np.ndarray, kinds: list[str]) -> list[str]:
    k = np.array(kinds)
    order = np.argsort(risk, kind="stable")
    out = []
    for a in ACCEPT:
        accepted = np.zeros(len(risk), dtype=bool)
        accepted[order[: math.ceil(a * len(risk) - 1e-9)]] = True
        cells = []
        for kind in KINDS:
            n = int((k == kind).sum())
            cells.append(f"{int((accepted & (k == kind)).sum())} of {n} ({(accepted & (k == kind)).sum() / n:.0%})"
                         if n else "–")
        out.append(f"| {name} | {a:.0%} | " + " | ".join(cells) + " |")
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-root", default=None, help="RAGTruth folder (default: $RT4CHART_DATA_DIR)")
    ap.add_argument("-o", "--output", default=None, help="also write the table to this markdown file")
    args = ap.parse_args(argv)
    gate = load_default_gate()
    lines = ["| set | accept | contradicted accepted | baseless accepted | faithful accepted |",
             "|---|---|---|---|---|"]
    sets = {"RAGTruth test": ragtruth_rows(args.data_root),
            "everyday (101)": case_rows(everyday_cases.RECORDS),
            "meaning (86)": case_rows(meaning3_cases.RECORDS),
            "assistant (70)": case_rows(assistant_cases.RECORDS)}
    for name, (rows, kinds) in sets.items():
        lines += table(name, gate.predict_proba(rows)[:, 1], kinds)
    text = "\n".join(lines)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n")


if __name__ == "__main__":
    main()
