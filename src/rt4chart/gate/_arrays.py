"""Array operations the gate's features are built from: sorted-key set operations and per-example reductions.

``np.unique`` without extra outputs takes a hash-table path in NumPy 2.x that is an order of magnitude slower than a
sort on the 64-bit keys the gate uses, and ``np.isin`` sorts both arrays where one is already sorted, so
:func:`uniq` and :func:`sorted_isin` sort explicitly; with extra outputs (``return_index``, ``return_counts``) the
gate calls ``np.unique`` itself.
"""

from __future__ import annotations

import numpy as np


def uniq(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique(x)``)."""
    s = np.sort(x)
    m = np.ones(s.size, dtype=bool)
    if s.size:
        m[1:] = s[1:] != s[:-1]
    return s[m]


def sorted_isin(values: np.ndarray, sorted_ref: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_ref)`` for a sorted reference array."""
    if sorted_ref.size == 0:
        return np.zeros(values.shape, dtype=bool)
    idx = np.searchsorted(sorted_ref, values)
    idx[idx == sorted_ref.size] = 0
    return sorted_ref[idx] == values


def fraction(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    """``num / den``, and ``empty`` where ``den`` is 0."""
    out = np.full(np.shape(num), empty, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def segment_max(values: np.ndarray, seg: np.ndarray, n: int, empty: float) -> np.ndarray:
    """Largest value per segment ``0..n-1`` (``empty`` for a segment without values)."""
    out = np.full(n, -np.inf)
    np.maximum.at(out, seg, values)
    out[np.isneginf(out)] = empty
    return out


def longest_run(supported: np.ndarray, doc: np.ndarray, n: int) -> np.ndarray:
    """Longest run of consecutive True values within each example (``doc`` is non-decreasing)."""
    if supported.size == 0:
        return np.zeros(n)
    pos = np.arange(supported.size)
    start = np.ones(supported.size, dtype=bool)
    start[1:] = doc[1:] != doc[:-1]
    # A run restarts after every unsupported token and at each example's first token.
    reset = np.where(~supported, pos + 1, np.where(start, pos, 0))
    run = np.where(supported, pos - np.maximum.accumulate(reset) + 1, 0)
    return segment_max(run.astype(np.float64), doc, n, 0.0)


def block_max(a_rows, a_cols, a_vals, c_rows, c_cols, c_vals, n_a: int, n_c: int) -> np.ndarray:
    """For every answer row, the largest dot product with a context row (0 where none shares a column).

    Columns are (example, term) keys, so rows of different examples never share one: a join on the column pairs
    every answer entry with the context entries of the same key, the products are summed per (answer row, context
    row) and the maximum is taken per answer row. Pure NumPy: cheap for one record as for a batch.
    """
    best = np.zeros(n_a)
    if a_rows.size == 0 or c_rows.size == 0:
        return best
    order = np.argsort(c_cols, kind="stable")
    c_cols, c_rows, c_vals = c_cols[order], c_rows[order], c_vals[order]
    lo = np.searchsorted(c_cols, a_cols, side="left")
    hi = np.searchsorted(c_cols, a_cols, side="right")
    count = hi - lo
    if count.sum() == 0:
        return best
    a_idx = np.repeat(np.arange(a_rows.size), count)
    # positions lo, lo+1, ..., hi-1 for every answer entry, laid end to end
    offsets = np.arange(a_idx.size) - np.repeat(np.cumsum(count) - count, count)
    c_idx = np.repeat(lo, count) + offsets
    pair = a_rows[a_idx].astype(np.int64) * np.int64(n_c) + c_rows[c_idx]
    keys, inverse = np.unique(pair, return_inverse=True)
    dots = np.bincount(inverse.ravel(), weights=a_vals[a_idx] * c_vals[c_idx], minlength=keys.size)
    np.maximum.at(best, keys // n_c, dots)
    return best
