"""``rt4chart.eval.calibrate``: threshold targets, fitting, cross-validation and the learning curve."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from rt4chart.errors import ConfigError, InputError
from rt4chart.eval.baselines import choose_threshold, parse_target
from rt4chart.eval.calibrate import (
    MIN_LABELS, cross_validate, fit_calibration, judge_threshold, learning_curve, render_curve,
)
from rt4chart.eval.datasets import EvalRecord
from rt4chart.eval.metrics import answer_prf
from rt4chart.eval.predictions import Prediction


def _data(n: int, seed: int = 0, rate: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Scores that rank well but sit low: the best threshold is far under 0.5."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rate
    s = np.clip(np.where(y, rng.normal(0.35, 0.1, n), rng.normal(0.15, 0.08, n)), 0, 1)
    return s, y


@pytest.mark.parametrize("target, expected", [("f1", ("f1", 0.0)), ("precision:0.9", ("precision", 0.9)),
                                              ("Recall:0.8", ("recall", 0.8))])
def test_parse_target(target, expected) -> None:
    assert parse_target(target) == expected


@pytest.mark.parametrize("bad", ["f2", "precision", "precision:1", "recall:0", "recall:x", "f1:0.5"])
def test_bad_targets_raise(bad) -> None:
    with pytest.raises(ConfigError):
        parse_target(bad)


def test_precision_and_recall_targets_are_met_on_the_labels() -> None:
    s, y = _data(400)
    for kind in ("precision", "recall"):
        t = choose_threshold(y, s, f"{kind}:0.8")
        prf = answer_prf(y, s >= t)
        assert getattr(prf, kind) >= 0.8
        looser = s[s < t].max() if kind == "precision" else s[s > t].min()
        # one step further would still meet precision (and gain recall) / recall (and gain precision) otherwise
        other = answer_prf(y, s >= looser)
        assert getattr(other, kind) < 0.8 or (kind == "precision" and other.recall <= prf.recall)


def test_soft_labels_equal_hard_ones_when_they_are_zero_or_one() -> None:
    s, y = _data(300, seed=3)
    assert choose_threshold(y.astype(float), s) == choose_threshold(y, s)


@pytest.mark.parametrize("method", ["isotonic", "platt"])
def test_fit_moves_a_misplaced_threshold_and_raises_f1(method) -> None:
    s, y = _data(300)
    cal = fit_calibration(s, y, judge="lexical", method=method)
    assert cal.method == method and cal.threshold < 0.4
    test_s, test_y = _data(2000, seed=1)
    assert answer_prf(test_y, test_s >= cal.threshold).f1 > answer_prf(test_y, test_s >= 0.5).f1 + 0.2
    p = [cal.probability(v) for v in np.sort(test_s)]
    assert all(b >= a for a, b in zip(p, p[1:]))  # monotone


def test_isotonic_map_is_scikit_learns() -> None:
    s, y = _data(300)
    cal = fit_calibration(s, y, judge="lexical", method="isotonic")
    iso = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(s, y)
    grid = np.linspace(-0.1, 1.1, 57)
    assert np.allclose([cal.probability(v) for v in grid], iso.predict(grid))


def test_auto_method_is_platt_for_few_labels_and_isotonic_for_many() -> None:
    s, y = _data(400)
    assert fit_calibration(s[:40], y[:40], judge="j").method == "platt"
    assert fit_calibration(s, y, judge="j").method == "isotonic"


def test_too_few_or_one_class_labels_raise() -> None:
    s, y = _data(200)
    with pytest.raises(InputError, match=f"at least {MIN_LABELS}"):
        fit_calibration(s[:MIN_LABELS - 1], y[:MIN_LABELS - 1], judge="j")
    with pytest.raises(InputError, match="both classes"):
        fit_calibration(s[:50], np.zeros(50, dtype=bool), judge="j")


def test_cross_validation_decides_every_answer_out_of_fold() -> None:
    s, y = _data(120)
    groups = [i // 3 for i in range(120)]
    decided, prob, failed = cross_validate(s, y, groups, judge="j", folds=5, seed=0)
    assert failed == 0 and set(decided) <= {0, 1} and not np.isnan(prob).any()
    assert answer_prf(y, decided == 1).f1 > answer_prf(y, s >= 0.5).f1


def _records(task: str, n: int, seed: int) -> tuple[list[EvalRecord], dict[str, Prediction]]:
    s, y = _data(n, seed=seed, rate=0.4)
    recs = [EvalRecord(id=f"{task}{i}", context=f"c{i // 2}", question=None, answer="a", task=task,
                       group=f"{task}:{i // 2}", hallucinated=bool(y[i])) for i in range(n)]
    return recs, {r.id: Prediction(r.id, bool(v >= 0.5), float(v)) for r, v in zip(recs, s)}


def test_learning_curve_scores_the_rest_of_each_task() -> None:
    records, preds = [], {}
    for k, task in enumerate(("qa", "summary")):
        recs, p = _records(task, 400, k)
        records += recs
        preds.update(p)
    curve = learning_curve(records, preds, sizes=(25, 100), draws=3, seed=0)
    rows = {(r["task"], r["labels"]): r for r in curve["rows"]}
    assert set(rows) == {("qa", 25), ("qa", 100), ("summary", 25), ("summary", 100)}
    for row in rows.values():
        assert row["draws"] + row["skipped_one_class"] == 3 and row["test_answers"] == 400 - row["labels"]
        assert row["calibrated_f1"]["mean"] > row["uncalibrated_f1"]["mean"]
    assert rows[("qa", 25)]["method"] == rows[("qa", 100)]["method"] == "platt"
    table = render_curve(curve, "t")
    assert table.count("\n| qa |") == 2 and "always flag" in table


def test_judge_threshold_recovers_a_threshold_decision() -> None:
    s, _ = _data(500)
    assert judge_threshold(s, s >= 0.3) == pytest.approx(s[s >= 0.3].min())


def test_f1_threshold_is_shrunk_toward_the_judges_own_by_the_prior() -> None:
    s, y = _data(300)
    free = fit_calibration(s, y, judge="j", method="platt")
    shrunk = fit_calibration(s, y, judge="j", method="platt", own=0.5, prior=100)
    assert shrunk.meta["fitted_threshold"] == free.threshold
    assert shrunk.threshold == pytest.approx((300 * free.threshold + 100 * 0.5) / 400)
    assert fit_calibration(s, y, judge="j", method="platt", own=0.5, prior=0).threshold == free.threshold
    precise = fit_calibration(s, y, judge="j", method="platt", own=0.5, prior=100, target="precision:0.8")
    assert "fitted_threshold" not in precise.meta  # a precision target is not the judge's threshold


def test_folds_too_small_to_fit_are_counted_and_left_undecided() -> None:
    s, _ = _data(22, seed=5)
    y = np.zeros(22, dtype=bool)
    y[[0, 1, 2]] = True  # a class rarer than the folds: scikit-learn's warning does not escape (warnings are errors)
    decided, prob, failed = cross_validate(s, y, list(range(22)), judge="j", folds=5, seed=0)
    assert failed == 5 and (decided == -1).all() and np.isnan(prob).all()  # each training part has < 20 labels
    decided, prob, failed = cross_validate(s, y, list(range(22)), judge="j", folds=2, seed=0)
    assert failed == 2  # 11 labels per training part
