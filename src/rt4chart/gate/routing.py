"""Budgeted routing by risk rank (RAGScope §II-A): review the riskiest, accept the safest, verify the rest.

Operating points are workload fractions fixed before scoring: with ``n`` records, the ``ceil(review * n)`` highest
risks go to review and the ``ceil(accept * n)`` lowest go to automatic acceptance (review wins where the two
overlap); everything else goes to the stronger verifier. Ties are broken by input order, so routing is
deterministic.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import ConfigError

__all__ = ["ROUTES", "route", "review_precision", "accepted_risk"]

ROUTES = ("accept", "verify", "review")


def _check_fraction(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{name} must be a fraction in [0, 1], got {value}")


def _count(fraction: float, n: int) -> int:
    # A tolerance keeps 0.3 * 10 from becoming 4 through floating-point error.
    return min(n, math.ceil(fraction * n - 1e-9))


def route(scores: Sequence[float], *, review: float = 0.0, accept: float = 0.0) -> list[str]:
    """Route per record: ``"review"`` (top ``review`` fraction), ``"accept"`` (bottom ``accept``) or ``"verify"``."""
    _check_fraction("review", review)
    _check_fraction("accept", accept)
    s = np.asarray(scores, dtype=float)
    if np.isnan(s).any():
        raise ConfigError("risk scores contain NaN")
    n = s.size
    order = np.argsort(s, kind="stable")  # ascending risk; equal risks keep input order
    out = np.full(n, "verify", dtype=object)
    out[order[: _count(accept, n)]] = "accept"
    n_review = _count(review, n)
    if n_review:
        out[order[n - n_review :]] = "review"
    return out.tolist()


def review_precision(y: np.ndarray, scores: np.ndarray, fraction: float) -> float:
    """Share of unfaithful answers among the ``ceil(fraction * n)`` highest risks (Prec_rho)."""
    k = max(1, _count(fraction, len(scores)))
    top = np.argsort(-np.asarray(scores, dtype=float), kind="stable")[:k]
    return float(np.asarray(y, dtype=float)[top].mean())


def accepted_risk(y: np.ndarray, scores: np.ndarray, fraction: float) -> float:
    """Share of unfaithful answers among the ``ceil(fraction * n)`` lowest risks (Risk_alpha)."""
    k = max(1, _count(fraction, len(scores)))
    low = np.argsort(np.asarray(scores, dtype=float), kind="stable")[:k]
    return float(np.asarray(y, dtype=float)[low].mean())
