"""A flagged claim's spans from its word probabilities: the words at or over the word threshold, neighbours joined.

Not ``rt4chart.audit.auditor.merge_spans``: that one joins answer spans across any run of whitespace, punctuation
and one conjunction; this one joins words of one claim across at most ``BRIDGE`` characters of anything, and points at
the likeliest word when none reaches the threshold.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...types import Span
from .. import features as F

#: flagged words separated by at most this many characters (spaces, punctuation) form one span
BRIDGE = 3


def merge_words(words: Sequence[tuple[int, int, float]], threshold: float) -> list[tuple[int, int]]:
    """Spans of the words ``(start, end, p)`` of one flagged claim with ``p >= threshold``, adjacent words merged;
    when no word reaches the threshold (the claim was flagged as a whole), its likeliest word alone."""
    if not words:
        return []
    picked = sorted((s, e) for s, e, p in words if p >= threshold)
    if not picked:
        s, e, _ = max(words, key=lambda w: w[2])
        return [(s, e)]
    out = [picked[0]]
    for s, e in picked[1:]:
        if s - out[-1][1] <= BRIDGE:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out


def word_spans(rows: F.WordRows, word_p: np.ndarray, word_threshold: float) -> tuple[Span, ...]:
    """A flagged claim's spans (claim offsets): its words at or over ``word_threshold``, joined (``merge_words``)."""
    return tuple(Span(start=s, end=e) for s, e in merge_words(
        [(s, e, float(p)) for (s, e), p in zip(rows.spans, word_p)], word_threshold))
