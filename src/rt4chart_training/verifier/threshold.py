"""Write the answer threshold chosen by the leave-one-task-out run into a verifier model's card::

    python3 -m rt4chart_training.verifier.threshold --loto OUT/loto.json --model DIR

``loto.json`` (``python3 -m rt4chart_training.verifier.loto --model-dir DIR --pool local-validation``) holds
``threshold_all_tasks``: the F1-maximising threshold of the answer score (``1 - P(entailment)`` of the claim that
decided, highest over the claims) on the sample's three tasks together. An answer is flagged when a claim scores at
least that, i.e. when a claim's P(entailment) is below ``1 - threshold``: that is the card's entailment threshold
(``thresholds.entailment``; the contradiction threshold is left as it is). The card also records where the number came
from (``selection``: the loto command, its pool and sample, its rows' thresholds). The model files are not touched, so
their sha256 in the card stay valid.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from rt4chart.judges.verifier import CARD

from .common import read_json, write_json


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.threshold",
                                description=__doc__.split("\n")[0])
    p.add_argument("--loto", required=True, help="the loto.json of a run over this model (one model, not {task})")
    p.add_argument("--model", required=True, help="the model folder whose card gets the threshold")
    return p


def entailment_threshold(answer_threshold: float) -> float:
    """The claim-level P(entailment) threshold that flags the answers whose score reaches ``answer_threshold``."""
    if not 0.0 < answer_threshold <= 1.0:
        raise ValueError(f"an answer threshold in (0, 1] was expected, got {answer_threshold!r}")
    return round(min(max(1.0 - answer_threshold + 1e-6, 1e-4), 1.0 - 1e-4), 6)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    report = read_json(Path(args.loto))
    chosen = report.get("threshold_all_tasks")
    if chosen is None:
        raise SystemExit(f"{args.loto} has no threshold_all_tasks (a run with one model folder, not {{task}}, has)")
    card_path = Path(args.model) / CARD
    card = read_json(card_path)
    thresholds = dict(card.get("thresholds") or {})
    thresholds["entailment"] = entailment_threshold(float(chosen))
    card["thresholds"] = thresholds
    cfg = report["config"]
    card["selection"] = {"command": cfg["command"], "pool": cfg["pool"], "per_task": cfg["per_task"],
                         "answers": report["sample"]["scored"], "answer_threshold": chosen,
                         "loto": [{k: r[k] for k in ("task", "threshold", "auroc", "auroc_uncovered", "f1",
                                                      "f1_always", "passes")} for r in report["rows"]]}
    write_json(card_path, card)
    print(f"[threshold] {card_path}: entailment threshold {thresholds['entailment']} "
          f"(answer threshold {chosen} on {report['sample']['scored']} answers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
