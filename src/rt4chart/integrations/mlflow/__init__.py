"""MLflow 3: audit an experiment's traces and write the verdicts back as assessments
(``rt4chart audit --from mlflow URI --experiment NAME -o OUT --write-back``), and rt4chart as a GenAI scorer
(``mlflow.genai.evaluate(data=..., scorers=[Groundedness()])``).

- ``MlflowTraces``: the traces of an experiment, from a tracking server over its REST API with httpx (no MLflow
  package needed) or from a local store (``sqlite:///...``, ``file:...``) through MLflow's client (the ``[mlflow]``
  extra); ``write_back`` adds one ``rt4chart`` feedback per trace and one ``rt4chart-claim-N`` feedback per flagged
  claim on the answer's span, and updates them on a rerun (``rt4chart.integrations.mlflow.client``).
- ``trace_rows``, ``trace_record``, ``answer_spans``: one audit record per trace, its context the documents of its
  RETRIEVER spans, its answer the root span's output (else the last LLM or CHAT_MODEL span's), its question the root
  span's input (``rt4chart.integrations.mlflow.trace_records``).
- ``Groundedness``: an ``mlflow.genai.scorers.Scorer`` (``rt4chart.integrations.mlflow.scorer``); importing it
  imports MLflow, which nothing else here does.
"""

from __future__ import annotations

from typing import Any

from .client import ASSESSMENT_NAME, MlflowTraces, WriteBack, assessments
from .trace_records import answer_spans, trace_record, trace_rows

__all__ = ["ASSESSMENT_NAME", "Groundedness", "MlflowTraces", "WriteBack", "answer_spans", "assessments",
           "trace_record", "trace_rows"]


def __getattr__(name: str) -> Any:
    if name == "Groundedness":  # the scorer imports MLflow: only when it is asked for
        from .scorer import Groundedness

        return Groundedness
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
