"""Ranking metrics and operating points with context-group bootstrap intervals (RAGScope §II-D, Tables IV-VI).

Pooled scope: all groups resampled; per task: that task's groups; macro: the per-task resamples averaged. Paired
deltas use the same resamples for both scores.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ....gate.routing import accepted_risk, review_precision

from ...metrics import (
    auroc,
    auroc_weighted,
    average_precision,
    average_precision_weighted,
    bootstrap_weights,
    percentile_interval,
)
from .data import SEED, ProtocolData

__all__ = ["REVIEW_FRACTIONS", "ACCEPT_FRACTIONS", "ranking_table", "paired_deltas", "operating_points"]

REVIEW_FRACTIONS = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
ACCEPT_FRACTIONS = (0.50, 0.60, 0.70, 0.80, 0.90)

_METRICS = {"auroc": (auroc, auroc_weighted), "ap": (average_precision, average_precision_weighted)}


def _scope_draws(data: ProtocolData, n_boot: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per scope: (record indices, bootstrap weights over those records)."""
    draws = {"combined": (np.arange(data.y.size), bootstrap_weights(data.groups, n=n_boot, seed=seed))}
    for t in data.task_names:
        idx = np.flatnonzero(data.tasks == t)
        draws[t] = (idx, bootstrap_weights(data.groups[idx], n=n_boot, seed=seed))
    return draws


def _metric_draws(data, draws, scores: np.ndarray, metric: str) -> dict[str, tuple[float, np.ndarray]]:
    point_fn, weighted_fn = _METRICS[metric]
    out = {}
    for scope, (idx, W) in draws.items():
        out[scope] = (point_fn(data.y[idx], scores[idx]), weighted_fn(data.y[idx], scores[idx], W))
    tasks = data.task_names
    out["macro"] = (
        float(np.mean([out[t][0] for t in tasks])),
        np.mean(np.vstack([out[t][1] for t in tasks]), axis=0),
    )
    return out


def ranking_table(data: ProtocolData, scores: dict[str, np.ndarray], n_boot: int = 1000, seed: int = SEED) -> dict:
    """``{scorer: {scope: {"auroc": [point, lo, hi], "ap": [...]}}}`` for every task, macro and combined."""
    draws = _scope_draws(data, n_boot, seed)
    table: dict = {}
    for name, s in scores.items():
        rows: dict = {}
        for metric in _METRICS:
            for scope, (point, values) in _metric_draws(data, draws, s, metric).items():
                rows.setdefault(scope, {})[metric] = [float(point), *percentile_interval(values)]
        table[name] = rows
    return table


def paired_deltas(
    data: ProtocolData, model: np.ndarray, baselines: dict[str, np.ndarray], n_boot: int = 1000, seed: int = SEED
) -> dict:
    """``{baseline: {scope: {metric: [delta, lo, hi]}}}``; positive deltas favour ``model`` (same resamples)."""
    draws = _scope_draws(data, n_boot, seed)
    out: dict = {}
    for name, base in baselines.items():
        rows: dict = {}
        for metric in _METRICS:
            m = _metric_draws(data, draws, model, metric)
            b = _metric_draws(data, draws, base, metric)
            for scope in m:
                rows.setdefault(scope, {})[metric] = [
                    float(m[scope][0] - b[scope][0]),
                    *percentile_interval(m[scope][1] - b[scope][1]),
                ]
        out[name] = rows
    return out


def _weighted_top_rate(y: np.ndarray, scores: np.ndarray, W: np.ndarray, fraction: float, top: bool) -> np.ndarray:
    """Positive rate among the ``ceil(fraction * total weight)`` highest (or lowest) risks, per weight row."""
    order = np.argsort(-scores if top else scores, kind="stable")
    w = W[:, order]
    yo = y[order].astype(float)
    cum = np.cumsum(w, axis=1)
    k = np.ceil(fraction * cum[:, -1:] - 1e-9)
    take = np.clip(k - (cum - w), 0.0, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (take * yo).sum(axis=1) / take.sum(axis=1)


def operating_points(
    data: ProtocolData,
    scores: dict[str, np.ndarray],
    n_boot: int = 1000,
    seed: int = SEED,
    review: Sequence[float] = REVIEW_FRACTIONS,
    accept: Sequence[float] = ACCEPT_FRACTIONS,
) -> dict:
    """``{scorer: {scope: {"review": {frac: [prec, lo, hi]}, "accept": {frac: [risk, lo, hi]}}}}``."""
    draws = _scope_draws(data, n_boot, seed)
    out: dict = {}
    for name, s in scores.items():
        rows: dict = {}
        for scope, (idx, W) in draws.items():
            y, sc = data.y[idx], s[idx]

            def point(metric, f, top):
                return [metric(y, sc, f), *percentile_interval(_weighted_top_rate(y, sc, W, f, top))]

            rows[scope] = {
                "review": {f"{f:.2f}": point(review_precision, f, True) for f in review},
                "accept": {f"{f:.2f}": point(accepted_risk, f, False) for f in accept},
            }
        out[name] = rows
    return out
