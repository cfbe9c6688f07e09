"""OpenInference traces: audit what a traced RAG application retrieved and answered (``pip install
'rt4chart[otel]'``).

Each trace becomes one record (``id`` = the trace id): its RETRIEVER spans' documents as the context, its last LLM
output as the answer, its root input as the question (``rt4chart.io.traces`` says exactly how). Spans come from a file
(``read_traces``: OTLP JSON, or a Phoenix span export as Parquet or JSONL; the command line reads the same with
``rt4chart audit --from openinference SPANS``) or from memory (``records_from_spans``: the OpenTelemetry SDK's
spans, e.g. an ``InMemorySpanExporter``'s ``get_finished_spans()``)::

    results = audit_traces(exporter.get_finished_spans())      # or audit_traces("spans.parquet")
    {r.id: r.hallucinated for r in results}
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

from ..jobs.batch import run_sync
from ..judges.base import Judge
from ..io.traces import read_traces, records_from_spans
from ..types import AuditResult
from ._common import DEFAULT_JUDGE, make_auditor

__all__ = ["audit_traces", "read_traces", "records_from_spans"]


def audit_traces(spans: Union[str, Path, Iterable[Any]], judge: Union[str, Judge] = DEFAULT_JUDGE,
                 **options: Any) -> list[AuditResult]:
    """Audit every trace of a span file (a path) or of spans in memory, one ``AuditResult`` per trace with a
    retriever and an LLM output, in the order the traces first appear. ``judge`` as for every integration: a
    judge name with its ``options``, or a Judge object. A record that cannot be audited raises ``InputError``."""
    records = read_traces(spans) if isinstance(spans, (str, Path)) else records_from_spans(spans)
    auditor = make_auditor(judge, options)

    async def audit_all() -> list[AuditResult]:
        return [await auditor.audit(rec) for rec in records]

    return run_sync(audit_all())
