"""A flagged claim's spans from its word probabilities: the words at or over the word threshold, neighbours joined.

Both this and ``rt4chart.audit.auditor.merge_spans`` are ``rt4chart.types.merge_intervals`` with their own gap
rule: the auditor joins answer spans across any run of whitespace, punctuation and one conjunction; this joins words
of one claim across at most ``BRIDGE`` characters of anything, and points at the likeliest word when none reaches
the threshold.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...types import Span, merge_intervals
from . import features as F

#: flagged words separated by at most this many characters (spaces, punctuation) form one span
BRIDGE = 3


def merge_words(words: Sequence[tuple[int, int, float]], threshold: float) -> list[tuple[int, int]]:
    """Spans of the words ``(start, end, p)`` of one flagged claim with ``p >= threshold``, sorted, with words at
    most ``BRIDGE`` characters apart merged (``merge_intervals``); when no word reaches the threshold (the claim
    was flagged as a whole), its likeliest word alone."""
    if not words:
        return []
    picked = [(s, e) for s, e, p in words if p >= threshold]
    if not picked:
        s, e, _ = max(words, key=lambda w: w[2])
        return [(s, e)]
    return merge_intervals(picked, joins=_bridged)


def _bridged(end: int, start: int) -> bool:
    return start - end <= BRIDGE


def word_spans(rows: F.WordRows, word_p: np.ndarray, word_threshold: float) -> tuple[Span, ...]:
    """A flagged claim's spans (claim offsets): its words at or over ``word_threshold``, joined (``merge_words``)."""
    return tuple(Span(start=s, end=e) for s, e in merge_words(
        [(s, e, float(p)) for (s, e), p in zip(rows.spans, word_p)], word_threshold))
