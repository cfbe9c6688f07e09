"""Evaluation harness: datasets with gold labels, metrics, baselines and the ``rt4chart eval`` CLI; labelled answers
of your own (``read_labelled``, ``Labelled``: ``rt4chart.eval.labelled``, imported when first used)."""

from __future__ import annotations

from typing import Any

__all__ = ["Labelled", "read_labelled"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import labelled

        return getattr(labelled, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
