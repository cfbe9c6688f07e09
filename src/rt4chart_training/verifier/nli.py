"""The train-licensed NLI pairs (``shared/data/nli``, whose README gives each set's licence) and the SNLI test pairs
held out from training to measure the verifier.

Only the sets in ``TRAIN_SETS`` are read; any other name is refused (the rest are eval-only). Identical (premise,
hypothesis) pairs are kept once (the first, in ``TRAIN_SETS`` order); a pair given two different labels is dropped
in every copy. ``HELDOUT`` SNLI test pairs are held out by premise (whole premises, chosen by ``HELDOUT_SEED``,
whatever the build's seed), and no training pair has a held-out premise or hypothesis: cad_snli's dev and test
splits are counterfactual edits of SNLI dev and test pairs (their premise or their hypothesis is SNLI's), so a
held-out pair's edited twin is left out too.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from rt4chart.errors import ConfigError, InputError
from rt4chart.eval.datasets import data_root

from .pairs import LABELS, Pair

#: set -> (its splits read for training, in order; the sampling weight). snli/test loses the held-out pairs.
TRAIN_SETS: dict[str, tuple[tuple[str, ...], float]] = {
    "snli": (("dev", "test"), 1.0),
    "cad_snli": (("original_train", "original_dev", "original_test", "revised_hypothesis_train",
                  "revised_hypothesis_dev", "revised_hypothesis_test", "revised_premise_train",
                  "revised_premise_dev", "revised_premise_test"), 2.0),  # counterfactual minimal edits: up-weighted
    "conjnli": (("adversarial_train", "dev"), 1.0),
    "fever_nli_dev": (("dev",), 1.0),
    "breaking_nli": (("test",), 0.5),  # 87 % contradictions, template-made word swaps: half weight
}
#: SNLI test pairs held out from training, and the seed that picks their premises
HELDOUT = 2000
HELDOUT_SEED = 0


def nli_dir(data_dir: "str | os.PathLike[str] | None" = None) -> Path:
    """The ``nli/`` folder: under ``data_dir`` when given, else under the ``shared/data`` that
    ``rt4chart.eval.datasets.data_root`` finds."""
    return data_root("nli", data_dir=data_dir) / "nli"


def read_split(folder: Path, name: str, split: str) -> list[Pair]:
    """The pairs of one split of a train-licensed set (``source`` ``<set>/<split>``, ``group`` the premise). An
    eval-only or unknown set is refused (ConfigError); a row with another label or no text raises InputError."""
    if name not in TRAIN_SETS:
        raise ConfigError(f"{name!r} is not a train-licensed NLI set (those are {', '.join(TRAIN_SETS)}); "
                          "the others are for measuring only")
    weight = TRAIN_SETS[name][1]
    path = folder / name / f"{split}.jsonl.gz"
    if not path.exists():
        raise InputError(f"NLI file {path} not found")
    out = []
    for lineno, row in _rows(path):
        where = f"{name}/{path.name}:{lineno}"
        if not isinstance(row, dict) or row.get("label") not in LABELS:
            raise InputError(f"expected a row with a label in {LABELS}", record=where)
        premise, hypothesis = row.get("premise"), row.get("hypothesis")
        if not isinstance(premise, str) or not isinstance(hypothesis, str) or not premise.strip() \
                or not hypothesis.strip():
            raise InputError("premise and hypothesis must be non-blank strings", record=where)
        out.append(Pair(premise.strip(), hypothesis.strip(), row["label"], f"{name}/{split}", premise.strip(), weight))
    return out


def _rows(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"not valid JSON ({exc.msg})", record=f"{path.name}:{lineno}") from None


def heldout_snli(folder: Path, n: int = HELDOUT, seed: int = HELDOUT_SEED) -> list[Pair]:
    """``n`` SNLI test pairs, whole premises at a time in a seeded order (the last premise's pairs up to ``n``), in
    file order."""
    rows = read_split(folder, "snli", "test")
    premises = sorted({p.premise for p in rows})
    random.Random(seed).shuffle(premises)
    by_premise: dict[str, list[int]] = {}
    for i, p in enumerate(rows):
        by_premise.setdefault(p.premise, []).append(i)
    chosen: list[int] = []
    for premise in premises:
        if len(chosen) >= n:
            break
        chosen.extend(by_premise[premise][: n - len(chosen)])
    return [rows[i] for i in sorted(chosen)]


@dataclass
class NliPairs:
    """The training pairs, the held-out pairs, and what was left out (counts by reason)."""

    train: list[Pair]
    heldout: list[Pair]
    dropped: dict[str, int] = field(default_factory=dict)


def nli_pairs(data_dir: "str | os.PathLike[str] | None" = None, *, limit: Optional[int] = None,
              sets: Optional[tuple[str, ...]] = None, heldout: int = HELDOUT) -> NliPairs:
    """The training pairs of ``sets`` (default all of ``TRAIN_SETS``; ``limit`` rows per split at most, for quick
    runs), deduplicated, without the ``heldout`` SNLI test pairs, their premises or their hypotheses."""
    folder = nli_dir(data_dir)
    names = tuple(TRAIN_SETS) if sets is None else sets
    for name in names:
        if name not in TRAIN_SETS:
            raise ConfigError(f"{name!r} is not a train-licensed NLI set (those are {', '.join(TRAIN_SETS)})")
    held = heldout_snli(folder, heldout)
    held_pairs = {(p.premise, p.hypothesis) for p in held}
    held_premises = {p.premise for p in held}
    held_hypotheses = {p.hypothesis for p in held}
    rows: list[Pair] = []
    dropped = {"heldout_pair": 0, "heldout_premise": 0, "heldout_hypothesis": 0, "duplicate": 0,
               "conflicting_labels": 0}
    for name in names:
        for split in TRAIN_SETS[name][0]:
            for p in read_split(folder, name, split)[:limit]:
                if (p.premise, p.hypothesis) in held_pairs:
                    dropped["heldout_pair"] += 1
                elif p.premise in held_premises:
                    dropped["heldout_premise"] += 1
                elif p.hypothesis in held_hypotheses:
                    dropped["heldout_hypothesis"] += 1
                else:
                    rows.append(p)
    labels: dict[tuple[str, str], set[str]] = {}
    for p in rows:
        labels.setdefault((p.premise, p.hypothesis), set()).add(p.label)
    seen: set[tuple[str, str]] = set()
    train = []
    for p in rows:
        key = (p.premise, p.hypothesis)
        if len(labels[key]) > 1:
            dropped["conflicting_labels"] += 1
        elif key in seen:
            dropped["duplicate"] += 1
        else:
            seen.add(key)
            train.append(p)
    return NliPairs(train, held, dropped)
