"""Hand-written first-try cases for a judge: one short context about Marie Curie, answers of one sentence each that
a user would write to try the tool (a changed place, year, subject, ordinal, word, negation; and faithful
paraphrases), each audited alone through the full pipeline.

    python3 -m training.experiments.hand_cases                  # the default judge (local)
    python3 -m training.experiments.hand_cases --judge lexical

Prints each answer's claim labels and scores and whether the answer was flagged as its author meant, then the count
of misses. The cases were written by hand in session 9; they are a smoke check of plain edits, not a benchmark
(RAGTruth's figures are in docs/results.md).
"""

from __future__ import annotations

import argparse
import asyncio

from rt4chart.audit.auditor import Auditor

CONTEXT = (
    "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891 to study physics at the Sorbonne. "
    "In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel. "
    "She was the first woman to win a Nobel Prize. In 1911 she won a second Nobel Prize, in Chemistry. "
    "She died in 1934 of aplastic anaemia, probably caused by long exposure to radiation. "
    "Her daughter Irène Joliot-Curie also won a Nobel Prize. Curie never became a French citizen until her marriage.")

#: (hallucinated?, answer)
CASES = [
    (True, "Marie Curie was born in Krakow in 1867."),
    (True, "Marie Curie was born in Warsaw in 1876."),
    (True, "She moved to Paris in 1891 to study chemistry at the Sorbonne."),
    (True, "In 1903 she shared the Nobel Prize in Physics with Albert Einstein."),
    (True, "She was the last woman to win a Nobel Prize."),
    (True, "She was the first man to win a Nobel Prize."),
    (True, "In 1911 she won a third Nobel Prize, in Chemistry."),
    (True, "She died in 1934 of tuberculosis."),
    (True, "Her son also won a Nobel Prize."),
    (True, "She never shared the Nobel Prize in Physics."),
    (True, "Marie Curie won the Nobel Prize in Literature."),
    (True, "She was the first woman to win two Nobel Prizes in the same year."),
    (True, "Pierre Curie was born in Warsaw in 1867."),
    (True, "She moved to London in 1891 to study physics."),
    (True, "She died of radiation poisoning caused by her work with X-rays in the First World War."),
    (True, "Curie became a French citizen at birth."),
    (False, "Marie Curie was born in Warsaw in 1867."),
    (False, "In 1891 she moved to Paris, where she studied physics at the Sorbonne."),
    (False, "She won the Nobel Prize in Physics in 1903, together with Pierre Curie and Henri Becquerel."),
    (False, "She was the first woman to receive a Nobel Prize."),
    (False, "In 1911 she received a second Nobel Prize, this time in Chemistry."),
    (False, "She died in 1934."),
    (False, "Her daughter also won a Nobel Prize."),
    (False, "Curie won two Nobel Prizes."),
    (False, "Her death was probably caused by long exposure to radiation."),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", choices=("local", "lexical"), default="local")
    args = ap.parse_args()
    if args.judge == "local":
        from rt4chart.judges.local import LocalJudge
        judge = LocalJudge(threads=1)
    else:
        from rt4chart.judges.lexical import LexicalJudge
        judge = LexicalJudge()
    auditor = Auditor(judge=judge)
    misses = {True: 0, False: 0}
    for k, (hallucinated, answer) in enumerate(CASES):
        report = asyncio.run(auditor.audit({"id": f"case-{k}", "context": CONTEXT, "answer": answer}))
        flagged = report.hallucinated
        misses[hallucinated] += flagged != hallucinated
        claims = ", ".join(f"{c.label.value} {c.score:.2f}" if c.score is not None else c.label.value
                           for c in report.claims)
        print(f"{'ok  ' if flagged == hallucinated else 'MISS'} {'hallucinated' if hallucinated else 'faithful':12} "
              f"{answer}  [{claims}]")
    n_h = sum(h for h, _ in CASES)
    print(f"\n{args.judge}: {misses[True]} of {n_h} hallucinated answers passed, "
          f"{misses[False]} of {len(CASES) - n_h} faithful answers flagged")


if __name__ == "__main__":
    main()
