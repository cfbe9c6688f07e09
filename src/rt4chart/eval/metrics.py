"""Evaluation metrics: pure numpy functions (RT4CHART §4.2, RAGScope §II-IV).

* Answer level: precision/recall/F1 with *hallucinated* as the positive class (:func:`answer_prf`).
* Span level: micro character-overlap P/R/F1 (:func:`span_prf`). Per sample ``s`` let ``G_s``/``P_s`` be the union
  of gold/predicted character offsets; ``TP = Σ|G_s ∩ P_s|``, ``FP = Σ|P_s \\ G_s|``, ``FN = Σ|G_s \\ P_s|``
  (RT4CHART §4.2, following RAGTruth). The same scoring serves context-evidence grounding.
* Ranking: :func:`auroc` and :func:`average_precision` (step-wise AP, as scikit-learn's ``average_precision_score``).
* Uncertainty: :func:`group_bootstrap` resamples source-context groups with replacement (RAGScope §II.D) and
  returns a percentile interval. :func:`bootstrap_weights` draws the same resamples as a count matrix so additive
  metrics and the ranking metrics can be evaluated for all resamples at once (``*_weighted`` functions); for one
  seed both paths see identical resamples.

Conventions: a point estimate with an empty denominator is 0.0 (scikit-learn's ``zero_division=0``); the ranking
metrics are NaN when only one class is present; in bootstrap resamples an undefined ratio is NaN and the
intervals ignore NaN resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from ..types import merge_intervals

__all__ = [
    "PRF",
    "prf_from_counts",
    "answer_prf",
    "answer_counts",
    "span_counts",
    "span_prf",
    "merge_spans",
    "auroc",
    "average_precision",
    "group_indices",
    "bootstrap_weights",
    "group_bootstrap",
    "percentile_interval",
    "prf_weighted",
    "auroc_weighted",
    "average_precision_weighted",
    "ranking_weighted",
    "confusion",
]


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 with the counts they came from."""

    precision: float
    recall: float
    f1: float
    tp: float
    fp: float
    fn: float

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": _num(self.tp), "fp": _num(self.fp), "fn": _num(self.fn)}


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def _ratio(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray | float:
    num_a, den_a = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.divide(num_a, den_a, out=np.zeros(np.broadcast(num_a, den_a).shape), where=den_a > 0)
    return float(out) if out.ndim == 0 else out


def prf_from_counts(tp: float, fp: float, fn: float) -> PRF:
    """P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN); 0.0 where a denominator is empty."""
    return PRF(
        precision=float(_ratio(tp, tp + fp)),
        recall=float(_ratio(tp, tp + fn)),
        f1=float(_ratio(2 * tp, 2 * tp + fp + fn)),
        tp=float(tp), fp=float(fp), fn=float(fn),
    )


def _bool_array(values: Iterable[Any], name: str) -> np.ndarray:
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.dtype != bool:
        if not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must hold booleans or 0/1")
        arr = arr.astype(bool)
    return arr


def answer_counts(y_true: Iterable[Any], y_pred: Iterable[Any]) -> np.ndarray:
    """Per-answer (tp, fp, fn) as an ``n × 3`` int array; positive = hallucinated."""
    t, p = _bool_array(y_true, "y_true"), _bool_array(y_pred, "y_pred")
    if t.shape != p.shape:
        raise ValueError(f"y_true has {t.size} items but y_pred has {p.size}")
    return np.stack([t & p, ~t & p, t & ~p], axis=1).astype(np.int64)


def answer_prf(y_true: Iterable[Any], y_pred: Iterable[Any]) -> PRF:
    """Answer-level P/R/F1 with *hallucinated* as the positive class (RT4CHART §4.2)."""
    c = answer_counts(y_true, y_pred).sum(axis=0)
    return prf_from_counts(*c)


# ---------------------------------------------------------------------------------------------------------------
# Spans


def _as_pair(span: Any) -> tuple[int, int]:
    if isinstance(span, dict):
        return int(span["start"]), int(span["end"])
    if hasattr(span, "start") and hasattr(span, "end"):
        return int(span.start), int(span.end)
    start, end = span[0], span[1]
    return int(start), int(end)


def merge_spans(spans: Iterable[Any]) -> list[tuple[int, int]]:
    """Union of half-open intervals as sorted, disjoint ``(start, end)`` pairs; empty intervals dropped.

    Accepts pairs, ``{"start", "end"}`` dicts, or objects with ``start``/``end`` attributes.
    """
    return merge_intervals(p for p in (_as_pair(s) for s in spans) if p[1] > p[0])


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Total length of the intersection of two sorted disjoint interval lists (two-pointer sweep)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_counts(gold_spans_per_record: Sequence[Iterable[Any]],
                pred_spans_per_record: Sequence[Iterable[Any]]) -> np.ndarray:
    """Per-sample character (tp, fp, fn) as an ``n × 3`` int array (RT4CHART §4.2)."""
    if len(gold_spans_per_record) != len(pred_spans_per_record):
        raise ValueError(f"{len(gold_spans_per_record)} gold span lists but {len(pred_spans_per_record)} predicted")
    out = np.zeros((len(gold_spans_per_record), 3), dtype=np.int64)
    for k, (gold, pred) in enumerate(zip(gold_spans_per_record, pred_spans_per_record)):
        g, p = merge_spans(gold or ()), merge_spans(pred or ())
        inter = _overlap(g, p)
        out[k] = (inter, sum(e - s for s, e in p) - inter, sum(e - s for s, e in g) - inter)
    return out


def span_prf(gold_spans_per_record: Sequence[Iterable[Any]], pred_spans_per_record: Sequence[Iterable[Any]]) -> PRF:
    """Micro character-overlap P/R/F1: TP/FP/FN summed over samples, then the ratios (RT4CHART §4.2)."""
    return prf_from_counts(*span_counts(gold_spans_per_record, pred_spans_per_record).sum(axis=0))


# ---------------------------------------------------------------------------------------------------------------
# Ranking


def _ranking_inputs(y_true: Iterable[Any], scores: Iterable[Any]) -> tuple[np.ndarray, np.ndarray]:
    y = _bool_array(y_true, "y_true")
    s = np.asarray(list(scores) if not isinstance(scores, np.ndarray) else scores, dtype=float)
    if s.shape != y.shape:
        raise ValueError(f"y_true has {y.size} items but scores has {s.size}")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite")
    return y, s


def auroc(y_true: Iterable[Any], scores: Iterable[Any]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties count one half); NaN with a single class."""
    y, s = _ranking_inputs(y_true, scores)
    return float(auroc_weighted(y, s, np.ones((1, y.size)))[0])


def average_precision(y_true: Iterable[Any], scores: Iterable[Any]) -> float:
    """Average precision ``Σ (R_k − R_{k−1}) P_k`` over distinct thresholds (no interpolation); NaN without
    positives. Equals scikit-learn's ``average_precision_score``."""
    y, s = _ranking_inputs(y_true, scores)
    return float(average_precision_weighted(y, s, np.ones((1, y.size)))[0])


def _cumulative_by_block(y: np.ndarray, s: np.ndarray, weights: np.ndarray, descending: bool
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative positive and negative weight at the end of each run of equal scores (``U × B``), scores
    sorted ascending or descending.

    Works on the transposed weights (rows in score order, contiguous) and takes cumulative sums over all rows,
    then keeps the last row of each run of ties: much faster than a per-block ``reduceat``.
    """
    order = np.argsort(-s if descending else s, kind="mergesort")
    s_sorted = s[order]
    ends = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    w = np.asarray(weights)
    # float32 bootstrap counts stay exact in float32 cumulative sums (integers below 2**24) and halve the memory
    # traffic; anything else is summed in float64. The results are float64 either way.
    dtype = np.float32 if w.dtype == np.float32 and w.shape[1] * float(w.max(initial=0)) < 2**24 else np.float64
    wt = w.astype(dtype, copy=False).T[order]  # n × B, rows in score order
    yo = y[order][:, None]
    zero = dtype(0)
    cpos = np.cumsum(np.where(yo, wt, zero), axis=0)[ends].astype(np.float64)
    cneg = np.cumsum(np.where(yo, zero, wt), axis=0)[ends].astype(np.float64)
    return cpos, cneg


def ranking_weighted(y_true: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(AUROC, AP)`` for each row of ``weights`` (``B × n`` sample weights, e.g. bootstrap counts), from one
    descending sort: AUROC counts, for each positive block, the negatives scored lower plus half the ties."""
    y, s = np.asarray(y_true, dtype=bool), np.asarray(scores, dtype=float)
    w = np.atleast_2d(np.asarray(weights))
    if s.size == 0:
        nan = np.full(w.shape[0], np.nan)
        return nan, nan.copy()
    tps, fps = _cumulative_by_block(y, s, w, descending=True)
    total_pos, total_neg = tps[-1], fps[-1]
    pos = np.diff(tps, axis=0, prepend=0.0)
    neg = np.diff(fps, axis=0, prepend=0.0)
    num = (pos * (total_neg - fps + 0.5 * neg)).sum(axis=0)
    den = total_pos * total_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        precision = np.where(tps + fps > 0, tps / np.where(tps + fps > 0, tps + fps, 1.0), 0.0)
    recall = tps / np.where(total_pos > 0, total_pos, 1.0)
    ap = (np.diff(recall, axis=0, prepend=0.0) * precision).sum(axis=0)
    return auc, np.where(total_pos > 0, ap, np.nan)


def auroc_weighted(y_true: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUROC for each row of ``weights`` (``B × n``)."""
    return ranking_weighted(y_true, scores, weights)[0]


def average_precision_weighted(y_true: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average precision for each row of ``weights`` (``B × n``)."""
    return ranking_weighted(y_true, scores, weights)[1]


def prf_weighted(counts: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """P/R/F1 for each row of ``weights`` (``B × n``) from per-sample (tp, fp, fn) ``counts`` (``n × 3``).

    Unlike :func:`prf_from_counts`, a ratio with an empty denominator is NaN here: a resample without predicted
    (or gold) positives says nothing about precision (recall), so the interval ignores it.
    """
    tot = np.atleast_2d(np.asarray(weights, dtype=np.float64)) @ np.asarray(counts, dtype=np.float64).reshape(-1, 3)
    tp, fp, fn = tot[:, 0], tot[:, 1], tot[:, 2]

    def nan_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)

    return {
        "precision": nan_ratio(tp, tp + fp),
        "recall": nan_ratio(tp, tp + fn),
        "f1": nan_ratio(2 * tp, 2 * tp + fp + fn),
    }


# ---------------------------------------------------------------------------------------------------------------
# Group bootstrap (RAGScope §II.D: resample source-context groups, not answers)


def group_indices(groups: Sequence[Any]) -> tuple[np.ndarray, int]:
    """Dense group ids ``0..G-1`` (first-appearance order) and the number of groups G."""
    ids: dict[Any, int] = {}
    dense = np.fromiter((ids.setdefault(g, len(ids)) for g in groups), dtype=np.int64, count=len(groups))
    return dense, len(ids)


def bootstrap_weights(groups: Sequence[Any], n: int = 1000, seed: int = 0) -> np.ndarray:
    """``n × len(groups)`` resample counts: each row draws G groups with replacement (numpy PCG64, ``seed``) and
    gives every record the number of times its group was drawn. float32 (the counts are small exact integers)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    dense, n_groups = group_indices(groups)
    if n_groups == 0:
        return np.zeros((n, 0))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_groups, size=(n, n_groups))
    flat = (draws + (np.arange(n) * n_groups)[:, None]).ravel()
    group_counts = np.bincount(flat, minlength=n * n_groups).reshape(n, n_groups).astype(np.float32)
    return group_counts[:, dense]


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap values, ignoring NaN; (nan, nan) when every value is NaN."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return (float("nan"), float("nan"))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.percentile(v, [100 * alpha, 100 * (1 - alpha)])
    return (float(lo), float(hi))


def group_bootstrap(
    metric_fn: Callable[[np.ndarray], float],
    groups: Sequence[Any],
    n: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of ``metric_fn(indices)`` over ``n`` resamples of source-context groups.

    ``metric_fn`` receives the record indices of one resample (a record appears as often as its group was drawn)
    and returns a number; NaN results are ignored. The resamples are the rows of :func:`bootstrap_weights` for the
    same seed, so this generic path and the vectorised ``*_weighted`` path agree exactly.
    """
    weights = bootstrap_weights(groups, n=n, seed=seed).astype(np.int64)
    base = np.arange(weights.shape[1])
    values = np.array([metric_fn(np.repeat(base, row)) for row in weights], dtype=float)
    return percentile_interval(values, confidence)


# ---------------------------------------------------------------------------------------------------------------
# Label analysis


def confusion(gold: Sequence[str], pred: Sequence[str], gold_classes: Optional[Sequence[str]] = None,
              pred_classes: Optional[Sequence[str]] = None) -> dict[str, dict[str, int]]:
    """Confusion table ``{gold: {pred: count}}`` with fixed row/column order (classes seen are appended)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predicted")
    rows = list(gold_classes or [])
    cols = list(pred_classes or [])
    for g in gold:
        if g not in rows:
            rows.append(g)
    for p in pred:
        if p not in cols:
            cols.append(p)
    table = {r: {c: 0 for c in cols} for r in rows}
    for g, p in zip(gold, pred):
        table[g][p] += 1
    return table
