"""RAGAS: rt4chart as a RAGAS metric (``pip install 'rt4chart[ragas]'``).

``Faithfulness`` is a RAGAS single-turn metric (``ragas.metrics.base.SingleTurnMetric``, what ``ragas.evaluate``
runs): it audits a sample's ``response`` against its ``retrieved_contexts``, with its ``user_input`` as the
question, and needs no LLM or embeddings of RAGAS's::

    from ragas import EvaluationDataset, evaluate

    dataset = EvaluationDataset.from_list([{"user_input": q, "retrieved_contexts": docs, "response": a}])
    result = evaluate(dataset, metrics=[Faithfulness()])    # the offline local judge; Faithfulness(judge="llm", ...)
    result.to_pandas()["rt4chart_faithfulness"]

    verdict = Faithfulness().score(user_input=q, retrieved_contexts=docs, response=a)
    verdict.value, verdict.reason                           # a ragas MetricResult: the score and the flagged claims

The score is the share of the answer's claims that are entailed: 1.0 only when every claim is, so an answer with a
claim no judge confirmed (``unverified``) never scores 1.0. ``passed(result)`` (and ``MetricResult.traces``'s
``output["passed"]``) applies ``threshold`` (1.0 by default) and fails an answer no judge confirmed unless
``allow_unverified=True``. Every audit of the metric's run is kept in ``audits`` (in the order they finished; each
``AuditResult`` holds its question, context and answer).
"""

from __future__ import annotations

import typing as t
from dataclasses import dataclass, field

from ..jobs.batch import run_sync
from ..errors import InputError
from ..judges.base import Judge
from ..types import AuditResult
from ._common import DEFAULT_JUDGE, check_threshold, flagged, make_auditor, missing, passes, record, score

try:
    from ragas.metrics.base import MetricType, SingleTurnMetric
    from ragas.metrics.result import MetricResult
    from ragas.run_config import RunConfig
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("ragas", "ragas") from exc

__all__ = ["Faithfulness"]


@dataclass
class Faithfulness(SingleTurnMetric):
    """Audits a sample's ``response`` against its ``retrieved_contexts``, claim by claim (RT4CHART).

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) or a Judge object; ``options``: the
    judge's options (``{"base_url": ..., "model": ...}`` for ``"llm"``). Raises ``InputError`` for a sample without
    a response or contexts, ``ConfigError`` for a threshold outside 0..1."""

    name: str = "rt4chart_faithfulness"
    judge: t.Union[str, Judge] = DEFAULT_JUDGE
    options: t.Dict[str, t.Any] = field(default_factory=dict)
    threshold: float = 1.0
    allow_unverified: bool = False
    _required_columns: t.Dict[MetricType, t.Set[str]] = field(
        default_factory=lambda: {MetricType.SINGLE_TURN: {"response", "retrieved_contexts", "user_input:optional"}})
    audits: t.List[AuditResult] = field(default_factory=list, repr=False)
    _auditor: t.Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.threshold = check_threshold(self.threshold)
        self._auditor = make_auditor(self.judge, self.options)

    def init(self, run_config: RunConfig) -> None:
        pass  # nothing to set up per run: the judge is rt4chart's, built with the metric

    def passed(self, result: AuditResult) -> bool:
        """The verdict on one audit: ``score`` at least ``threshold`` and a judge confirmed the answer (unless
        ``allow_unverified``)."""
        return passes(result, self.threshold, self.allow_unverified)

    async def _audit(self, user_input: t.Optional[str], retrieved_contexts: t.Optional[t.List[str]],
                     response: t.Optional[str]) -> AuditResult:
        if not response or not retrieved_contexts:
            raise InputError("Faithfulness needs the sample's response and retrieved_contexts",
                             field="response" if not response else "retrieved_contexts")
        result = await self._auditor.audit(record("ragas", list(retrieved_contexts), response, user_input))
        self.audits.append(result)
        return result

    async def _single_turn_ascore(self, sample: t.Any, callbacks: t.Any) -> float:
        return score(await self._audit(sample.user_input, sample.retrieved_contexts, sample.response))

    async def ascore(self, *, response: str, retrieved_contexts: t.List[str],
                     user_input: t.Optional[str] = None) -> MetricResult:
        """Score one answer: a ``MetricResult`` whose ``value`` is the score and ``reason`` the flagged claims with
        their reasons; ``traces["output"]`` holds ``passed`` and the ``AuditResult`` (``audit``)."""
        result = await self._audit(user_input, retrieved_contexts, response)
        return MetricResult(value=score(result), reason=flagged(result),
                            traces={"output": {"passed": self.passed(result), "audit": result}})

    def score(self, *, response: str, retrieved_contexts: t.List[str],
              user_input: t.Optional[str] = None) -> MetricResult:
        """``ascore`` from synchronous code."""
        return run_sync(self.ascore(response=response, retrieved_contexts=retrieved_contexts, user_input=user_input))
