"""DeepEval: rt4chart as a DeepEval metric (``pip install 'rt4chart[deepeval]'``).

``Faithfulness`` is a DeepEval ``BaseMetric``: it audits a test case's ``actual_output`` against its
``retrieval_context`` (else its ``context``), with its ``input`` as the question, so it goes wherever a metric
does (``evaluate``, ``assert_test``, ``deepeval test run``)::

    from deepeval import assert_test, evaluate
    from deepeval.test_case import LLMTestCase

    metric = Faithfulness()                             # the offline local judge; Faithfulness(judge="llm", ...)
    evaluate([LLMTestCase(input=q, actual_output=a, retrieval_context=docs)], [metric])
    assert_test(test_case, [Faithfulness()])            # raises AssertionError, the flagged claims in the reason

``score`` is the share of the answer's claims that are entailed; the metric passes when ``score`` is at least
``threshold`` (1.0 by default: every claim entailed, the answer grounded) and a judge confirmed the answer: one no
judge confirmed (``unverified``, ``hallucinated`` None: "needs review") fails unless ``allow_unverified=True``.
``reason`` names each claim not entailed with its label and its judge's reason; ``audit`` is the ``AuditResult``.
No LLM of DeepEval's is called: the judge is rt4chart's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Union

from ..jobs.batch import run_sync
from ..errors import InputError
from ..judges.base import Judge
from ..types import AuditResult
from ._common import DEFAULT_JUDGE, check_threshold, flagged, make_auditor, missing, passes, record, score

try:
    from deepeval.metrics import BaseMetric
    from deepeval.test_case import LLMTestCase, SingleTurnParams
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("deepeval", "deepeval") from exc

__all__ = ["Faithfulness"]


class Faithfulness(BaseMetric):
    """Audits a test case's ``actual_output`` against its ``retrieval_context`` (else ``context``), claim by claim
    (RT4CHART).

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) or a Judge object; ``options``: the
    judge's options (``{"base_url": ..., "model": ...}`` for ``"llm"``), a mapping rather than keyword arguments
    because DeepEval copies a metric by calling its class with the attributes named like its parameters.
    ``strict_mode`` sets the threshold to 1.0. Raises ``InputError`` when the test case has no output or no
    context, and ``ConfigError`` for a threshold outside 0..1."""

    _required_params = [SingleTurnParams.ACTUAL_OUTPUT]

    def __init__(self, threshold: float = 1.0, judge: Union[str, Judge] = DEFAULT_JUDGE, *,
                 options: Optional[Mapping[str, Any]] = None, allow_unverified: bool = False,
                 include_reason: bool = True, strict_mode: bool = False, async_mode: bool = True,
                 verbose_mode: bool = False) -> None:
        self.threshold = 1.0 if strict_mode else check_threshold(threshold)
        self.judge = judge
        self.options = dict(options or {})
        self.allow_unverified = allow_unverified
        self.include_reason = include_reason
        self.strict_mode = strict_mode
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.evaluation_model = f"rt4chart {judge if isinstance(judge, str) else type(judge).__name__}"
        self.evaluation_cost = 0.0
        self.audit: Optional[AuditResult] = None
        self._auditor = make_auditor(judge, self.options)

    @property
    def __name__(self) -> str:
        return "rt4chart Faithfulness"

    def _record(self, test_case: LLMTestCase) -> dict:
        context = test_case.retrieval_context or test_case.context
        if not test_case.actual_output or not context:
            raise InputError("Faithfulness needs the test case's actual_output and its retrieval_context or context",
                             field="actual_output" if not test_case.actual_output else "context")
        return record(test_case.name or "deepeval", list(context), test_case.actual_output, test_case.input)

    def _keep(self, result: AuditResult) -> float:
        self.audit = result
        self.score = score(result)
        self.success = passes(result, self.threshold, self.allow_unverified)
        self.reason = flagged(result) if self.include_reason else None
        self.evaluation_cost = result.usage.cost_usd
        self.error = None
        if self.verbose_mode:
            self.verbose_logs = flagged(result)
        return self.score

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return run_sync(self.a_measure(test_case, *args, **kwargs))

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self._keep(await self._auditor.audit(self._record(test_case)))

    def is_successful(self) -> bool:
        if self.error is not None or self.audit is None:
            self.success = False
        else:
            self.success = passes(self.audit, self.threshold, self.allow_unverified)
        return self.success
