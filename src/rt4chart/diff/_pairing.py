"""Claims of one answer in two runs, paired by text similarity.

Two runs of the same record may split its answer into different claims (another decomposer, an edited answer), so
claims are paired by their text, not by their index: rapidfuzz's ``ratio`` (normalised Indel similarity, after
lower-casing and dropping punctuation) between every claim of one run and every claim of the other, then the
pairing with the largest total similarity (scipy's ``linear_sum_assignment``). A pair below ``MIN_SIMILARITY`` is
no pair: its claims count as removed and added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np
from rapidfuzz import fuzz, process, utils
from scipy.optimize import linear_sum_assignment

from ..types import ClaimVerdict, Label

#: the similarity (0 to 1) below which two claims are not the same claim
MIN_SIMILARITY = 0.6

#: what happened to a claim from one run to the other, most telling first
CLAIM_CHANGES = ("flipped", "added", "removed", "reworded", "evidence", "same")


@dataclass(frozen=True)
class ClaimPair:
    """A claim of the earlier run (``before``: its position in that result's ``claims``) and its counterpart in the
    later run (``after``); either is None for a claim only one run has. ``change``: ``flipped`` (the label
    changed), ``added``, ``removed``, ``reworded`` (same label, other text), ``evidence`` (same label and text,
    other evidence quotes) or ``same``."""

    before: Optional[int]
    after: Optional[int]
    similarity: float
    change: str
    label_before: Optional[Label] = None
    label_after: Optional[Label] = None

    @property
    def worse(self) -> bool:
        """The claim became contradicted or baseless."""
        return (self.change == "flipped" and self.label_after is not None and self.label_after.hallucinated
                and not (self.label_before is not None and self.label_before.hallucinated))

    @property
    def better(self) -> bool:
        """The claim stopped being contradicted or baseless."""
        return (self.change == "flipped" and self.label_before is not None and self.label_before.hallucinated
                and not (self.label_after is not None and self.label_after.hallucinated))

    @property
    def between_hallucinated(self) -> bool:
        """The claim went from contradicted to baseless or back: a hallucination of another kind."""
        return (self.change == "flipped" and self.label_before is not None and self.label_after is not None
                and self.label_before.hallucinated and self.label_after.hallucinated)


def _quotes(claim: ClaimVerdict) -> tuple[str, ...]:
    return tuple(sorted(ev.text for ev in claim.evidence))


def _pair(i: int, b: ClaimVerdict, j: int, a: ClaimVerdict, similarity: float) -> ClaimPair:
    if b.label != a.label:
        change = "flipped"
    elif b.text != a.text:
        change = "reworded"
    elif _quotes(b) != _quotes(a):
        change = "evidence"
    else:
        change = "same"
    return ClaimPair(i, j, round(similarity, 4), change, b.label, a.label)


def align_claims(before: Sequence[ClaimVerdict], after: Sequence[ClaimVerdict]) -> tuple[ClaimPair, ...]:
    """Pair the claims of two runs of one answer (module docstring), in the order of the later run's claims, each
    removed claim after the pair of the claim that preceded it in the earlier run."""
    matched: dict[int, tuple[int, float]] = {}  # after position -> (before position, similarity)
    if before and after:
        scores = process.cdist([c.text for c in before], [c.text for c in after], scorer=fuzz.ratio,
                               processor=utils.default_process, dtype=np.float64) / 100.0
        rows, cols = linear_sum_assignment(scores, maximize=True)
        matched = {int(j): (int(i), float(scores[i, j])) for i, j in zip(rows, cols)
                   if scores[i, j] >= MIN_SIMILARITY}
    paired_before = {i for i, _ in matched.values()}
    removed = [i for i in range(len(before)) if i not in paired_before]
    out: list[ClaimPair] = []

    def flush_removed(upto: int) -> None:
        while removed and removed[0] < upto:
            i = removed.pop(0)
            out.append(ClaimPair(i, None, 0.0, "removed", before[i].label, None))

    for j, claim in enumerate(after):
        if j in matched:
            i, similarity = matched[j]
            flush_removed(i)
            out.append(_pair(i, before[i], j, claim, similarity))
        else:
            out.append(ClaimPair(None, j, 0.0, "added", None, claim.label))
    flush_removed(len(before))
    return tuple(out)
