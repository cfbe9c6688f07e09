"""The two deterministic joins of RT4CHART, as pure functions.

- OR-join (§3.4, Eq. 3) merges a claim's chunk labels into its local label: Con > Ent > Nic.
- AND-join (§3.6, Eq. 4) merges final claim labels into the answer label: Con > Nic > Ent.

``unverified`` (a judge that failed) is our addition and never counts as support. In the OR-join it ranks
below Ent and above Nic: a chunk we could not read prevents concluding "no chunk has evidence", but any chunk with
a decisive signal still decides. In the AND-join it ranks below Con and Nic and above Ent: a found violation decides
the answer, otherwise one unchecked claim keeps the answer from being called entailed.
"""

from __future__ import annotations

from typing import Iterable

from ..types import Label

_OR_PRIORITY = (Label.CONTRADICTED, Label.ENTAILED, Label.UNVERIFIED, Label.BASELESS)
_AND_PRIORITY = (Label.CONTRADICTED, Label.BASELESS, Label.UNVERIFIED, Label.ENTAILED)


def _join(labels: Iterable[Label], priority: tuple[Label, ...], empty: Label) -> Label:
    present = {Label(label) for label in labels}
    if not present:
        return empty
    for label in priority:
        if label in present:
            return label
    raise AssertionError("unreachable: every Label is in the priority list")  # pragma: no cover


def or_join(labels: Iterable[Label]) -> Label:
    """Local claim label from chunk labels: Con if any Con, else Ent if any Ent, else Nic (§3.4).

    No chunks at all (an empty context) means no chunk holds evidence: Nic.
    """
    return _join(labels, _OR_PRIORITY, Label.BASELESS)


def and_join(labels: Iterable[Label]) -> Label:
    """Answer label from final claim labels: Con if any Con, else Nic if any Nic, else Ent (§3.6).

    An answer without claims has nothing unfaithful in it: Ent.
    """
    return _join(labels, _AND_PRIORITY, Label.ENTAILED)
