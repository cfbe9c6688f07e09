"""Fitting a calibration on labelled answers (``rt4chart calibrate``) and measuring what it buys
(``rt4chart eval calibrate``).

A calibration (``rt4chart.audit.calibration.Calibration``) maps a judge's answer score to a probability with a
monotone function fitted on labels, and decides ``score >= threshold`` with the threshold that meets a target on
those labels (``choose_threshold``: F1 by default). With few labels (under ``PLATT_BELOW``) the map is Platt's
two-parameter logistic, else isotonic regression; the threshold is chosen on the expected counts the map gives the
labelled scores (``probability`` as a soft label), which varies less from one small sample to the next than the
counts of the labels themselves. For the F1 target, given the judge's own threshold (``judge_threshold``: the
score threshold that best reproduces its decisions, on every answer it audited, labelled or not), the threshold is
then shrunk toward it as if the judge's had been seen on ``PRIOR_LABELS`` more answers:
``(n * fitted + k * judge's) / (n + k)``, so that a few labels move it a little and many labels a lot. These choices
were measured on the RAGTruth train split (docs/results/calibration.md).
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from rt4chart.audit.calibration import Calibration
from rt4chart.errors import InputError

from . import metrics as M
from .baselines import choose_threshold, parse_target
from .datasets import TASKS, EvalRecord
from .predictions import Prediction

__all__ = ["MIN_LABELS", "PLATT_BELOW", "PRIOR_LABELS", "check_labels", "fit_calibration", "cross_validate",
           "judge_threshold", "learning_curve"]

#: fewer labels than this: no calibration (a clear error, nothing written)
MIN_LABELS = 20
#: under this many labels the map is Platt's logistic, at and above it isotonic regression
PLATT_BELOW = 400
#: the inverse L2 strength of Platt's logistic regression (scikit-learn's ``C``; 10 and 1000 measured the same on the
#: RAGTruth train split, 1 much worse: docs/results/calibration.md)
PLATT_C = 100.0
#: how many labels the judge's own threshold counts for when the fitted one is shrunk toward it
PRIOR_LABELS = 100.0
METHODS = ("auto", "isotonic", "platt")
CUTS = ("expected", "labels")


def check_labels(labels: Sequence[bool]) -> None:
    """``InputError`` unless there are at least ``MIN_LABELS`` labels of both classes."""
    n, positives = len(labels), int(sum(bool(v) for v in labels))
    if n < MIN_LABELS:
        raise InputError(f"a calibration needs at least {MIN_LABELS} labelled answers, got {n}", field="hallucinated")
    if positives in (0, n):
        raise InputError(f"all {n} labels are hallucinated={bool(positives)}: a calibration needs answers of both "
                         "classes", field="hallucinated")


def _resolve(method: str, n: int) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}")
    return ("platt" if n < PLATT_BELOW else "isotonic") if method == "auto" else method


def _fit_map(scores: np.ndarray, y: np.ndarray, method: str) -> dict[str, Any]:
    if method == "platt":
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=PLATT_C, max_iter=1000).fit(scores.reshape(-1, 1), y.astype(int))
        coef = max(float(model.coef_[0, 0]), 0.0)  # a map that falls with the score is no calibration: flat instead
        intercept = float(model.intercept_[0]) if coef > 0 else float(np.log(y.mean() / (1 - y.mean())))
        return {"coef": coef, "intercept": intercept}
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, y.astype(float))
    return {"x": tuple(float(v) for v in iso.X_thresholds_), "y": tuple(float(v) for v in iso.y_thresholds_)}


def judge_threshold(scores: Sequence[float], judged: Sequence[bool]) -> float:
    """The score threshold whose decisions agree most with the judge's own (ties: the lowest). Estimate it on every
    answer the judge decided: on a few, with one or two flagged, it is the lowest flagged score, far from the
    judge's threshold."""
    s = np.asarray(scores, dtype=float)
    j = np.asarray([bool(v) for v in judged])
    cands = np.unique(s)
    agree = [int(((s >= t) == j).sum()) for t in cands]
    return float(cands[int(np.argmax(agree))])


def fit_calibration(scores: Sequence[float], labels: Sequence[bool], *, judge: str,
                    judge_fingerprint: Optional[str] = None, target: str = "f1", method: str = "auto",
                    cut: str = "expected", own: Optional[float] = None, prior: Optional[float] = None,
                    meta: Optional[Mapping[str, Any]] = None) -> Calibration:
    """Fit a calibration of ``judge`` on answer scores and gold labels (``check_labels`` first).

    ``method``: ``auto`` (Platt under ``PLATT_BELOW`` labels, else isotonic), ``isotonic`` or ``platt``. ``cut``:
    ``expected`` chooses the threshold on the map's probabilities of the labelled scores, ``labels`` on the labels.
    ``own``: the judge's own threshold (``judge_threshold``); for the F1 target, the fitted threshold is shrunk
    toward it with the weight of ``prior`` labels (default ``PRIOR_LABELS``). A precision or recall target is
    another threshold than the judge's, so it is not shrunk.
    """
    parse_target(target)
    if cut not in CUTS:
        raise ValueError(f"cut must be one of {', '.join(CUTS)}")
    y = np.asarray([bool(v) for v in labels])
    s = np.asarray(scores, dtype=float)
    check_labels(list(y))
    if s.shape != y.shape or not np.isfinite(s).all():
        raise InputError("every labelled answer needs a finite score", field="score")
    how = _resolve(method, len(y))
    params = _fit_map(s, y, how)
    draft = Calibration(judge=judge, judge_fingerprint=judge_fingerprint, method=how, threshold=0.0, **params)
    soft = [draft.probability(v) for v in s] if cut == "expected" else y
    fitted = threshold = choose_threshold(soft, s, target)
    info: dict[str, Any] = {"target": target, "labels": int(y.size), "positives": int(y.sum()), "cut": cut}
    k = PRIOR_LABELS if prior is None else float(prior)
    if own is not None and k > 0 and parse_target(target)[0] == "f1":  # the judge's threshold is no precision's
        threshold = (y.size * fitted + k * own) / (y.size + k)
        info.update(fitted_threshold=fitted, judge_threshold=own, prior_labels=k)
    info.update(meta or {})
    return Calibration(judge=judge, judge_fingerprint=judge_fingerprint, method=how, threshold=threshold,
                       meta=info, **params)


def _folds(y: np.ndarray, groups: Sequence[Any], k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedGroupKFold

    codes, n_groups = M.group_indices(groups)
    splitter = StratifiedGroupKFold(n_splits=max(2, min(k, n_groups)), shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # a class rarer than the folds: such folds are counted as failed, not hidden
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        return list(splitter.split(np.zeros(len(y)), y.astype(int), codes))


def cross_validate(scores: Sequence[float], labels: Sequence[bool], groups: Sequence[Any], *, judge: str,
                   target: str = "f1", method: str = "auto", cut: str = "expected", folds: int = 5,
                   seed: int = 0, own: Optional[float] = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Out-of-fold decisions and probabilities of calibrations fitted on the other folds (folds keep ``groups``
    whole and the classes balanced), and the number of folds whose training part could not be calibrated (too few
    labels or one class: their answers get no decision, ``-1``, and probability NaN)."""
    y = np.asarray([bool(v) for v in labels])
    s = np.asarray(scores, dtype=float)
    decided = np.full(y.size, -1, dtype=int)
    prob = np.full(y.size, np.nan)
    failed = 0
    for train, test in _folds(y, groups, folds, seed):
        try:
            cal = fit_calibration(s[train], y[train], judge=judge, target=target, method=method, cut=cut,
                                  own=own)
        except InputError:
            failed += 1
            continue
        decided[test] = s[test] >= cal.threshold
        prob[test] = [cal.probability(v) for v in s[test]]
    return decided, prob, failed


def _f1(y: np.ndarray, pred: np.ndarray) -> float:
    return float(M.answer_prf(y, pred).f1)


def _draw(records: Sequence[EvalRecord], n: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """``n`` answers taken source group by source group in a random order, and the answers of the untouched groups
    (a group is never on both sides)."""
    order: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        order.setdefault(r.group, []).append(i)
    keys = list(order)
    rng.shuffle(keys)
    fit: list[int] = []
    used = 0
    for used, key in enumerate(keys, 1):
        fit.extend(order[key])
        if len(fit) >= n:
            break
    rest = [i for key in keys[used:] for i in order[key]]
    return fit[:n], rest


def learning_curve(records: Sequence[EvalRecord], preds: Mapping[str, Prediction], *,
                   sizes: Sequence[int] = (25, 50, 100, 200), draws: int = 5, seed: int = 0, target: str = "f1",
                   method: str = "auto", cut: str = "expected", judge: str = "judge",
                   prior: Optional[float] = None) -> dict[str, Any]:
    """Per task: fit a calibration on ``n`` labelled answers of that task (``draws`` random draws of whole source
    groups per size) and score, on the rest of the task, the answer F1 of the calibrated decision, of the judge's
    own decision and of always flagging. Draws whose sample has one class only are counted, not scored."""
    rows: list[dict[str, Any]] = []
    for t_index, task in enumerate(TASKS):
        recs = [r for r in records if r.task == task and r.id in preds]
        if not recs:
            continue
        y = np.array([r.hallucinated for r in recs])
        s = np.array([preds[r.id].score for r in recs], dtype=float)
        judged = np.array([bool(preds[r.id].hallucinated) for r in recs])
        own = judge_threshold(s, judged)  # the judge's decisions on the whole task: no label is read
        for n in sizes:
            if n >= len(recs):
                continue
            scored: list[tuple[float, float, float, float]] = []
            skipped = 0
            for d in range(draws):
                fit, rest = _draw(recs, n, np.random.default_rng([seed, t_index, n, d]))
                try:
                    cal = fit_calibration(s[fit], y[fit], judge=judge, target=target, method=method, cut=cut,
                                          own=own, prior=prior)
                except InputError:
                    skipped += 1
                    continue
                yt = y[rest]
                scored.append((_f1(yt, s[rest] >= cal.threshold), _f1(yt, judged[rest]),
                               _f1(yt, np.ones(len(rest), dtype=bool)), cal.threshold))
            arr = np.array(scored) if scored else np.full((0, 4), np.nan)
            rows.append({
                "task": task, "labels": n, "draws": len(scored), "skipped_one_class": skipped,
                "test_answers": int(len(recs) - n), "method": _resolve(method, n),
                "calibrated_f1": _stat(arr[:, 0]), "uncalibrated_f1": _stat(arr[:, 1]),
                "always_flag_f1": _stat(arr[:, 2]), "delta_vs_uncalibrated": _stat(arr[:, 0] - arr[:, 1]),
                "threshold": _stat(arr[:, 3]),
            })
    return {"sizes": list(sizes), "draws": draws, "seed": seed, "target": target, "method": method, "cut": cut,
            "prior_labels": PRIOR_LABELS if prior is None else prior, "rows": rows}


def _stat(values: np.ndarray) -> dict[str, Optional[float]]:
    if values.size == 0:
        return {"mean": None, "min": None, "max": None}
    return {"mean": round(float(values.mean()), 4), "min": round(float(values.min()), 4),
            "max": round(float(values.max()), 4)}


def render_curve(curve: Mapping[str, Any], title: str) -> str:
    """The learning curve as a markdown table (means over draws; min–max in brackets)."""
    def cell(stat: Mapping[str, Optional[float]]) -> str:
        if stat["mean"] is None:
            return "–"
        return f"{stat['mean']:.3f} [{stat['min']:.3f}–{stat['max']:.3f}]"

    lines = [f"### {title}", "",
             f"Fit on N labelled answers of one task ({curve['draws']} random draws of whole source groups, seed "
             f"{curve['seed']}), scored on the rest of that task; target {curve['target']}, method "
             f"{curve['method']}, threshold on {curve['cut']} counts, shrunk toward the judge's with the weight of "
             f"{curve['prior_labels']:g} labels. Answer F1, mean [min–max] over draws.", "",
             "| task | N | map | calibrated | uncalibrated | always flag | calibrated − uncalibrated | draws |",
             "|---|---:|---|---|---|---|---|---:|"]
    for r in curve["rows"]:
        lines.append(f"| {r['task']} | {r['labels']} | {r['method']} | {cell(r['calibrated_f1'])} | "
                     f"{cell(r['uncalibrated_f1'])} | {cell(r['always_flag_f1'])} | "
                     f"{cell(r['delta_vs_uncalibrated'])} | {r['draws']}"
                     + (f" ({r['skipped_one_class']} one-class)" if r["skipped_one_class"] else "") + " |")
    return "\n".join(lines) + "\n"
