"""Metrics: cross-checked against scikit-learn, hand-computed span examples, bootstrap properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, precision_recall_fscore_support, roc_auc_score

from rt4chart.eval import metrics as M


# ---------------------------------------------------------------------------------------------------------------
# Answer level


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40))
def test_answer_prf_matches_sklearn(pairs: list[tuple[bool, bool]]) -> None:
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    ours = M.answer_prf(y_true, y_pred)
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="binary", pos_label=True,
                                                 zero_division=0)
    assert ours.precision == pytest.approx(p) and ours.recall == pytest.approx(r) and ours.f1 == pytest.approx(f)
    assert ours.tp + ours.fn == sum(y_true) and ours.tp + ours.fp == sum(y_pred)


def test_answer_prf_hand_example() -> None:
    res = M.answer_prf([1, 1, 0, 0, 1], [1, 0, 1, 0, 1])
    assert (res.tp, res.fp, res.fn) == (2, 1, 1)
    assert res.precision == pytest.approx(2 / 3) and res.recall == pytest.approx(2 / 3)
    assert M.answer_prf([0, 0], [0, 0]).f1 == 0.0  # empty denominators give 0, not an error
    with pytest.raises(ValueError):
        M.answer_prf([1, 0], [1])
    with pytest.raises(ValueError):
        M.answer_prf([2, 0], [1, 0])


# ---------------------------------------------------------------------------------------------------------------
# Span level (RT4CHART §4.2: per-sample unions, micro sums)


def test_span_prf_hand_example() -> None:
    gold = [[(0, 10)], [(5, 8), (20, 30)], []]
    pred = [[(5, 15)], [(0, 6), (6, 7), (25, 40)], [(0, 4)]]
    # sample 1: |G∩P| = 5 (5..10), FP = 5 (10..15), FN = 5 (0..5)
    # sample 2: G = {5,6,7} ∪ 20..29 (13 chars); P = 0..6 ∪ 6..7 ∪ 25..39 = 0..6 (7 chars) + 25..39 (15 chars)
    #           G∩P = {5,6} (2) + 25..29 (5) = 7; FP = 22 - 7 = 15; FN = 13 - 7 = 6
    # sample 3: FP = 4
    counts = M.span_counts(gold, pred)
    assert counts.tolist() == [[5, 5, 5], [7, 15, 6], [0, 4, 0]]
    res = M.span_prf(gold, pred)
    assert (res.tp, res.fp, res.fn) == (12, 24, 11)
    assert res.precision == pytest.approx(12 / 36) and res.recall == pytest.approx(12 / 23)
    assert res.f1 == pytest.approx(24 / (24 + 24 + 11))


def test_span_overlaps_inside_one_side_count_once() -> None:
    # Overlapping gold spans are a union: chars 0..6 counted once.
    res = M.span_prf([[(0, 4), (2, 6)]], [[{"start": 0, "end": 6}]])
    assert (res.tp, res.fp, res.fn) == (6, 0, 0) and res.f1 == 1.0
    assert M.merge_spans([(5, 7), (0, 2), (2, 3), (9, 9)]) == [(0, 3), (5, 7)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 10)), max_size=4),
                          st.lists(st.tuples(st.integers(0, 30), st.integers(0, 10)), max_size=4)),
                min_size=1, max_size=6))
def test_span_counts_match_character_sets(samples: list) -> None:
    """Property: the interval sweep equals brute-force set arithmetic over character offsets."""
    gold = [[(s, s + n) for s, n in g] for g, _ in samples]
    pred = [[(s, s + n) for s, n in p] for _, p in samples]
    tp = fp = fn = 0
    for g, p in zip(gold, pred):
        gs = {i for s, e in g for i in range(s, e)}
        ps = {i for s, e in p for i in range(s, e)}
        tp, fp, fn = tp + len(gs & ps), fp + len(ps - gs), fn + len(gs - ps)
    res = M.span_prf(gold, pred)
    assert (res.tp, res.fp, res.fn) == (tp, fp, fn)


def test_span_prf_equals_sklearn_on_character_labels() -> None:
    """Micro span P/R/F1 = binary P/R/F1 over all characters of all answers."""
    rng = np.random.default_rng(3)
    gold, pred, yt, yp = [], [], [], []
    for _ in range(20):
        n = int(rng.integers(5, 50))
        g = np.zeros(n, bool)
        p = np.zeros(n, bool)
        gs, ps = [], []
        for arr, spans in ((g, gs), (p, ps)):
            for _ in range(int(rng.integers(0, 3))):
                s = int(rng.integers(0, n))
                e = int(rng.integers(s, n + 1))
                arr[s:e] = True
                spans.append((s, e))
        gold.append(gs)
        pred.append(ps)
        yt.extend(g)
        yp.extend(p)
    ours = M.span_prf(gold, pred)
    p, r, f, _ = precision_recall_fscore_support(yt, yp, average="binary", zero_division=0)
    assert (ours.precision, ours.recall, ours.f1) == pytest.approx((p, r, f))


# ---------------------------------------------------------------------------------------------------------------
# Ranking


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=50))
def test_auroc_ap_match_sklearn_with_ties(rows: list[tuple[bool, int]]) -> None:
    y = [t for t, _ in rows]
    s = [v / 3 for _, v in rows]  # few distinct values → many ties
    if all(y) or not any(y):
        assert np.isnan(M.auroc(y, s))
        return
    assert M.auroc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert M.average_precision(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)


def test_weighted_ranking_matches_sklearn_sample_weight() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.3
    s = np.round(rng.random(200), 2)
    w = rng.integers(0, 4, size=(5, 200)).astype(float)
    aur = M.auroc_weighted(y, s, w)
    ap = M.average_precision_weighted(y, s, w)
    for b in range(5):
        assert aur[b] == pytest.approx(roc_auc_score(y, s, sample_weight=w[b]), abs=1e-12)
        assert ap[b] == pytest.approx(average_precision_score(y, s, sample_weight=w[b]), abs=1e-12)


def test_ranking_rejects_bad_scores() -> None:
    with pytest.raises(ValueError):
        M.auroc([1, 0], [0.5, float("nan")])
    with pytest.raises(ValueError):
        M.average_precision([1, 0, 1], [0.5, 0.2])


# ---------------------------------------------------------------------------------------------------------------
# Group bootstrap


def test_bootstrap_weights_resample_whole_groups() -> None:
    groups = ["a", "a", "b", "c", "c", "c"]
    w = M.bootstrap_weights(groups, n=200, seed=1)
    assert w.shape == (200, 6)
    assert (w.sum(axis=1) > 0).all()
    # records of one group always carry the same count; each row draws exactly G=3 groups
    assert (w[:, 0] == w[:, 1]).all() and (w[:, 3] == w[:, 5]).all()
    assert (w[:, [0, 2, 3]].sum(axis=1) == 3).all()
    assert np.array_equal(w, M.bootstrap_weights(groups, n=200, seed=1))
    assert not np.array_equal(w, M.bootstrap_weights(groups, n=200, seed=2))


def test_group_bootstrap_generic_equals_weighted_path() -> None:
    rng = np.random.default_rng(5)
    n = 120
    groups = [f"g{i // 6}" for i in range(n)]
    y = rng.random(n) < 0.35
    s = rng.random(n) + 0.3 * y
    pred = s > 0.7
    lo, hi = M.group_bootstrap(lambda idx: M.auroc(y[idx], s[idx]), groups, n=300, seed=9)
    w = M.bootstrap_weights(groups, n=300, seed=9)
    assert (lo, hi) == pytest.approx(M.percentile_interval(M.auroc_weighted(y, s, w)))
    assert lo < M.auroc(y, s) < hi
    f_lo, f_hi = M.group_bootstrap(lambda idx: M.answer_prf(y[idx], pred[idx]).f1, groups, n=300, seed=9)
    fw = M.prf_weighted(M.answer_counts(y, pred), w)["f1"]
    assert (f_lo, f_hi) == pytest.approx(M.percentile_interval(fw))


def test_group_bootstrap_is_wider_than_record_bootstrap_for_correlated_groups() -> None:
    """Answers of one source share their label here, so resampling groups must widen the interval."""
    rng = np.random.default_rng(2)
    n_groups, size = 60, 6
    group_label = rng.random(n_groups) < 0.4
    y = np.repeat(group_label, size)
    groups = np.repeat(np.arange(n_groups), size)
    pred = np.ones_like(y)
    lo_g, hi_g = M.group_bootstrap(lambda i: M.answer_prf(y[i], pred[i]).precision, groups, n=400, seed=0)
    lo_r, hi_r = M.group_bootstrap(lambda i: M.answer_prf(y[i], pred[i]).precision, np.arange(y.size), n=400, seed=0)
    assert hi_g - lo_g > 1.5 * (hi_r - lo_r)


def test_percentile_interval_ignores_nan() -> None:
    assert M.percentile_interval(np.array([np.nan, 1.0, 1.0])) == (1.0, 1.0)
    lo, hi = M.percentile_interval(np.array([np.nan, np.nan]))
    assert np.isnan(lo) and np.isnan(hi)
    # a resample without gold positives leaves recall undefined, not 0
    rec = M.prf_weighted(np.array([[1, 0, 0], [0, 1, 0]]), np.array([[0, 2]]))["recall"]
    assert np.isnan(rec[0])


def test_confusion_table() -> None:
    table = M.confusion(["none", "baseless", "baseless"], ["entailed", "baseless", "contradicted"],
                        ["none", "contradicted", "baseless"], ["entailed", "contradicted", "baseless"])
    assert table["baseless"] == {"entailed": 0, "contradicted": 1, "baseless": 1}
    assert table["contradicted"] == {"entailed": 0, "contradicted": 0, "baseless": 0}
