"""The facet failure taxonomy as pure functions (docs/facets.md "Taxonomy" states the same rules).

With generation (three modes), per facet, the first rule that fires decides:

- R0 unverified: the strict or soft answer could not be obtained (the call failed or its reply was unusable);
- R1 evidence_failure: no relevant chunk entails any produced answer (strict, soft or LLM-only) of the facet;
- R2 evidence_misalignment: a relevant chunk entails some answer, but the strict answer is not entailed by any
  relevant chunk (it abstained, added or contradicted);
- R3 evidence_override: evidence and a grounded strict answer, but the soft answer is not entailed by any relevant
  chunk (the model's prior won; ``prior_match`` says whether the soft answer matches the LLM-only answer);
- R4 robust: strict and soft answers are both entailed by a relevant chunk.

Without generation (the given answer A, audited claim by claim), per facet:

- A0 unaddressed: no claim of A was assigned to the facet;
- A1 unverified: the facet's claims could not all be judged;
- A2 robust: every claim of the facet is entailed (final audit label);
- A3 evidence_failure: a claim is contradicted or baseless and no chunk is relevant to the facet (a chunk that
  holds the audit's evidence for one of the facet's claims counts as relevant);
- A4 evidence_misalignment: a claim is contradicted or baseless although a relevant chunk was retrieved.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from ..evidence import content_words
from ..types import Label
from ._model import Category, ModeAnswer


def token_f1(a: str, b: str) -> float:
    """SQuAD-style F1 over content words (sets); 0.0 when either side has none."""
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 0.0
    common = len(wa & wb)
    if common == 0:
        return 0.0
    p, r = common / len(wa), common / len(wb)
    return 2 * p * r / (p + r)


def generation_category(
    answers: Mapping[str, ModeAnswer], *, sufficient: bool, prior_threshold: float = 0.5
) -> tuple[Category, str, Optional[bool]]:
    """``(category, rule text, prior_match)`` for one facet from its three mode answers."""
    strict, soft, llm = answers.get("strict"), answers.get("soft"), answers.get("llm_only")
    failed = [m for m, a in (("strict", strict), ("soft", soft)) if a is None or a.error is not None]
    if failed:
        return "unverified", f"R0: the {' and '.join(failed)} answer could not be obtained", None
    assert strict is not None and soft is not None
    prior_match: Optional[bool] = None
    if llm is not None and llm.error is None and not llm.abstained and not soft.abstained:
        prior_match = token_f1(soft.text, llm.text) >= prior_threshold
    if not sufficient:
        return "evidence_failure", "R1: no relevant chunk entails any answer to this facet", prior_match
    if not strict.grounded:
        how = "abstained" if strict.abstained else ("is contradicted" if strict.contradicted else "is not entailed")
        return ("evidence_misalignment",
                f"R2: evidence was retrieved, but the strict answer {how} by the relevant chunks", prior_match)
    if not soft.grounded:
        why = []
        if prior_match:
            why.append("it matches the LLM-only answer")
        if soft.contradicted:
            why.append("a relevant chunk contradicts it")
        if soft.abstained:
            why.append("it abstained")
        detail = f" ({'; '.join(why)})" if why else ""
        return ("evidence_override",
                f"R3: the strict answer is grounded, the soft answer is not{detail}", prior_match)
    return "robust", "R4: the strict and soft answers are both entailed by a relevant chunk", prior_match


def answer_category(labels: Sequence[Label], *, retrieved: bool) -> tuple[str, Category, Optional[Label], str]:
    """``(status, category, joined label, rule text)`` for one facet from the final labels of its claims."""
    from ..audit.joins import and_join

    if not labels:
        return "unaddressed", "unaddressed", None, "A0: no claim of the answer addresses this facet"
    label = and_join(labels)
    if label == Label.UNVERIFIED:
        return "unverified", "unverified", label, "A1: some claims of this facet could not be judged"
    if label == Label.ENTAILED:
        return "supported", "robust", label, "A2: every claim addressing this facet is entailed"
    if not retrieved:
        return "unsupported", "evidence_failure", label, f"A3: {label.value} claim and no relevant chunk retrieved"
    return ("unsupported", "evidence_misalignment", label,
            f"A4: {label.value} claim although a relevant chunk was retrieved")
