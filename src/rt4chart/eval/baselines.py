"""Cheap lexical baselines scored in the same table as every detector (RAGScope §II.B-C).

* :func:`uncovered_token_risk` — RAGScope-Z: the fraction of the answer's distinct non-stop-word tokens that never
  occur in the context, ``1 − |T(a) ∩ T(c)| / |T(a)|``. Tokens are lower-cased alphanumeric runs; stop words are
  scikit-learn's English list (copied here so the baseline needs no scikit-learn; a test keeps them equal).
* :func:`rougel_risk` — ``1 −`` ROUGE-L recall of the answer's non-stop-word token sequence against the context's:
  ``1 − LCS(a, c) / |a|``, with a bit-parallel LCS (Hyyrö 2004) so long contexts stay cheap.
* :func:`choose_threshold` — the F1-maximising threshold on a training split, applied unchanged to the test split.

An answer without content tokens has risk 0.0 (nothing in it can be unsupported).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np

__all__ = ["STOP_WORDS", "content_tokens", "uncovered_token_risk", "rougel_risk", "lcs_length", "choose_threshold"]

#: scikit-learn's ENGLISH_STOP_WORDS (318 words), as RAGScope uses.
STOP_WORDS = frozenset(
    """
a about above across after afterwards again against all almost alone along already also although always am among
amongst amoungst amount an and another any anyhow anyone anything anyway anywhere are around as at back be
became because become becomes becoming been before beforehand behind being below beside besides between beyond
bill both bottom but by call can cannot cant co con could couldnt cry de describe detail do done down due during
each eg eight either eleven else elsewhere empty enough etc even ever every everyone everything everywhere
except few fifteen fifty fill find fire first five for former formerly forty found four from front full further
get give go had has hasnt have he hence her here hereafter hereby herein hereupon hers herself him himself his
how however hundred i ie if in inc indeed interest into is it its itself keep last latter latterly least less
ltd made many may me meanwhile might mill mine more moreover most mostly move much must my myself name namely
neither never nevertheless next nine no nobody none noone nor not nothing now nowhere of off often on once one
only onto or other others otherwise our ours ourselves out over own part per perhaps please put rather re same
see seem seemed seeming seems serious several she should show side since sincere six sixty so some somehow
someone something sometime sometimes somewhere still such system take ten than that the their them themselves
then thence there thereafter thereby therefore therein thereupon these they thick thin third this those though
three through throughout thru thus to together too top toward towards twelve twenty two un under until up upon
us very via was we well were what whatever when whence whenever where whereafter whereas whereby wherein
whereupon wherever whether which while whither who whoever whole whom whose why will with within without would
yet you your yours yourself yourselves
""".split()
)

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
    """Length of the longest common subsequence of two token sequences (bit-parallel, O(|a|·|b|/wordsize))."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for j, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for tok in a:
        m = masks.get(tok)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def rougel_risk(context: str, answer: str) -> float:
    """``1 −`` ROUGE-L recall of the answer's content-token sequence against the context's (RAGScope §II.C)."""
    a = content_tokens(answer)
    if not a:
        return 0.0
    return 1.0 - lcs_length(a, content_tokens(context)) / len(a)


def choose_threshold(y_true: Iterable[bool], scores: Iterable[float]) -> float:
    """The threshold ``t`` maximising answer-level F1 of ``score >= t`` (ties: the larger ``t``).

    Candidates are the distinct scores; the result is meant to be chosen on a training split and applied as is.
    """
    y = np.asarray(list(y_true), dtype=bool)
    s = np.asarray(list(scores), dtype=float)
    if y.size == 0 or y.size != s.size:
        raise ValueError("need equally many labels and scores, at least one")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    tp = np.cumsum(y_sorted)
    fp = np.cumsum(~y_sorted)
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]  # last index of each distinct score (predict >= it)
    tp, fp, cand = tp[last], fp[last], s_sorted[last]
    fn = y.sum() - tp
    f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
    best = int(np.argmax(f1))  # first maximum in descending score order = the largest threshold
    return float(cand[best])
