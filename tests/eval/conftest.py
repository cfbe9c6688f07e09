"""Fixtures of the evaluation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rt4chart.errors import InputError
from rt4chart.eval.datasets import data_root


@pytest.fixture
def ragtruth_root() -> Path:
    """The real RAGTruth data folder (``shared/data``, found as the library finds it); skips the test without it."""
    try:
        return data_root("ragtruth")
    except InputError as exc:
        pytest.skip(f"RAGTruth data not available: {exc}")
