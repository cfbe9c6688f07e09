"""Sort-based set operations on int64 key arrays.

``np.unique`` without extra outputs takes a hash-table path in NumPy 2.x that is tens of times slower than a sort on
the 64-bit keys the gate uses, so the gate sorts explicitly.
"""

from __future__ import annotations

import numpy as np


def uniq(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values."""
    s = np.sort(x)
    return s[_starts(s)]


def uniq_first(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and the index of each one's first occurrence in ``x``."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    m = _starts(s)
    return s[m], order[m]


def uniq_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values, first-occurrence indices and counts."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    m = _starts(s)
    at = np.flatnonzero(m)
    return s[m], order[m], np.diff(np.append(at, s.size))


def sorted_isin(values: np.ndarray, sorted_ref: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_ref)`` for a sorted reference array."""
    if sorted_ref.size == 0:
        return np.zeros(values.shape, dtype=bool)
    idx = np.searchsorted(sorted_ref, values)
    idx[idx == sorted_ref.size] = 0
    return sorted_ref[idx] == values


def _starts(s: np.ndarray) -> np.ndarray:
    m = np.ones(s.size, dtype=bool)
    if s.size:
        m[1:] = s[1:] != s[:-1]
    return m
