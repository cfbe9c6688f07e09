"""RAGScope gates as scikit-learn estimators (RAGScope §II-B, §II-C).

* :class:`RAGScopeZ` — the training-free uncovered-token fraction; ``fit`` only records the classes.
* :class:`RAGScopeC` — standardised, class-balanced L2 logistic regression on the base feature family.
* :class:`RAGScopeE` — the same on base + enhanced features; the TF-IDF space is fitted inside ``fit`` on the
  training records only, so cross-validating the estimator keeps the preprocessing fold-scoped (§II-D).

``X`` is a sequence of input records (``context``, ``answer``, optional ``question``) or ``(question, context,
answer)`` tuples; ``y`` marks unfaithful answers. ``decision_function`` and ``predict_proba[:, 1]`` are risk scores
(larger = more likely unfaithful). Learned parameters are plain arrays (``mean_``, ``scale_``, ``coef_``,
``intercept_``, and for E the ``tfidf_`` vocabulary), which is what :mod:`rt4chart.gate.persist` saves.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..errors import ConfigError, InputError, MissingDependencyError
from .risk_features import BASE_FEATURES, ENHANCED_FEATURES, Batch, fit_tfidf

try:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.validation import check_is_fitted
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError("scikit-learn", "gate") from exc

__all__ = ["RAGScopeZ", "RAGScopeC", "RAGScopeE", "make_gate", "GATES"]


def _labels(y: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Validated binary labels: ``(classes, y as 0/1 indices into classes)``."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise InputError(f"y must be one label per record: got shape {y.shape} for {n} records")
    classes, idx = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise InputError(f"a gate needs exactly two classes in y, got {classes.size}: {classes.tolist()}")
    return classes, idx


class GateBase(ClassifierMixin, BaseEstimator):
    """Shared scoring: ``predict_proba`` columns follow ``classes_``; the positive class is ``classes_[1]``."""

    def decision_function(self, X: Sequence[Any]) -> np.ndarray:
        raise NotImplementedError

    def predict_proba(self, X: Sequence[Any]) -> np.ndarray:
        p = self._risk_probability(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Sequence[Any]) -> np.ndarray:
        return self.classes_[(self._risk_probability(X) >= 0.5).astype(int)]

    def _risk_probability(self, X: Sequence[Any]) -> np.ndarray:
        raise NotImplementedError


class RAGScopeZ(GateBase):
    """Training-free gate: risk = fraction of distinct non-stopword answer tokens absent from the context.

    Parameters
    ----------
    threshold : float, default=0.5
        ``predict`` flags an answer when its uncovered fraction is at least this.
    """

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def fit(self, X: Sequence[Any], y: Optional[Any] = None) -> "RAGScopeZ":
        """Nothing is learned; records the classes (``[0, 1]`` without ``y``)."""
        self.classes_ = np.array([0, 1]) if y is None else _labels(y, len(X))[0]
        return self

    def decision_function(self, X: Sequence[Any]) -> np.ndarray:
        check_is_fitted(self)
        return 1.0 - Batch.from_records(X).coverage

    def _risk_probability(self, X: Sequence[Any]) -> np.ndarray:
        return self.decision_function(X)

    def predict(self, X: Sequence[Any]) -> np.ndarray:
        return self.classes_[(self.decision_function(X) >= self.threshold).astype(int)]


class LinearGate(GateBase):
    """Standardisation + class-balanced logistic regression (lbfgs, L2) over a feature family."""

    _enhanced = False

    def __init__(
        self,
        *,
        C: float = 1.0,
        class_weight: Optional[str] = "balanced",
        max_iter: int = 1000,
        random_state: Optional[int] = 13,
    ) -> None:
        self.C = C
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.random_state = random_state

    @property
    def feature_names(self) -> tuple[str, ...]:
        return BASE_FEATURES + ENHANCED_FEATURES if self._enhanced else BASE_FEATURES

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        return np.array(self.feature_names, dtype=object)

    def _features(self, batch: Batch) -> np.ndarray:
        base = batch.base()
        if not self._enhanced:
            return base
        return np.hstack([base, batch.enhanced(self.tfidf_)])

    def fit(self, X: Sequence[Any], y: Any) -> "LinearGate":
        """Fit (for E: TF-IDF on the training records, then) the scaler and the logistic regression."""
        batch = Batch.from_records(X)
        _labels(y, batch.n)
        if self._enhanced:
            self.tfidf_ = fit_tfidf(batch.triples)
        return self.fit_features(self._features(batch), y)

    def fit_features(self, F: np.ndarray, y: Any) -> "LinearGate":
        """Standardise ``F`` and fit the logistic regression: ``fit`` after feature extraction, for callers that
        computed the feature matrix once (columns in :attr:`feature_names` order)."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        classes, yi = _labels(y, F.shape[0])
        scaler = StandardScaler().fit(F)  # a constant feature gets scale 1
        lr = LogisticRegression(
            C=self.C,
            class_weight=self.class_weight,
            max_iter=self.max_iter,
            solver="lbfgs",
            random_state=self.random_state,
        ).fit(scaler.transform(F), yi)
        self.classes_ = classes
        self.mean_ = scaler.mean_
        self.scale_ = scaler.scale_
        self.coef_ = lr.coef_.ravel().copy()
        self.intercept_ = float(lr.intercept_[0])
        self.n_iter_ = int(lr.n_iter_[0])
        return self

    def decision_features(self, F: np.ndarray) -> np.ndarray:
        """Logit of the risk from a feature matrix whose columns follow :attr:`feature_names` (standardised as
        ``StandardScaler.transform`` does, with the stored ``mean_`` and ``scale_``)."""
        return ((F - self.mean_) / self.scale_) @ self.coef_ + self.intercept_

    def decision_function(self, X: Sequence[Any]) -> np.ndarray:
        """Logit of the risk (positive class ``classes_[1]``)."""
        check_is_fitted(self)
        return self.decision_features(self._features(Batch.from_records(X)))

    def _risk_probability(self, X: Sequence[Any]) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))


class RAGScopeC(LinearGate):
    """Calibrated gate on the base family (RAGScope-C, §II-B).

    Parameters
    ----------
    C : float, default=1.0
        Inverse L2 regularisation strength of the logistic regression.
    class_weight : "balanced" or None, default="balanced"
    max_iter : int, default=1000
    random_state : int or None, default=13
        Passed to the logistic regression.
    """


class RAGScopeE(LinearGate):
    """Enhanced gate: base family + ROUGE-L, token-F1, TF-IDF and sentence TF-IDF risks (RAGScope-E, §II-C).

    Parameters are those of :class:`RAGScopeC`. ``tfidf_`` is the TF-IDF space fitted on the training records'
    distinct contexts and answers.
    """

    _enhanced = True


GATES = {"Z": RAGScopeZ, "C": RAGScopeC, "E": RAGScopeE}


def make_gate(variant: str, **params: Any) -> GateBase:
    """A fresh gate by variant letter ``"Z"``, ``"C"`` or ``"E"``."""
    try:
        cls = GATES[variant.upper()]
    except KeyError:
        raise ConfigError(f"unknown gate variant {variant!r}; expected one of Z, C, E") from None
    return cls(**params)
