"""Measure an exported verifier (a model folder, ``export``'s) on NLI sets and held-out pairs::

    python3 -m rt4chart_training.verifier.evaluate --model DIR [--sets sick/test,healthver/test,heldout] \\
        [--limit N] [--out DIR]

A set is ``NAME/SPLIT`` of the NLI folder (``shared/data/nli``; the eval-only sets are read here, this is
measuring), ``heldout`` (the SNLI test pairs held out from training, ``--heldout``), or the path of a pairs file in
contract 3's shape (``*.jsonl.gz``). Each pair runs through the runtime's ``rt4chart.judges.verifier.Verifier``.

Per set, by its labels:

- three-way sets (entailment, contradiction, neutral): accuracy, macro-F1, and the AUROC of P(contradiction) for
  contradiction against the rest and of P(entailment) for entailment against the rest;
- entailment/contradiction sets (no neutral pairs: fever, covidfact, scifact): the three-way accuracy (a neutral
  prediction is wrong), the two-way accuracy (the likelier of entailment and contradiction), the AUROC of
  P(contradiction) for contradiction against entailment, and the share predicted neutral;
- entailment/not-entailment sets (rte_glue_binary): the accuracy of "argmax is entailment" and the AUROC of
  P(entailment); no contradiction metric (its negatives mix contradiction and neutral).

Writes ``evaluation.json`` and ``evaluation.md`` (a table) to ``--out`` (default: the model folder), and prints the
table. RAGTruth leave-one-task-out is measured with the judge (claims against their premises, per held-out task):
it plugs in as another loader in ``LOADERS``, or as a pairs file in contract 3's shape given to ``--sets``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

LABELS = ("entailment", "contradiction", "neutral")
#: the sets measured when ``--sets`` is not given: the eval-only NLI sets' test splits (dev where a set has no test
#: split) and the held-out SNLI pairs
DEFAULT_SETS = ("sick/test", "healthver/test", "control/test", "mpe/test", "climate_fever/test", "covidfact/dev",
                "scifact/dev", "fever_symmetric/v0.2_test", "rte_glue_binary/val_part",
                "imppres/presupposition_all", "heldout")
HELDOUT = ".cache/verifier/heldout-snli.jsonl.gz"
#: a (premise, hypothesis, label) row
Row = tuple[str, str, str]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="the model folder (python3 -m rt4chart_training.verifier.export)")
    p.add_argument("--sets", default=",".join(DEFAULT_SETS), help=f"comma-separated sets [{','.join(DEFAULT_SETS)}]")
    p.add_argument("--limit", type=int, default=None, help="at most N pairs a set (a seeded sample)")
    p.add_argument("--out", default=None, help="folder for evaluation.json and evaluation.md [--model]")
    p.add_argument("--heldout", default=HELDOUT, help=f"the held-out pairs file [{HELDOUT}]")
    p.add_argument("--data-dir", default=None, help="the data folder [$RT4CHART_DATA_DIR, else shared/data above]")
    p.add_argument("--threads", type=int, default=2, help="onnxruntime threads [2]")
    p.add_argument("--batch", type=int, default=16, help="pairs per batch [16]")
    return p


# -- the metrics (numpy and scikit-learn only) --------------------------------------------------------------------
def kind_of(labels: Sequence[str]) -> str:
    """``3way`` (some pair is neutral), ``ec`` (entailment and contradiction only), ``e-vs-not`` (entailment and
    not_entailment), or ``other``."""
    present = set(labels)
    if "not_entailment" in present:
        return "e-vs-not" if present <= {"entailment", "not_entailment"} else "other"
    if "neutral" in present and present <= set(LABELS):
        return "3way"
    if present <= {"entailment", "contradiction"}:
        return "ec"
    return "other"


def _auroc(positive: np.ndarray, score: np.ndarray) -> Optional[float]:
    from sklearn.metrics import roc_auc_score

    if positive.all() or not positive.any():
        return None
    return round(float(roc_auc_score(positive, score)), 4)


def set_metrics(labels: Sequence[str], probs: np.ndarray) -> dict:
    """The metrics of one set: gold ``labels`` and the verifier's ``(n, 3)`` probabilities (``LABELS`` order). See
    the module docstring for which metrics each kind of set gets; every set also gets the predicted label shares."""
    from sklearn.metrics import f1_score

    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (len(labels), len(LABELS)):
        raise ValueError(f"expected ({len(labels)}, {len(LABELS)}) probabilities, got {probs.shape}")
    gold = np.array(labels)
    pred = np.array(LABELS)[probs.argmax(1)] if len(labels) else np.array([], dtype=str)
    kind = kind_of(labels)
    out: dict = {"kind": kind, "n": len(labels), "gold": {k: int(np.sum(gold == k)) for k in sorted(set(labels))},
                 "predicted": {k: round(float(np.mean(pred == k)), 4) for k in LABELS} if len(labels) else {}}
    if not len(labels):
        return out
    p_e, p_c = probs[:, 0], probs[:, 1]
    if kind == "3way":
        out["acc3"] = round(float(np.mean(pred == gold)), 4)
        out["macro_f1"] = round(float(f1_score(gold, pred, labels=list(LABELS), average="macro", zero_division=0)), 4)
        out["auroc_contradiction"] = _auroc(gold == "contradiction", p_c)
        out["auroc_entailment"] = _auroc(gold == "entailment", p_e)
        out["confusion"] = {g: {k: int(np.sum((gold == g) & (pred == k))) for k in LABELS} for g in LABELS}
    elif kind == "ec":
        out["acc3"] = round(float(np.mean(pred == gold)), 4)
        two = np.where(p_c > p_e, "contradiction", "entailment")
        out["acc2"] = round(float(np.mean(two == gold)), 4)
        out["auroc_contradiction"] = _auroc(gold == "contradiction", p_c)
        out["neutral_rate"] = round(float(np.mean(pred == "neutral")), 4)
    elif kind == "e-vs-not":
        out["acc2"] = round(float(np.mean((pred == "entailment") == (gold == "entailment"))), 4)
        out["auroc_entailment"] = _auroc(gold == "entailment", p_e)
    return out


def _cell(value) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def markdown(results: dict[str, dict]) -> str:
    """The results as a markdown table, one row a set."""
    head = ("| set | kind | pairs | acc (3-way) | acc (2-way) | macro-F1 | AUROC contr. | AUROC entail. | "
            "predicted e / c / n |")
    lines = [head, "|" + "---|" * 9]
    for name, m in results.items():
        shares = " / ".join(f"{m['predicted'].get(k, 0):.2f}" for k in LABELS) if m.get("predicted") else "–"
        lines.append(f"| {name} | {m['kind']} | {m['n']} | {_cell(m.get('acc3'))} | {_cell(m.get('acc2'))} | "
                     f"{_cell(m.get('macro_f1'))} | {_cell(m.get('auroc_contradiction'))} | "
                     f"{_cell(m.get('auroc_entailment'))} | {shares} |")
    return "\n".join(lines) + "\n"


# -- the sets -----------------------------------------------------------------------------------------------------
def _read_rows(path: Path) -> list[Row]:
    opener = gzip.open if path.suffix == ".gz" else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                rows.append((r["premise"], r["hypothesis"], r["label"]))
    return rows


def nli_rows(spec: str, args) -> list[Row]:
    """An NLI split, ``NAME/SPLIT``, from the NLI data folder (any set: eval-only ones too)."""
    from .nli import nli_dir

    name, _, split = spec.partition("/")
    path = nli_dir(args.data_dir) / name / f"{split}.jsonl.gz"
    if not path.is_file():
        raise SystemExit(f"no NLI split {spec}: {path} not found")
    return _read_rows(path)


def heldout_rows(spec: str, args) -> list[Row]:
    """The SNLI test pairs held out from training (``--heldout``)."""
    path = Path(args.heldout)
    if not path.is_file():
        raise SystemExit(f"no held-out pairs at {path} (python3 -m rt4chart_training.verifier.build)")
    return _read_rows(path)


def file_rows(spec: str, args) -> list[Row]:
    """A pairs file (contract 3's shape, or any JSON lines with premise, hypothesis and label)."""
    return _read_rows(Path(spec))


#: how a set name is read: the first loader whose test accepts it
LOADERS: list[tuple[Callable[[str], bool], Callable[[str, argparse.Namespace], list[Row]]]] = [
    (lambda s: s == "heldout", heldout_rows),
    (lambda s: s.endswith((".jsonl", ".jsonl.gz")), file_rows),
    (lambda s: "/" in s, nli_rows),
]


def load_set(spec: str, args) -> list[Row]:
    for accepts, loader in LOADERS:
        if accepts(spec):
            rows = loader(spec, args)
            if args.limit and len(rows) > args.limit:
                keep = sorted(random.Random(0).sample(range(len(rows)), args.limit))
                rows = [rows[i] for i in keep]
            return rows
    raise SystemExit(f"unknown set {spec!r}: NAME/SPLIT of the NLI folder, 'heldout', or a pairs file")


def evaluate(args) -> dict:
    from rt4chart.judges.verifier import Verifier

    verifier = Verifier(Path(args.model), threads=args.threads)
    results: dict[str, dict] = {}
    for spec in [s.strip() for s in args.sets.split(",") if s.strip()]:
        rows = load_set(spec, args)
        t0 = time.monotonic()
        probs = verifier.probs([(p, h) for p, h, _ in rows], batch_size=args.batch)
        seconds = time.monotonic() - t0
        results[spec] = {**set_metrics([lab for _, _, lab in rows], probs), "seconds": round(seconds, 1),
                         "pairs_per_s": round(len(rows) / max(seconds, 1e-9), 1)}
        m = results[spec]
        print(f"[evaluate] {spec}: {len(rows)} pairs in {seconds:.0f}s, acc3 {m.get('acc3')}, acc2 {m.get('acc2')}, "
              f"AUROC contradiction {m.get('auroc_contradiction')}", file=sys.stderr, flush=True)
    out = Path(args.out) if args.out else Path(args.model)
    out.mkdir(parents=True, exist_ok=True)
    report = {"model": str(args.model), "card": {k: verifier.card.get(k) for k in ("pairs_seen", "train_seconds",
                                                                                  "steps", "status", "layers")},
              "limit": args.limit, "sets": results}
    (out / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    table = markdown(results)
    (out / "evaluation.md").write_text(table, encoding="utf-8")
    print(table, end="")
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    evaluate(_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
