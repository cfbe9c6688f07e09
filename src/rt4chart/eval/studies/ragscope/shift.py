"""Source shift on the RAGTruth tasks (RAGScope RQ5): leave-one-task-out transfer and target-only calibration.

Transfer: gates fitted on two tasks score the third. Calibration: per task and seed, a grouped stratified 20% test
set, ``k`` labels drawn prevalence-preserving from the rest, RAGScope-C fitted on those only; macro mean ± standard
error over seeds.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ....gate import RAGScopeC, RAGScopeE
from ....gate.risk_features import Batch

from ...metrics import (
    auroc,
    auroc_weighted,
    average_precision,
    average_precision_weighted,
    bootstrap_weights,
    percentile_interval,
)
from .data import SEED, ProtocolData, grouped_folds

__all__ = ["CALIBRATION_LABELS", "transfer_study", "calibration_curve"]

CALIBRATION_LABELS = (25, 50, 100, 200)


def transfer_study(data: ProtocolData, n_boot: int = 1000, seed: int = SEED) -> dict:
    """Leave one task out: gates fitted on the other tasks score the held-out task, beside the zero-shot score."""
    uncovered = 1.0 - Batch.from_records(data.X).coverage
    out: dict = {}
    for t in data.task_names:
        test = np.flatnonzero(data.tasks == t)
        train = np.flatnonzero(data.tasks != t)
        held = data.subset(test)
        W = bootstrap_weights(held.groups, n=n_boot, seed=seed)
        scores = {"uncovered (zero-shot)": uncovered[test]}
        for label, gate in (("RAGScope-C (other tasks)", RAGScopeC()), ("RAGScope-E (other tasks)", RAGScopeE())):
            model = gate.fit([data.X[i] for i in train], data.y[train])
            scores[label] = model.predict_proba(held.X)[:, 1]
        out[t] = {
            name: {
                "auroc": [auroc(held.y, s), *percentile_interval(auroc_weighted(held.y, s, W))],
                "ap": [average_precision(held.y, s), *percentile_interval(average_precision_weighted(held.y, s, W))],
            }
            for name, s in scores.items()
        }
    return out


def _stratified_sample(y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` indices drawn without replacement, positives in proportion to their rate (at least one of each)."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    if k >= y.size or pos.size == 0 or neg.size == 0:
        raise ValueError(f"cannot draw {k} labels of both classes from a pool of {y.size}")
    n_pos = int(round(k * pos.size / y.size))
    n_pos = min(max(n_pos, 1), pos.size, k - 1)
    return np.concatenate([rng.choice(pos, n_pos, replace=False), rng.choice(neg, k - n_pos, replace=False)])


def calibration_curve(
    data: ProtocolData, labels: Sequence[int] = CALIBRATION_LABELS, n_seeds: int = 10, test_fraction_folds: int = 5
) -> dict:
    """Target-only calibration: RAGScope-C fitted on ``k`` target labels, per task and seed (RQ5 protocol).

    Returns ``{"per_task": {task: {k: {"auroc": [...per seed], "ap": [...]}}}, "macro": {k: {"auroc": [mean, se],
    "ap": [mean, se]}}}``; ``k = "zero-shot"`` is the uncovered-token score on the same test sets.
    """
    batch = Batch.from_records(data.X)
    F = batch.base()
    uncovered = 1.0 - batch.coverage
    per_task: dict = {}
    for t in data.task_names:
        idx = np.flatnonzero(data.tasks == t)
        y, g = data.y[idx], data.groups[idx]
        rows: dict = {str(k): {"auroc": [], "ap": []} for k in ("zero-shot", *labels)}
        for s in range(n_seeds):
            test_pos, pool_pos = _first_fold(y, g, test_fraction_folds, s)
            test = idx[test_pos]
            rows["zero-shot"]["auroc"].append(auroc(data.y[test], uncovered[test]))
            rows["zero-shot"]["ap"].append(average_precision(data.y[test], uncovered[test]))
            rng = np.random.default_rng(s)
            for k in labels:
                train = idx[pool_pos[_stratified_sample(y[pool_pos], k, rng)]]
                gate = RAGScopeC().fit_features(F[train], data.y[train])
                risk = gate.decision_features(F[test])
                rows[str(k)]["auroc"].append(auroc(data.y[test], risk))
                rows[str(k)]["ap"].append(average_precision(data.y[test], risk))
        per_task[t] = rows
    macro: dict = {}
    for k in ("zero-shot", *labels):
        macro[str(k)] = {}
        for metric in ("auroc", "ap"):
            per_seed = np.mean([per_task[t][str(k)][metric] for t in per_task], axis=0)
            macro[str(k)][metric] = [float(per_seed.mean()), float(per_seed.std(ddof=1) / math.sqrt(per_seed.size))]
    return {"per_task": per_task, "macro": macro}


def _first_fold(y: np.ndarray, groups: np.ndarray, n_splits: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A grouped, stratified ``1 / n_splits`` test set and the rest, shuffled by ``seed``."""
    train, test = grouped_folds(y, groups, n_splits=n_splits, seed=seed)[0]
    return test, train
