"""rt4chart: claim-level, evidence-grounded hallucination auditing for RAG answers.

    >>> import rt4chart
    >>> result = rt4chart.audit("The free trial lasts 14 days.", "The free trial lasts 30 days.")
    >>> result.label.value
    'contradicted'

``audit`` runs the RT4CHART pipeline (decompose -> local -> global -> AND-join) on one record; ``Auditor`` does the
same asynchronously for many; ``audit_frame`` and ``triage_frame`` take a pandas DataFrame, and ``rt4chart.ray``
a Ray Dataset. Judges are injected (``LexicalJudge``, the LLM judge, the trained offline judge).
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional, Union

from ._version import __version__
from .audit.auditor import AuditConfig, Auditor
from .audit.decompose import Decomposer, RuleDecomposer
from .audit.joins import and_join, or_join
from .audit.relation import check as check_relation
from .errors import (
    BackendError,
    ConfigError,
    InputError,
    JudgeError,
    MissingDependencyError,
    RelationError,
    Rt4chartError,
)
from .frame import audit_frame, triage_frame
from .judges.base import Judge
from .judges.lexical import LexicalJudge
from .text.segment import make_chunks, split_sentences
from .types import (
    AuditResult,
    Chunk,
    Claim,
    ClaimVerdict,
    Evidence,
    Judgment,
    Label,
    RecordError,
    Sentence,
    Span,
    Usage,
)


__all__ = [
    "AuditConfig",
    "AuditResult",
    "Auditor",
    "BackendError",
    "Chunk",
    "Claim",
    "ClaimVerdict",
    "ConfigError",
    "Decomposer",
    "Evidence",
    "InputError",
    "Judge",
    "JudgeError",
    "Judgment",
    "Label",
    "LexicalJudge",
    "MissingDependencyError",
    "RecordError",
    "RelationError",
    "Rt4chartError",
    "RuleDecomposer",
    "Sentence",
    "Span",
    "Usage",
    "__version__",
    "and_join",
    "audit",
    "audit_frame",
    "check_relation",
    "make_chunks",
    "or_join",
    "split_sentences",
    "triage_frame",
]


def audit(
    context: Union[str, list[str]],
    answer: str,
    question: Optional[str] = None,
    *,
    judge: Union[str, Judge] = "auto",
    decomposer: Optional[Decomposer] = None,
    window: int = 25,
    overlap: int = 10,
    global_verification: bool = True,
    prefilter: bool = False,
    id: Optional[Union[str, int]] = None,
    **judge_options: Any,
) -> AuditResult:
    """Audit one answer against its context (RT4CHART). Synchronous; use ``Auditor`` inside an event loop.

    ``judge`` is a Judge object or a name (``auto``, ``lexical``, ``local``, ``llm``); ``judge_options`` go to
    the named judge's factory (``rt4chart.judges.registry.build_auditor``; no environment variable is read: give
    the LLM judge ``base_url``, ``model`` and ``api_key``). Raises ``InputError`` for an empty context or answer.
    """
    if isinstance(judge, str):
        from .judges.registry import build_auditor

        auditor = build_auditor(judge, window=window, overlap=overlap, global_verification=global_verification,
                                prefilter=prefilter, **judge_options)
        if decomposer is not None:
            auditor.decomposer = decomposer
    else:
        auditor = Auditor(judge=judge, decomposer=decomposer, window=window, overlap=overlap,
                          global_verification=global_verification, prefilter=prefilter)
    record = {"id": id if id is not None else "record", "context": context, "question": question, "answer": answer}
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(auditor.audit(record))
    raise RuntimeError("rt4chart.audit() cannot run inside an event loop; use `await Auditor(...).audit(record)`")
