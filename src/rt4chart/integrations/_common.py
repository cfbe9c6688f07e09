"""What the framework integrations share: the auditor for a ``judge=`` argument, the texts of a framework's
documents, the record to audit, the verdict a framework reports (grounded, score, the claim table), and what a trace
store's write-back says of a result (``verdict``, ``result_risk``, ``explanation``: Phoenix's annotations, MLflow's
assessments)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional, Union

from ..audit.auditor import Auditor
from ..errors import ConfigError, InputError, MissingDependencyError
from ..judges.base import Judge
from ..judges.registry import auditor_for
from ..types import AuditResult, Label

#: the judge of every integration when none is named: the trained offline judge, no model endpoint, no download
DEFAULT_JUDGE = "local"


def make_auditor(judge: Union[str, Judge], options: Mapping[str, Any]) -> Auditor:
    """The auditor for an integration's ``judge=`` (a judge name with its options, or a Judge object)."""
    return auditor_for(judge, **options)


def missing(package: str, extra: str) -> MissingDependencyError:
    return MissingDependencyError(package, extra)


def text_of(document: Any) -> str:
    """The text of one retrieved document, whichever framework made it: a string, a LangChain ``Document``
    (``page_content``), a LlamaIndex node or ``NodeWithScore`` (``get_content()``), a Haystack ``Document``
    (``content``), or a mapping with one of those keys."""
    if isinstance(document, str):
        return document
    if isinstance(document, Mapping):
        for key in ("page_content", "content", "text"):
            if isinstance(document.get(key), str):
                return document[key]
    for attr in ("page_content", "content", "text"):
        value = getattr(document, attr, None)
        if isinstance(value, str):
            return value
    if callable(getattr(document, "get_content", None)):
        return str(document.get_content())
    raise InputError(f"cannot read the text of a retrieved document of type {type(document).__name__}",
                     field="context")


def context_of(documents: Any) -> Union[str, list[str]]:
    """A record's context from a string or from retrieved documents (their texts, empty ones left out)."""
    if isinstance(documents, str):
        return documents
    if isinstance(documents, Iterable) and not isinstance(documents, Mapping):
        return [text for text in (text_of(d) for d in documents) if text.strip()]
    return [text_of(documents)]


def record(rid: Any, context: Any, answer: Any, question: Optional[str] = None) -> dict:
    """The record to audit (``Auditor.audit`` validates it and names the field it rejects)."""
    return {"id": rid, "context": context_of(context), "question": question, "answer": answer}


def grounded(result: AuditResult) -> bool:
    """Every claim entailed: the answer label is ``entailed`` (an unverified answer is not grounded)."""
    return result.label == Label.ENTAILED


def score(result: AuditResult) -> float:
    """The share of the answer's claims that are entailed (1.0 grounded, 0.0 none; 0.0 with no claim)."""
    from ..testing import risk

    return 1.0 - risk(result)


def table(result: AuditResult) -> str:
    """The answer label and its claim table (``rt4chart.testing.claim_table``)."""
    from ..testing import claim_table

    return f"{result.label.value} (judge {result.judge})\n{claim_table(result)}"


def passes(result: AuditResult, threshold: float, allow_unverified: bool = False) -> bool:
    """A metric's verdict: at least one claim, ``score`` at least ``threshold``, and a judge confirmed the answer
    (``hallucinated`` not None) unless ``allow_unverified`` (the rule of ``rt4chart.testing.assert_grounded``, with
    ``threshold`` = 1 - ``max_risk``). With ``threshold`` 1.0 it is ``grounded``."""
    unconfirmed = result.hallucinated is None and not allow_unverified
    return bool(result.claims) and score(result) >= threshold and not unconfirmed


def check_threshold(threshold: float) -> float:
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"threshold must be between 0 and 1, got {threshold!r}")
    return float(threshold)


def flagged(result: AuditResult) -> str:
    """The answer label, the share of claims entailed, and each claim not entailed with its label and reason
    (or its evidence): what a metric reports as its reason."""
    n = len(result.claims)
    head = (f"{result.label.value} (judge {result.judge}): "
            f"{sum(c.label == Label.ENTAILED for c in result.claims)} of {n} claims entailed")
    if not n:
        return f"{head}; no claim to check was found in the answer (needs review)"
    lines = [head]
    for i, c in enumerate(result.claims, start=1):
        if c.label != Label.ENTAILED:
            why = c.reason or (f"evidence: \u201c{c.evidence[0].text}\u201d" if c.evidence else "no reason given")
            lines.append(f"- claim {i} [{c.label.value}] \u201c{c.text}\u201d: {why}")
    if result.hallucinated is None:
        lines.append("no judge confirmed the answer: it needs review")
    return "\n".join(lines)


def verdict(result: AuditResult) -> str:
    """A write-back's label of a result: ``hallucinated``, ``supported`` or, when no judge confirmed every claim
    (``hallucinated`` None), ``needs review``."""
    return {True: "hallucinated", False: "supported"}.get(result.hallucinated, "needs review")


def result_risk(result: AuditResult) -> float:
    """The result's risk: the calibrated probability or the gate's risk when it has one, else the share of its
    claims not entailed (``rt4chart.testing.risk``)."""
    from ..testing import risk

    return result.risk if result.risk is not None else risk(result)


def why(claim: Any) -> str:
    """A flagged claim's reason in a write-back: its first evidence quote, else its judge's reason."""
    if claim.evidence:
        return f"evidence: \u201c{claim.evidence[0].text}\u201d"
    return claim.reason or "no evidence in the context"


def explanation(result: AuditResult) -> str:
    """A write-back's explanation of a result: each flagged claim (not entailed) with its label and ``why``, one a
    line; else that every claim is entailed."""
    flagged = [c for c in result.claims if c.label != Label.ENTAILED]
    if flagged:
        return "\n".join(f"claim {c.index + 1} ({c.label.value}): {c.text} ({why(c)})" for c in flagged)
    return f"all {len(result.claims)} claims entailed by the retrieved documents"
