"""Lexical baselines: stop words equal scikit-learn's, LCS equals dynamic programming, hand examples."""

from __future__ import annotations

import random

import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from rt4chart.eval.baselines import (
    STOP_WORDS,
    choose_threshold,
    content_tokens,
    lcs_length,
    rougel_risk,
    uncovered_token_risk,
)


def _lcs_dp(a: list[str], b: list[str]) -> int:
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            d[i + 1][j + 1] = d[i][j] + 1 if x == y else max(d[i][j + 1], d[i + 1][j])
    return d[-1][-1]


def test_stop_words_are_sklearn_english() -> None:
    assert STOP_WORDS == frozenset(ENGLISH_STOP_WORDS)


def test_lcs_matches_dynamic_programming() -> None:
    rng = random.Random(0)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 80))]
        assert lcs_length(a, b) == _lcs_dp(a, b)


def test_uncovered_token_hand_example() -> None:
    context = "The Eiffel Tower is in Paris, France."
    assert content_tokens("The Tower is in Rome!") == ["tower", "rome"]
    # answer content tokens {eiffel, tower, rome, 1889}; covered {eiffel, tower} → risk 2/4
    assert uncovered_token_risk(context, "The Eiffel tower is in Rome since 1889.") == pytest.approx(0.5)
    assert uncovered_token_risk(context, "Eiffel Tower, Paris.") == 0.0
    assert uncovered_token_risk(context, "It is.") == 0.0  # no content tokens → nothing unsupported


def test_rougel_risk_is_order_sensitive() -> None:
    context = "alpha beta gamma delta"
    assert rougel_risk(context, "alpha beta gamma") == 0.0
    assert rougel_risk(context, "gamma beta alpha") == pytest.approx(2 / 3)  # LCS 1 of 3
    assert uncovered_token_risk(context, "gamma beta alpha") == 0.0


def test_choose_threshold_maximises_f1() -> None:
    y = [0, 0, 1, 0, 1, 1]
    s = [0.1, 0.2, 0.3, 0.4, 0.8, 0.9]
    t = choose_threshold(y, s)
    # brute force over the distinct scores; ties go to the larger threshold
    best = max(sorted(set(s)), key=lambda c: (_f1(y, [v >= c for v in s]), c))
    assert t == best
    with pytest.raises(ValueError):
        choose_threshold([], [])


def _f1(y: list[int], p: list[bool]) -> float:
    tp = sum(1 for a, b in zip(y, p) if a and b)
    fp = sum(1 for a, b in zip(y, p) if not a and b)
    fn = sum(1 for a, b in zip(y, p) if a and not b)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0
