"""Gates follow scikit-learn estimator conventions and learn what they should."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score

from rt4chart.errors import ConfigError, InputError
from rt4chart.gate import BASE_FEATURES, ENHANCED_FEATURES, RAGScopeC, RAGScopeE, RAGScopeZ, make_gate


@pytest.mark.parametrize("cls", [RAGScopeZ, RAGScopeC, RAGScopeE])
def test_not_fitted_error_before_fit(cls, synth):
    X, *_ = synth
    with pytest.raises(NotFittedError):
        cls().predict_proba(X[:2])


@pytest.mark.parametrize("cls", [RAGScopeC, RAGScopeE])
def test_init_stores_params_and_fit_returns_self(cls, synth):
    X, y, *_ = synth
    gate = cls(C=0.5, random_state=3)
    assert gate.get_params() == {"C": 0.5, "class_weight": "balanced", "max_iter": 1000, "random_state": 3}
    assert not [k for k in vars(gate) if k.endswith("_")]
    assert gate.fit(X, y) is gate
    learned = {k for k in vars(gate) if k.endswith("_")}
    assert {"classes_", "mean_", "scale_", "coef_", "intercept_"} <= learned
    assert clone(gate).get_params() == gate.get_params()
    assert list(gate.get_feature_names_out()) == list(BASE_FEATURES + (ENHANCED_FEATURES if cls is RAGScopeE else ()))


@pytest.mark.parametrize("cls", [RAGScopeC, RAGScopeE])
def test_learned_gate_separates_copied_from_invented_answers(cls, synth):
    X, y, *_ = synth
    gate = cls().fit(X[:60], y[:60])  # the first 15 context groups; the other 15 are unseen
    proba = gate.predict_proba(X[60:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert roc_auc_score(y[60:], proba[:, 1]) > 0.95
    assert roc_auc_score(y[60:], gate.decision_function(X[60:])) == roc_auc_score(y[60:], proba[:, 1])


def test_predict_proba_columns_follow_string_classes(synth):
    X, y, *_ = synth
    labels = np.where(y, "unfaithful", "faithful")
    gate = RAGScopeC().fit(X, labels)
    assert gate.classes_.tolist() == ["faithful", "unfaithful"]
    pred = gate.predict(X)
    assert set(pred) <= {"faithful", "unfaithful"}
    assert np.mean(pred == labels) > 0.9


def test_fit_is_deterministic(synth):
    X, y, *_ = synth
    a, b = RAGScopeE().fit(X, y), RAGScopeE().fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.tfidf_.terms == b.tfidf_.terms


def test_tfidf_is_fitted_on_training_records_only(synth):
    X, y, *_ = synth
    gate = RAGScopeE().fit(X[:20], y[:20])
    held_out = {"context": "A wholly unseen narwhal paragraph.", "answer": "Narwhal paragraph."}
    assert "narwhal" not in gate.tfidf_.terms
    gate.predict_proba([held_out])
    assert "narwhal" not in gate.tfidf_.terms


def test_z_gate_is_the_uncovered_fraction(synth):
    X, *_ = synth
    z = RAGScopeZ(threshold=0.3).fit(X)
    risk = z.decision_function([{"context": "red apples", "answer": "red pears"}])
    assert risk[0] == pytest.approx(0.5)
    assert z.predict([{"context": "red apples", "answer": "red pears"}])[0] == 1
    assert RAGScopeZ(threshold=0.6).fit(X).predict([{"context": "red apples", "answer": "red pears"}])[0] == 0


def test_bad_labels_are_rejected(synth):
    X, y, *_ = synth
    with pytest.raises(InputError, match="two classes"):
        RAGScopeC().fit(X, np.zeros(len(X)))
    with pytest.raises(InputError, match="one label per record"):
        RAGScopeC().fit(X, y[:-1])


def test_make_gate():
    assert isinstance(make_gate("e", C=2.0), RAGScopeE) and make_gate("E", C=2.0).C == 2.0
    with pytest.raises(ConfigError):
        make_gate("Q")
