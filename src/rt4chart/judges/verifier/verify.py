"""Claims against an evidence text through the verifier: each claim read against its premise, the context sentences
``evidence.premise`` picks for it (the same selection training uses)."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ...errors import ConfigError
from ...evidence.index import EvidenceIndex
from ...evidence.premise import premise_sentences, premise_text
from .model import Verifier


def premises(index: EvidenceIndex, claims: Sequence[str], *, hint: Optional[Sequence[Sequence[int]]] = None,
             max_words: int = 160) -> list[tuple[int, ...]]:
    """Each claim's premise sentences (``premise_sentences``; indices into ``index.texts``, in context order).
    ``hint``, when given, holds one sequence of sentence indices per claim, put first in that claim's premise (at
    global verification, the focus chunk's sentences)."""
    if hint is not None and len(hint) != len(claims):
        raise ConfigError(f"hint gives {len(hint)} sentence lists for {len(claims)} claims; give one per claim")
    hints: Sequence[Sequence[int]] = hint if hint is not None else [()] * len(claims)
    return [premise_sentences(index, claim, max_words=max_words, hint=tuple(h)) for claim, h in zip(claims, hints)]


def verify_claims(verifier: Verifier, index: EvidenceIndex, claims: Sequence[str], *,
                  hint: Optional[Sequence[Sequence[int]]] = None, max_words: int = 160) -> np.ndarray:
    """An ``(n, 3)`` array: each claim's P(entailment), P(contradiction), P(neutral) against its premise
    (``premises``) in the evidence text of ``index``."""
    chosen = premises(index, claims, hint=hint, max_words=max_words)
    return verifier.probs([(premise_text(index, ids), claim) for ids, claim in zip(chosen, claims)])
