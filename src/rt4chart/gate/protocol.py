"""The RAGScope evaluation protocol (RAGScope §II-D, §III; Tables I, IV-VIII) on RAGTruth.

Controls, as the paper's checklist (Table I) asks:

* context leakage — ``StratifiedGroupKFold`` (5 folds, shuffled, seed 13) with group = task + source context, so the
  answers written from one context never straddle train and test;
* preprocessing leakage — every learned gate is cloned and fitted per training fold: TF-IDF vocabulary and IDF (E),
  standardisation and logistic regression (C, E); every reported score is out-of-fold;
* uncertain gains — 1,000 resamples of context groups (pooled: all groups; per task: that task's groups; macro: the
  per-task resamples averaged) give 95% percentile intervals, and paired deltas use the same resamples for both
  scores;
* deployment — review precision at the top 5-30% and residual risk when accepting the lowest 50-90%;
* cost — end-to-end milliseconds per example (features + scoring of the held-out folds);
* source shift (RQ5, on the tasks we have) — leave one task out (fit on the other two, score the third), and a
  target-only calibration curve: per task and seed, a grouped stratified 20% test set, ``k`` labels drawn
  prevalence-preserving from the rest, RAGScope-C fitted on those only; macro mean ± standard error over seeds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..eval.metrics import (
    auroc,
    auroc_weighted,
    average_precision,
    average_precision_weighted,
    bootstrap_weights,
    percentile_interval,
)
from .features import Batch
from .gate import RAGScopeC, RAGScopeE, RAGScopeZ
from .routing import accepted_risk, review_precision

__all__ = [
    "ProtocolData",
    "REVIEW_FRACTIONS",
    "ACCEPT_FRACTIONS",
    "CALIBRATION_LABELS",
    "load_ragtruth_data",
    "grouped_folds",
    "out_of_fold",
    "ranking_table",
    "paired_deltas",
    "operating_points",
    "transfer_study",
    "calibration_curve",
    "run_protocol",
    "render_markdown",
]

REVIEW_FRACTIONS = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
ACCEPT_FRACTIONS = (0.50, 0.60, 0.70, 0.80, 0.90)
CALIBRATION_LABELS = (25, 50, 100, 200)
SEED = 13


@dataclass
class ProtocolData:
    """Records with labels, context groups and task names, aligned by position."""

    X: list[dict]
    y: np.ndarray
    groups: np.ndarray
    tasks: np.ndarray

    def __post_init__(self) -> None:
        self.y = np.asarray(self.y, dtype=bool)
        self.groups = np.asarray(self.groups)
        self.tasks = np.asarray(self.tasks)
        if not (len(self.X) == self.y.size == self.groups.size == self.tasks.size):
            raise ValueError("X, y, groups and tasks must have the same length")

    @property
    def task_names(self) -> list[str]:
        return list(dict.fromkeys(self.tasks.tolist()))

    def subset(self, idx: np.ndarray) -> "ProtocolData":
        return ProtocolData([self.X[i] for i in idx], self.y[idx], self.groups[idx], self.tasks[idx])


def load_ragtruth_data(split: str = "test", root: Optional[str] = None) -> ProtocolData:
    """RAGTruth ``split`` as protocol data (group = the loader's task + context key)."""
    from ..eval.datasets import load_ragtruth

    recs = load_ragtruth(split, root=root)
    return ProtocolData(
        [r.to_record() for r in recs], [r.hallucinated for r in recs], [r.group for r in recs], [r.task for r in recs]
    )


def grouped_folds(y: np.ndarray, groups: np.ndarray, n_splits: int = 5, seed: int = SEED):
    """The protocol's folds: ``StratifiedGroupKFold(n_splits, shuffle=True, random_state=seed)``."""
    from sklearn.model_selection import StratifiedGroupKFold

    cv = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return list(cv.split(np.zeros(len(y)), y, groups))


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


# ---------------------------------------------------------------------------------------------------------------
# Ranking metrics with context-group intervals


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


# ---------------------------------------------------------------------------------------------------------------
# Operating points


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


# ---------------------------------------------------------------------------------------------------------------
# Source shift (RQ5) on the RAGTruth tasks


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
                gate = RAGScopeC()._fit_features(F[train], data.y[train])
                risk = gate._decision_features(F[test])
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


# ---------------------------------------------------------------------------------------------------------------
# The whole protocol


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
    cov = Batch.from_records(data.X).coverage[:, None]
    out = np.full(data.y.size, np.nan)
    for train, test in folds:
        gate = RAGScopeC()._fit_features(cov[train], data.y[train])
        out[test] = gate._decision_features(cov[test])
    return out


# ---------------------------------------------------------------------------------------------------------------
# Markdown


def _ci(v: Sequence[float], digits: int = 3) -> str:
    return f"{v[0]:.{digits}f} [{v[1]:.{digits}f}, {v[2]:.{digits}f}]"


def render_markdown(result: dict) -> str:
    """The protocol's tables as Markdown (the same numbers as the JSON)."""
    rk = result["ranking"]
    scopes = [s for s in rk["RAGScope-E"] if s not in ("macro", "combined")] + ["macro", "combined"]
    lines = [
        f"n = {result['n']} answers, {result['n_groups']} context groups; positive rate "
        + ", ".join(f"{k} {v:.3f}" for k, v in result["positive_rate"].items())
        + f"; {result['folds']['n_splits']}-fold StratifiedGroupKFold (seed {result['folds']['seed']}), "
        f"{result['n_boot']} group-bootstrap resamples.",
        "",
        "**Ranking (AUROC / AP, 95% context-group intervals).**",
        "",
        "| scorer | " + " | ".join(scopes) + " |",
        "|---|" + "---|" * len(scopes),
    ]
    for name, rows in rk.items():
        cells = [f"{rows[s]['auroc'][0]:.3f} / {rows[s]['ap'][0]:.3f}" for s in scopes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| scorer (combined) | AUROC [95% CI] | AP [95% CI] |", "|---|---|---|"]
    for name, rows in rk.items():
        lines.append(f"| {name} | {_ci(rows['combined']['auroc'])} | {_ci(rows['combined']['ap'])} |")
    lines += ["", "**Paired deltas, RAGScope-E minus baseline (same resamples).**", "",
              "| scope / baseline | ΔAUROC [95% CI] | ΔAP [95% CI] |", "|---|---|---|"]
    for base, rows in result["deltas"].items():
        for s in scopes:
            lines.append(f"| {s} / {base} | {_ci(rows[s]['auroc'])} | {_ci(rows[s]['ap'])} |")
    op = result["operating_points"]
    lines += ["", "**Operating points: review precision at top-risk ρ, accepted risk at lowest-risk α.**", ""]
    rev = list(next(iter(op.values()))["combined"]["review"])
    acc = list(next(iter(op.values()))["combined"]["accept"])
    lines += [
        "| scope | scorer | " + " | ".join(f"review {float(f):.0%}" for f in rev) + " | "
        + " | ".join(f"accept {float(f):.0%}" for f in acc) + " |",
        "|---|---|" + "---|" * (len(rev) + len(acc)),
    ]
    for s in ["combined"] + [x for x in scopes if x not in ("macro", "combined")]:
        for name, rows in op.items():
            cells = [f"{rows[s]['review'][f][0]:.3f}" for f in rev] + [f"{rows[s]['accept'][f][0]:.3f}" for f in acc]
            lines.append(f"| {s} | {name} | " + " | ".join(cells) + " |")
    lines += ["", "| scope | scorer | review 10% [95% CI] | accept 50% [95% CI] |", "|---|---|---|---|"]
    for s in ["combined"] + [x for x in scopes if x not in ("macro", "combined")]:
        for name, rows in op.items():
            lines.append(f"| {s} | {name} | {_ci(rows[s]['review']['0.10'])} | {_ci(rows[s]['accept']['0.50'])} |")
    lines += ["", "**End-to-end ms/example** (features + scoring of held-out records, this run): "
              + ", ".join(f"{k} {v:.2f}" for k, v in result["ms_per_example"].items())]
    if "transfer" in result:
        lines += ["", "**Leave one task out** (fit on the other two tasks; AUROC / AP with 95% intervals).", "",
                  "| held-out task | scorer | AUROC | AP |", "|---|---|---|---|"]
        for t, rows in result["transfer"].items():
            for name, m in rows.items():
                lines.append(f"| {t} | {name} | {_ci(m['auroc'])} | {_ci(m['ap'])} |")
    if "calibration" in result:
        lines += ["", "**Target-only calibration** (RAGScope-C on k labels of the target task; macro mean ± SE over "
                  "seeds).", "", "| training | labels | AUROC | AP |", "|---|---|---|---|"]
        for k, m in result["calibration"]["macro"].items():
            kind = "zero-shot uncovered" if k == "zero-shot" else "target-only"
            lab = "0" if k == "zero-shot" else k
            lines.append(
                f"| {kind} | {lab} | {m['auroc'][0]:.3f} ± {m['auroc'][1]:.3f} | {m['ap'][0]:.3f} ± {m['ap'][1]:.3f} |"
            )
    return "\n".join(lines) + "\n"
