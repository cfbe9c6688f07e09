"""RAGScope: a cheap local evidence gate that ranks answers by hallucination risk (Liu et al., 2026).

    >>> from rt4chart.gate import risk_scores, route
    >>> records = [{"context": "The trial lasts 14 days.", "question": None, "answer": "The trial lasts 14 days."},
    ...            {"context": "The trial lasts 14 days.", "question": None, "answer": "Refunds take 90 weeks."}]
    >>> scores = risk_scores(records)
    >>> bool(scores[1] > scores[0])
    True
    >>> route(scores, accept=0.5)
    ['accept', 'verify']

Gates are scikit-learn estimators (:class:`RAGScopeZ`, :class:`RAGScopeC`, :class:`RAGScopeE`); the package ships a
RAGScope-E gate fitted on the RAGTruth train split (``python3 -m training.fit_default_gate`` rebuilds
it), used by :func:`risk_scores` and by ``rt4chart audit --gate-accept``. The paper's leakage-controlled evaluation
of the gates is :mod:`rt4chart.eval.studies.ragscope` (``rt4chart triage eval``).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ConfigError
from .risk_features import BASE_FEATURES, ENHANCED_FEATURES, base_features, enhanced_features, uncovered_fraction
from .gate import RAGScopeC, RAGScopeE, RAGScopeZ, make_gate
from .persist import load_gate, save_gate
from .routing import ROUTES, accepted_risk, review_precision, route

__all__ = [
    "BASE_FEATURES",
    "Cascade",
    "ENHANCED_FEATURES",
    "DEFAULT_GATE_FILE",
    "ROUTES",
    "RAGScopeC",
    "RAGScopeE",
    "RAGScopeZ",
    "accepted_risk",
    "base_features",
    "enhanced_features",
    "load_default_gate",
    "load_gate",
    "make_gate",
    "review_precision",
    "risk_scores",
    "route",
    "save_gate",
    "uncovered_fraction",
]

#: File name of the shipped RAGScope-E gate inside ``rt4chart/gate/models/``.
DEFAULT_GATE_FILE = "ragscope_e.v1.npz"


@lru_cache(maxsize=1)
def load_default_gate() -> RAGScopeE:
    """The shipped RAGScope-E gate (fitted on RAGTruth train; loaded once per process)."""
    ref = resources.files(__package__) / "models" / DEFAULT_GATE_FILE
    if not ref.is_file():
        raise ConfigError(
            f"the default gate {DEFAULT_GATE_FILE} is missing from the installation; "
            "rebuild it with: python3 -m training.fit_default_gate"
        )
    with resources.as_file(ref) as path:
        gate = load_gate(path)
    if not isinstance(gate, RAGScopeE):
        raise ConfigError(f"{DEFAULT_GATE_FILE} holds a {type(gate).__name__}, expected RAGScopeE")
    return gate


def risk_scores(records: Sequence[Any]) -> np.ndarray:
    """Risk in [0, 1] per record (``context``, ``answer``, optional ``question``) from the shipped default gate."""
    if len(records) == 0:
        return np.zeros(0)
    return load_default_gate().predict_proba(records)[:, 1]


@dataclass(frozen=True)
class Cascade:
    """The gate cascade of one batch (RAGScope §II-A): the shipped gate's risk of each routed row, by its index, and
    the rows among the lowest-risk ``accept`` fraction, which are accepted without a judge (``route``'s ceil rule,
    ties in input order); the other routed rows are verified."""

    accept: float
    risks: Mapping[int, float]
    accepted: frozenset[int]

    @classmethod
    def of(cls, records: Sequence[tuple[int, Any]], accept: float) -> "Cascade":
        """Score ``(index, record)`` pairs with the shipped gate and route them."""
        scores = risk_scores([rec for _, rec in records])
        routes = route(scores, accept=accept)
        return cls(accept, {index: float(score) for (index, _), score in zip(records, scores)},
                   frozenset(index for (index, _), where in zip(records, routes) if where == "accept"))
