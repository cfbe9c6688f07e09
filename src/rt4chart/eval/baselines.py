"""Cheap lexical baselines scored in the same table as every detector (RAGScope §II.B-C).

* :func:`uncovered_token_risk` — RAGScope-Z: the fraction of the answer's distinct non-stop-word tokens that never
  occur in the context, ``1 − |T(a) ∩ T(c)| / |T(a)|``. Tokens are lower-cased alphanumeric runs; stop words are
  scikit-learn's English list. (The gate's Z, ``rt4chart.gate.uncovered_fraction``, counts token occurrences.)
* :func:`rougel_risk` — ``1 −`` ROUGE-L recall of the answer's non-stop-word token sequence against the context's:
  ``1 − LCS(a, c) / |a|``, with rapidfuzz's bit-parallel LCS so long contexts stay cheap.
* :func:`choose_threshold` — the F1-maximising threshold (or one for a precision or recall target) on a training
  split, applied unchanged to the test split.

An answer without content tokens has risk 0.0 (nothing in it can be unsupported).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from rt4chart.errors import ConfigError

__all__ = ["STOP_WORDS", "content_tokens", "uncovered_token_risk", "rougel_risk", "lcs_length", "choose_threshold",
           "parse_target"]

#: scikit-learn's ENGLISH_STOP_WORDS (318 words), as RAGScope uses.
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS)

# ASCII runs, as these baselines were scored in docs/results.md: neither rt4chart.evidence's tokens nor the gate's
# Unicode ones (gate.tokens; its ROUGE-L risk differs from rougel_risk on 23 of the 2,700 RAGTruth test answers).
_TOKEN = re.compile(r"[a-z0-9]+")


def content_tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens of ``text`` that are not stop words, in order."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


def uncovered_token_risk(context: str, answer: str) -> float:
    """RAGScope-Z uncovered-token fraction: share of distinct answer content tokens absent from the context."""
    answer_set = set(_TOKEN.findall(answer.lower())) - STOP_WORDS
    if not answer_set:
        return 0.0
    covered = answer_set.intersection(_TOKEN.findall(context.lower()))
    return 1.0 - len(covered) / len(answer_set)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (rapidfuzz ``LCSseq``, bit-parallel)."""
    return LCSseq.similarity(a, b)


def rougel_risk(context: str, answer: str) -> float:
    """``1 −`` ROUGE-L recall of the answer's content-token sequence against the context's (RAGScope §II.C)."""
    a = content_tokens(answer)
    if not a:
        return 0.0
    return 1.0 - lcs_length(a, content_tokens(context)) / len(a)


def parse_target(target: str) -> tuple[str, float]:
    """``f1``, ``precision:P`` or ``recall:R`` (0 < P, R < 1) as ``(kind, value)``; ``ConfigError`` otherwise."""
    kind, _, value = str(target).strip().lower().partition(":")
    if kind == "f1" and not value:
        return "f1", 0.0
    if kind in ("precision", "recall"):
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        if 0.0 < v < 1.0:
            return kind, v
    raise ConfigError(f"target {target!r} is not f1, precision:P or recall:R with 0 < P, R < 1")


def choose_threshold(y_true: Iterable[float], scores: Iterable[float], target: str = "f1") -> float:
    """The threshold ``t`` of ``score >= t`` that meets ``target`` (``parse_target``) on these labels: ``f1``, the
    F1-maximising one (ties: the larger ``t``); ``precision:P``, the lowest ``t`` whose precision reaches P (none:
    the most precise); ``recall:R``, the highest ``t`` whose recall reaches R.

    Candidates are the distinct scores; the result is meant to be chosen on a training split and applied as is.
    ``y_true`` may be probabilities (soft labels): the counts are then expected counts.
    """
    kind, value = parse_target(target)
    y = np.asarray(list(y_true), dtype=float)
    s = np.asarray(list(scores), dtype=float)
    if y.size == 0 or y.size != s.size:
        raise ValueError("need equally many labels and scores, at least one")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    tp = np.cumsum(y_sorted)
    fp = np.cumsum(1.0 - y_sorted)
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]  # last index of each distinct score (predict >= it)
    tp, fp, cand = tp[last], fp[last], s_sorted[last]
    fn = y.sum() - tp
    if kind == "f1":
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1e-12), 0.0)
        best = int(np.argmax(f1))  # first maximum in descending score order = the largest threshold
    elif kind == "precision":
        precision = tp / np.maximum(tp + fp, 1e-12)
        ok = np.flatnonzero(precision >= value - 1e-12)
        best = int(ok[-1]) if ok.size else int(np.argmax(precision))
    else:
        recall = tp / max(float(y.sum()), 1e-12)
        best = int(np.flatnonzero(recall >= value - 1e-12)[0])
    return float(cand[best])
