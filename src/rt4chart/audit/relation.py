"""The retromorphic relation RR((C, Q), T) of RT4CHART §3.1 as an executable check.

For every claim verdict in a trace: each evidence span must be a real slice of C (``C[start:end] == text``),
anchored to the context sentences it overlaps; a baseless claim carries no evidence (Eq. 1); an entailed or
contradicted claim carries at least one span. ``violations`` lists what fails; ``check`` raises.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import RelationError
from ..types import AuditResult, ClaimVerdict, Label, Sentence
from ..text.align import sentence_ids


def claim_violations(verdict: ClaimVerdict, context: str, sentences: Sequence[Sentence]) -> list[str]:
    problems: list[str] = []
    for ev in verdict.evidence:
        if not (0 <= ev.start < ev.end <= len(context)) or context[ev.start : ev.end] != ev.text:
            problems.append(f"claim {verdict.index}: evidence {ev.start}:{ev.end} is not found in the context")
        elif tuple(ev.sentence_ids) != sentence_ids(sentences, ev.start, ev.end):
            problems.append(f"claim {verdict.index}: evidence {ev.start}:{ev.end} has wrong sentence ids")
    if verdict.label == Label.BASELESS and verdict.evidence:
        problems.append(f"claim {verdict.index}: baseless claim carries evidence (violates Eq. 1)")
    if verdict.label in (Label.ENTAILED, Label.CONTRADICTED) and not verdict.evidence:
        problems.append(f"claim {verdict.index}: {verdict.label.value} claim has no evidence")
    return problems


def violations(result: AuditResult) -> list[str]:
    """Every way ``result`` breaks the retromorphic relation; empty when it holds."""
    from ..text.segment import split_sentences

    sentences = split_sentences(result.context)
    problems: list[str] = []
    for verdict in result.claims:
        problems.extend(claim_violations(verdict, result.context, sentences))
        for span in verdict.answer_spans:
            if not (0 <= span.start < span.end <= len(result.answer)):
                problems.append(f"claim {verdict.index}: answer span {span.start}:{span.end} is outside the answer")
    return problems


def check(result: AuditResult) -> AuditResult:
    """Return ``result`` if the relation holds, else raise ``RelationError`` listing the violations."""
    problems = violations(result)
    if problems:
        raise RelationError("; ".join(problems))
    return result
