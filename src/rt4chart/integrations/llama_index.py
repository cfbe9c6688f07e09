"""LlamaIndex: an evaluator that audits a response against its contexts (``pip install 'rt4chart[llama-index]'``).

``AuditEvaluator`` is a LlamaIndex ``BaseEvaluator``, so it works wherever one does (``evaluate``,
``aevaluate``, ``evaluate_response`` on a query engine's ``Response`` and its source nodes, ``BatchEvalRunner``)::

    evaluator = AuditEvaluator()                        # the offline local judge; AuditEvaluator(judge="llm", ...)
    result = evaluator.evaluate_response(query=question, response=query_engine.query(question))
    result.passing, result.score, print(result.feedback)
    result.metadata["audit"]                            # the AuditResult: claims, labels, evidence, spans

``passing`` is True when every claim is entailed; ``score`` is the share of claims entailed; ``feedback`` is the
answer label and the claim table (label, claim, evidence or reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

from ..jobs.batch import run_sync
from ..errors import InputError
from ..judges.base import Judge
from ._common import DEFAULT_JUDGE, grounded, make_auditor, missing, record, score, table

try:
    from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("llama-index-core", "llama-index") from exc

__all__ = ["AuditEvaluationResult", "AuditEvaluator"]


class AuditEvaluationResult(EvaluationResult):
    """An ``EvaluationResult`` with ``metadata``: ``metadata["audit"]`` is the full ``AuditResult``."""

    metadata: dict[str, Any] = Field(default_factory=dict, description="metadata['audit']: the AuditResult")


class AuditEvaluator(BaseEvaluator):
    """Audits ``response`` against ``contexts`` (RT4CHART, claim by claim).

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) with its ``options``, or a Judge
    object. Raises ``InputError`` (a ``ValueError``) when the response or the contexts are missing or empty."""

    def __init__(self, judge: Union[str, Judge] = DEFAULT_JUDGE, **options: Any) -> None:
        self.judge = judge
        self._auditor = make_auditor(judge, options)

    def _get_prompts(self) -> dict:
        return {}  # no prompt of LlamaIndex's: an LLM judge's prompts are rt4chart's versioned templates

    def _update_prompts(self, prompts_dict: dict) -> None:
        pass

    def evaluate(self, query: Optional[str] = None, response: Optional[str] = None,
                 contexts: Optional[Sequence[str]] = None, **kwargs: Any) -> EvaluationResult:
        # BaseEvaluator.evaluate runs aevaluate on a loop it leaves open; run_sync closes its loop
        return run_sync(self.aevaluate(query=query, response=response, contexts=contexts, **kwargs))

    async def aevaluate(self, query: Optional[str] = None, response: Optional[str] = None,
                        contexts: Optional[Sequence[str]] = None, **kwargs: Any) -> EvaluationResult:
        if response is None or contexts is None:
            raise InputError("AuditEvaluator needs a response and its contexts")
        result = await self._auditor.audit(record(kwargs.get("id", "llama_index"), list(contexts), response, query))
        return AuditEvaluationResult(query=query, contexts=list(contexts), response=response,
                                     passing=grounded(result), score=score(result), feedback=table(result),
                                     metadata={"audit": result})
