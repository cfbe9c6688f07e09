"""Budgeted routing and the two operating-point metrics."""

from __future__ import annotations

import numpy as np
import pytest

from rt4chart.errors import ConfigError
from rt4chart.gate import accepted_risk, review_precision, route


def test_route_fractions_use_ceil_of_the_workload():
    scores = np.linspace(0.0, 0.9, 10)
    routes = route(scores, review=0.1, accept=0.5)
    assert routes == ["accept"] * 5 + ["verify"] * 4 + ["review"]
    assert route(scores, review=0.15, accept=0.25).count("review") == 2  # ceil(1.5)
    assert route(scores, accept=0.3).count("accept") == 3  # 0.3 * 10 is 3, not 4
    assert route(scores) == ["verify"] * 10


def test_route_review_wins_an_overlap_and_ties_follow_input_order():
    assert route([0.5, 0.5, 0.5, 0.5], review=0.5, accept=1.0) == ["accept", "accept", "review", "review"]
    assert route([], review=0.1, accept=0.5) == []


def test_route_rejects_bad_input():
    with pytest.raises(ConfigError):
        route([0.1], review=1.5)
    with pytest.raises(ConfigError):
        route([float("nan")], accept=0.5)


def test_review_precision_and_accepted_risk():
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 1])
    s = np.arange(10) / 10
    assert review_precision(y, s, 0.3) == pytest.approx(1.0)
    assert review_precision(y, s, 0.5) == pytest.approx(4 / 5)
    assert accepted_risk(y, s, 0.5) == pytest.approx(2 / 5)
    assert accepted_risk(y, s, 0.05) == 0.0  # ceil(0.5) = 1 record
