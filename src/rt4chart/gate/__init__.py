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
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError
from .features import BASE_FEATURES, ENHANCED_FEATURES, base_features, enhanced_features, uncovered_fraction
from .gate import RAGScopeC, RAGScopeE, RAGScopeZ, make_gate
from .persist import load_gate, save_gate
from .routing import ROUTES, accepted_risk, review_precision, route

__all__ = [
    "BASE_FEATURES",
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
    "route_by_risk",
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


def route_by_risk(records: Sequence[Any], accept: float) -> list[tuple[float, bool]]:
    """The gate cascade's routing: per record, its risk and whether it is among the lowest-risk ``accept`` fraction
    (accepted without the judge; ``route``'s ceil rule, ties in input order)."""
    scores = risk_scores(records)
    return [(float(score), where == "accept") for score, where in zip(scores, route(scores, accept=accept))]
