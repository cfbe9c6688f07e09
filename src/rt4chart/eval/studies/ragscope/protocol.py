"""The whole RAGScope protocol in one call: out-of-fold scores of every scorer, then every table (RAGScope §II-D).

Preprocessing leakage is controlled by cloning and fitting every learned gate per training fold (TF-IDF vocabulary
and IDF for E, standardisation and logistic regression for C and E), so every reported score is out-of-fold; cost is
the end-to-end milliseconds per example of features and scoring of the held-out folds.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from ....gate import RAGScopeC, RAGScopeE, RAGScopeZ
from ....gate.risk_features import Batch

from .data import SEED, ProtocolData, grouped_folds
from .intervals import operating_points, paired_deltas, ranking_table
from .shift import CALIBRATION_LABELS, calibration_curve, transfer_study

__all__ = ["out_of_fold", "run_protocol"]


def out_of_fold(gate: Any, data: ProtocolData, folds) -> tuple[np.ndarray, float]:
    """Out-of-fold risk of a clone of ``gate`` fitted per training fold, and the scoring milliseconds per example.

    The time covers feature extraction and scoring of the held-out records (not fitting): the cost of routing.
    """
    from sklearn.base import clone

    scores = np.full(data.y.size, np.nan)
    seconds = 0.0
    for train, test in folds:
        model = clone(gate).fit([data.X[i] for i in train], data.y[train])
        X_test = [data.X[i] for i in test]
        t0 = time.perf_counter()
        scores[test] = model.predict_proba(X_test)[:, 1]
        seconds += time.perf_counter() - t0
    return scores, 1000.0 * seconds / data.y.size


def _training_free(fn: Callable[[Batch], np.ndarray], data: ProtocolData) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    s = fn(Batch.from_records(data.X))
    return s, 1000.0 * (time.perf_counter() - t0) / data.y.size


def run_protocol(
    data: ProtocolData,
    *,
    n_boot: int = 1000,
    seed: int = SEED,
    transfer: bool = True,
    calibration: bool = True,
    n_seeds: int = 10,
    calibration_labels: Sequence[int] = CALIBRATION_LABELS,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict:
    """Every table of the protocol as one JSON-serialisable dict."""
    folds = grouped_folds(data.y, data.groups, seed=seed)
    scores: dict[str, np.ndarray] = {}
    ms: dict[str, float] = {}
    log("training-free baselines")
    scores["uncovered"], ms["uncovered"] = _training_free(lambda b: 1.0 - b.coverage, data)
    scores["ROUGE-L"], ms["ROUGE-L"] = _training_free(lambda b: b.rougel_risk(), data)
    scores["token-F1"], ms["token-F1"] = _training_free(lambda b: b.token_f1_risk(), data)
    for name, gate in (("RAGScope-Z", RAGScopeZ()), ("RAGScope-C", RAGScopeC()), ("RAGScope-E", RAGScopeE())):
        log(f"{name}: grouped 5-fold out-of-fold scores")
        scores[name], ms[name] = out_of_fold(gate, data, folds)
    log("token-coverage logit (ablation)")
    scores["token-coverage logit"] = _coverage_logit(data, folds)
    log("bootstrap intervals")
    result: dict = {
        "n": int(data.y.size),
        "n_groups": int(np.unique(data.groups).size),
        "positive_rate": {t: float(data.y[data.tasks == t].mean()) for t in data.task_names}
        | {"combined": float(data.y.mean())},
        "folds": {"n_splits": len(folds), "seed": seed, "group": "task + source context"},
        "n_boot": n_boot,
        "ranking": ranking_table(data, scores, n_boot=n_boot, seed=seed),
        "deltas": paired_deltas(
            data, scores["RAGScope-E"], {"uncovered": scores["uncovered"], "ROUGE-L": scores["ROUGE-L"]},
            n_boot=n_boot, seed=seed,
        ),
        "operating_points": operating_points(
            data, {k: scores[k] for k in ("uncovered", "ROUGE-L", "RAGScope-E")}, n_boot=n_boot, seed=seed
        ),
        "ms_per_example": ms,
    }
    if transfer:
        log("leave-one-task-out transfer")
        result["transfer"] = transfer_study(data, n_boot=n_boot, seed=seed)
    if calibration:
        log("target-only calibration curve")
        result["calibration"] = calibration_curve(data, labels=calibration_labels, n_seeds=n_seeds)
    result["scores"] = {k: v.tolist() for k, v in scores.items()}
    return result


def _coverage_logit(data: ProtocolData, folds) -> np.ndarray:
    """Out-of-fold logit of a RAGScope-C fitted on the coverage column alone (an ablation row of the table)."""
    cov = Batch.from_records(data.X).coverage[:, None]
    out = np.full(data.y.size, np.nan)
    for train, test in folds:
        gate = RAGScopeC().fit_features(cov[train], data.y[train])
        out[test] = gate.decision_features(cov[test])
    return out
