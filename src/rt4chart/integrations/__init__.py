"""Audits inside RAG frameworks: one module a framework, each behind its own extra, the framework imported only
inside its module (``import rt4chart`` and ``import rt4chart.integrations`` import none of them).

- ``rt4chart.integrations.frame`` (``[pandas]``): ``audit_frame`` and ``triage_frame`` on a DataFrame (also
  ``rt4chart.audit_frame`` and ``rt4chart.triage_frame``).
- ``rt4chart.integrations.langchain`` (``pip install 'rt4chart[langchain]'``): ``AuditRunnable``, composed after a
  retrieval chain with ``|``, and ``AuditCallbackHandler`` / ``AsyncAuditCallbackHandler``, which audit each chain
  run's retrieved documents and final answer when the run ends.
- ``rt4chart.integrations.llama_index`` (``[llama-index]``): ``AuditEvaluator``, a LlamaIndex ``BaseEvaluator``.
- ``rt4chart.integrations.haystack`` (``[haystack]``): ``AuditGuard``, a Haystack 2 component that splits replies
  into grounded and not.
- ``rt4chart.integrations.deepeval`` (``[deepeval]``) and ``rt4chart.integrations.ragas`` (``[ragas]``):
  ``Faithfulness``, a DeepEval ``BaseMetric`` and a RAGAS single-turn metric (score, verdict, the flagged claims).
- ``rt4chart.integrations.openinference`` (``[otel]``): OpenInference traces (OTLP JSON, Phoenix exports, SDK spans)
  as audit records, one per trace; also ``rt4chart audit --from openinference SPANS``.
- ``rt4chart.integrations.phoenix`` (no extra: httpx): a Phoenix server's spans over its REST API, and the
  verdicts written back as annotations; ``rt4chart audit --from phoenix URL --project P --write-back``.
- ``rt4chart.integrations.mlflow`` (no extra over REST; ``[mlflow]`` for a local store and the scorer): an MLflow
  experiment's traces, the verdicts written back as feedback assessments (``rt4chart audit --from mlflow URI
  --experiment NAME --write-back``), and ``Groundedness``, an MLflow GenAI scorer.

Every integration takes ``judge=``: a judge name (``"local"``, the offline default; ``"llm"``; any name
``rt4chart.judges.registry`` knows) with its options as keyword arguments, or a Judge object. This package sits over
the library: it imports the public API, and only the Ray engine, the command line and ``rt4chart``'s own face (the
DataFrame calls) import it.
"""

from __future__ import annotations

from ..errors import HallucinationError

__all__ = ["HallucinationError"]
