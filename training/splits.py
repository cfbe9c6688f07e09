"""What every training stage shares: the claim label trained on, and the context-grouped split of RAGTruth train
(a seeded validation slice, the rest in folds), so that the trees, the tagger and the experiments hold out the same
answers. Imports nothing of rt4chart at module level (the tagger's GPU stages run without it)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Optional

from rt4chart.eval.datasets import ENV_DATA_DIR
from rt4chart.eval.hybrid_card import claim_is_hallucinated, covered  # noqa: F401 (the claim label trained on)


def data_dir() -> Optional[str]:
    """The data folder named by ``$RT4CHART_DATA_DIR`` (read here, at the training code's edge), else None: the
    loaders then look for ``shared/data`` above the working directory."""
    return os.environ.get(ENV_DATA_DIR) or None


def split_groups(groups, seed: int, val_frac: float, folds: int) -> dict:
    """Context group -> fold, -1 for the validation slice (the first ``val_frac`` of the groups, seeded shuffle)."""
    uniq = sorted(set(groups))
    random.Random(seed).shuffle(uniq)
    n_val = int(len(uniq) * val_frac)
    return {**{g: -1 for g in uniq[:n_val]}, **{g: k % folds for k, g in enumerate(uniq[n_val:])}}


#: the validation slice every training stage holds out of RAGTruth train (``split_groups`` with this seed and fraction)
VALIDATION_SEED = 13
VALIDATION_FRAC = 0.08


def validation_groups(groups) -> frozenset:
    """The context groups of the validation slice: held out of every model's training, read by the selection runs."""
    fold_of = split_groups(groups, VALIDATION_SEED, VALIDATION_FRAC, 1)
    return frozenset(g for g, k in fold_of.items() if k < 0)


def shipped_card(directory: Optional[Path] = None) -> dict:
    """The local judge's model card in ``directory`` (default: the shipped models folder)."""
    from rt4chart.judges.local import CARD, model_dir

    return json.loads((Path(directory or model_dir()) / CARD).read_text())


def validation_records() -> list:
    """The RAGTruth train answers of the validation slice (``validation_groups``)."""
    from rt4chart.eval.datasets import load_ragtruth

    records = load_ragtruth("train", data_dir=data_dir())
    held = validation_groups([r.group for r in records])
    return [r for r in records if r.group in held]
