"""How many rule-decomposer claims are verb phrases without a subject ("doesn't plan to.", "is closed on Monday."),
and how many borrow the subject of the clause they were coordinated with (issue 52, item 7), on every Nth answer
of RAGTruth train.

    python3 -m training.experiments.subjectless_claims --every 10 --show 20
"""

from __future__ import annotations

import argparse
import random
import re

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.text.subjects import AUX as _AUX
from rt4chart.eval.datasets import load_ragtruth

from ..splits import data_dir

# an auxiliary or listed verb first, at most two lowercase adverbs before it (fixed here, so that the count means the
# same before and after a change to the decomposer)
_ADVERB = (
    r"(?:also|then|still|now|later|recently|currently|further|additionally|subsequently|eventually|finally|often|"
    r"usually|always|never|even|only|already|thus|therefore|soon|again|[a-z]+ly)"
)
SUBJECTLESS = re.compile(rf"^(?:{_ADVERB}\s+){{0,2}}{_AUX}\b")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=int, default=10, help="every Nth RAGTruth train answer (default 10: a 10%% sample)")
    ap.add_argument("--show", type=int, default=0, help="print this many claims with a borrowed subject (seeded)")
    args = ap.parse_args()

    records = load_ragtruth("train", data_dir=data_dir())[:: args.every]
    decomposer = RuleDecomposer()
    n_claims = n_bare = bare_answers = 0
    borrowed: list[str] = []
    for r in records:
        claims = decomposer.decompose_sync(r.answer)
        bare = sum(bool(SUBJECTLESS.match(c.text)) for c in claims)
        n_claims += len(claims)
        n_bare += bare
        bare_answers += bare > 0
        for c in claims:
            verbatim = r.answer[c.answer_spans[0].start:c.answer_spans[0].end]
            if c.text != verbatim:
                borrowed.append(f"{c.text[:len(c.text) - len(verbatim)]}| {verbatim}")
    print(f"{len(records)} answers, {n_claims} claims; {n_bare} subjectless claims, in {bare_answers} answers; "
          f"{len(borrowed)} claims with a borrowed subject")
    for line in random.Random(0).sample(borrowed, min(args.show, len(borrowed))):
        print("  ", line[:160])


if __name__ == "__main__":
    main()
