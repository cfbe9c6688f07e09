"""rt4chart: claim-level, evidence-grounded hallucination auditing for RAG answers.

    >>> import rt4chart
    >>> result = rt4chart.audit("The free trial lasts 14 days.", "The free trial lasts 30 days.")
    >>> result.label.value
    'contradicted'

``audit`` runs the RT4CHART pipeline (decompose -> local -> global -> AND-join) on one record; ``Auditor`` does the
same asynchronously for many; ``audit_frame`` and ``triage_frame`` take a pandas DataFrame, and ``rt4chart.ray``
a Ray Dataset. Judges are injected (``LocalJudge``, the trained offline judge and the default; ``LexicalJudge``;
``LLMJudge``; ``HybridJudge``); ``Auditor()`` without one uses the default (``default_judge``), and ``make_judge``
builds one by its command-line name.
"""

from __future__ import annotations

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
from ._one import audit
from .integrations.frame import audit_frame, triage_frame
from .judges.base import Judge
from .judges.lexical import LexicalJudge
from .judges.registry import default_judge, make_judge
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
    "default_judge",
    "make_judge",
    "LocalJudge",
    "LLMJudge",
    "HybridJudge",
]

#: judges imported when first named (the local judge loads onnxruntime; the LLM judges their HTTP client)
_LAZY = {"LocalJudge": ("rt4chart.judges.local", "LocalJudge"), "LLMJudge": ("rt4chart.judges.llm", "LLMJudge"),
         "HybridJudge": ("rt4chart.judges.hybrid", "HybridJudge")}


def __getattr__(name: str):  # noqa: ANN202 - module attribute hook
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'rt4chart' has no attribute {name!r}")
