"""``Groundedness``: rt4chart as an MLflow GenAI scorer (``pip install 'rt4chart[mlflow]'``)::

    import mlflow
    from rt4chart.integrations.mlflow import Groundedness

    traces = mlflow.search_traces(locations=[experiment_id])
    mlflow.genai.evaluate(data=traces, scorers=[Groundedness()])     # the offline local judge: no network call

It audits the answer (the row's ``outputs``, else the trace's answer) against the documents of the trace's
RETRIEVER spans when the row has a trace, else against ``inputs["context"]`` (a string or a list of passages), with
the question read from the inputs or the trace; the same reading as ``rt4chart audit --from mlflow``
(``rt4chart.integrations.mlflow.trace_records``). It returns one ``Feedback``: value ``yes`` when the answer passes (at
least ``threshold`` of its claims entailed, 1.0 by default: all of them, and a judge confirmed it, unless
``allow_unverified``), else ``no``; rationale the flagged claims with their labels and reasons; metadata the answer
label, the judge, the claim counts, the risk and the claim table. No LLM of MLflow's is called: the judge is
rt4chart's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Optional, Union

from ...jobs.batch import run_sync
from ...errors import InputError
from ...judges.base import Judge
from ...testing import claim_table
from ...io.traces import QUESTION_KEYS
from ...types import Label
from .._common import DEFAULT_JUDGE, check_threshold, flagged, make_auditor, missing, passes, record, result_risk
from .trace_records import ANSWER_KEYS, text_of_value, trace_parts

try:
    from mlflow.entities import AssessmentSource, AssessmentSourceType, Feedback
    from mlflow.genai.scorers import Scorer
    from pydantic import PrivateAttr
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("mlflow", "mlflow") from exc

__all__ = ["Groundedness"]


class Groundedness(Scorer):
    """Audits a row's answer against its trace's retrieved documents (else ``inputs["context"]``), claim by claim
    (RT4CHART), as an MLflow ``Scorer``.

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) or a Judge object; ``options``: the
    judge's options (``{"base_url": ..., "model": ...}`` for ``"llm"``); ``threshold``: the share of claims that must
    be entailed (0..1, ``ConfigError`` outside); ``name``: the feedback's name. Raises ``InputError`` (which MLflow
    records as the row's error) for a row without documents or without an answer."""

    name: str = "rt4chart_groundedness"
    threshold: float = 1.0
    judge: Any = DEFAULT_JUDGE
    options: dict[str, Any] = {}
    allow_unverified: bool = False
    _auditor: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default=None)

    def __init__(self, threshold: float = 1.0, judge: Union[str, Judge] = DEFAULT_JUDGE, *,
                 options: Optional[Mapping[str, Any]] = None, allow_unverified: bool = False,
                 name: str = "rt4chart_groundedness", **data: Any) -> None:
        super().__init__(name=name, threshold=check_threshold(threshold), judge=judge, options=dict(options or {}),
                         allow_unverified=allow_unverified, **data)
        self._auditor = make_auditor(judge, self.options)
        self._lock = threading.Lock()  # evaluate scores rows on several threads; one judge audits one at a time

    def _record(self, inputs: Any, outputs: Any, trace: Any) -> dict:
        documents: Any = []
        trace_id, question, answer = None, None, None
        if trace is not None:
            parts = trace_parts({"info": {"trace_id": trace.info.trace_id},
                                 "spans": [span.to_dict() for span in trace.data.spans]})
            trace_id, documents, question, answer = parts.trace_id, parts.documents, parts.question, parts.answer
        if not documents and isinstance(inputs, Mapping) and inputs.get("context"):
            documents = inputs["context"]
        if outputs is not None:
            answer = text_of_value(outputs, ANSWER_KEYS) or answer
        question = question or text_of_value(inputs, QUESTION_KEYS)
        if not documents:
            raise InputError("Groundedness needs retrieved documents: a trace with RETRIEVER spans, or "
                             "inputs['context']", record=trace_id, field="context")
        if not answer:
            raise InputError("Groundedness needs an answer: the row's outputs, or a trace with one", record=trace_id,
                             field="outputs")
        return record(trace_id or self.name, documents, answer, question)

    def __call__(self, *, inputs: Any = None, outputs: Any = None, trace: Any = None) -> Feedback:
        rec = self._record(inputs, outputs, trace)
        with self._lock:
            result = run_sync(self._auditor.audit(rec))
        entailed = sum(c.label == Label.ENTAILED for c in result.claims)
        return Feedback(name=self.name, value="yes" if passes(result, self.threshold, self.allow_unverified) else "no",
                        rationale=flagged(result),
                        metadata={"answer_label": result.label.value, "judge": str(result.judge),
                                  "claims": str(len(result.claims)), "entailed": str(entailed),
                                  "risk": f"{result_risk(result):.4f}", "claim_table": claim_table(result)},
                        source=AssessmentSource(source_type=AssessmentSourceType.CODE, source_id="rt4chart"))
