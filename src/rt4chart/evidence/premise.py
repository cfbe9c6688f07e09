"""Which sentences of an evidence text a claim is checked against: the premise a verifier reads.

``premise_sentences`` ranks the sentences of an ``EvidenceIndex`` by the rare word keys they share with the claim
and takes the best ones within a word budget; ``premise_text`` joins them in context order. Training and run time
both build premises here, so the model is trained on what it will read.
"""

from __future__ import annotations

import math
from typing import Sequence

from .claims import read_claim
from .index import EvidenceIndex


def premise_sentences(index: EvidenceIndex, claim: str, *, max_words: int = 160,
                      hint: Sequence[int] = ()) -> tuple[int, ...]:
    """The sentences of ``index`` that ``claim`` is checked against, in ascending (context) order.

    A sentence's score is the sum, over the word keys it shares with the claim (``read_claim(claim).keys``), of the
    key's weight in the claim (numbers and names 2, generic words 1/2, others 1) times its IDF over the index's own
    sentences, ``log(1 + n / df)``. The ``hint`` sentences come first (in the order given), then the sentences that
    share a key, best first (ties by position). Sentences are taken in that order while their total word count
    (whitespace words) stays within ``max_words``; one that does not fit is passed over. The first one is always
    taken, however long (the tokenizer truncates). A claim that shares no key with any sentence (and has no hint)
    gets the first sentences of the text within ``max_words``, so that it is still read against real text.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    n = len(index.texts)
    for i in hint:
        if not 0 <= i < n:
            raise IndexError(f"hint sentence {i} is not in an index of {n} sentences")
    if not n:
        return ()
    scores = relatedness(index, claim)
    related = sorted((i for i, s in enumerate(scores) if s > 0.0), key=lambda i: (-scores[i], i))
    order = list(dict.fromkeys([*hint, *related]))
    if not order:
        order = list(range(n))
    chosen: list[int] = []
    words = 0
    for i in order:
        length = len(index.texts[i].split())
        if chosen and words + length > max_words:
            if not related and not hint:
                break  # the fallback is a prefix of the text, not a selection
            continue
        chosen.append(i)
        words += length
    return tuple(sorted(chosen))


def premise_text(index: EvidenceIndex, ids: Sequence[int]) -> str:
    """The texts of sentences ``ids`` of ``index`` in context order, joined by a space."""
    return " ".join(index.texts[i] for i in sorted(set(ids)))


def relatedness(index: EvidenceIndex, claim: str) -> list[float]:
    """Each sentence's relatedness to ``claim``, how ``premise_sentences`` ranks them: the sum, over the claim's word
    keys it holds, of the key's weight in the claim times its IDF over the index's sentences (0.0 for none)."""
    n = len(index.texts)
    scores = [0.0] * n
    for key, weight in read_claim(claim).keys.items():
        holders = index.postings.get(key)
        if not holders:
            continue
        value = weight * math.log(1.0 + n / len(holders))
        for i in holders:
            scores[i] += value
    return scores
