"""MLflow traces as audit records, one per trace (what ``rt4chart audit --from mlflow`` and ``Groundedness`` read).

A trace here is a mapping ``{"info": TRACE_INFO, "spans": [SPAN, ...]}``: ``info`` as MLflow's REST API gives a
``TraceInfoV3`` (``trace_id``, ``request_time``, ``assessments``, ...) and each span in one of MLflow's two JSON
forms: the OTLP protobuf JSON of ``GET /api/3.0/mlflow/traces/batchGet`` (attributes a list of ``{key, value}``
with OTLP ``AnyValue`` values) or ``mlflow.entities.Span.to_dict()`` (the form of the ``traces.json`` artifact and of
MLflow's own client; attributes a mapping of JSON-encoded values). Ids in both are base64; they become hex, as the
span ids of MLflow's assessments are.

- ``context``: the documents of the trace's RETRIEVER spans (``mlflow.spanType``), spans in the order they started,
  documents in their order: each output item's ``page_content`` (an ``mlflow.entities.Document``; a mapping's
  ``content`` or ``text``, or a string, also), as a passage list (joined by ``rt4chart.io.join_context``);
- ``answer``: the root span's output, else the output of the LLM or CHAT_MODEL span that ended last;
- ``question``: the root span's input.

An input or output is read as text when it is a string, a mapping with one of the usual fields (``question``,
``query``, ``input`` for a question; ``answer``, ``output``, ``response``, ``content``, ``text``, ``result`` for an
answer), a mapping of a single string, a chat completion (``choices[0].message.content``) or a list of chat
messages (the last one's ``content``). A trace without retrieved documents or without an answer is a row with an
``InputError`` naming the trace and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

from ...errors import InputError
from ...io import FieldMap, Row
from ...io.traces import QUESTION_KEYS, hex_id, otlp_value
from .._common import text_of

__all__ = ["ANSWER_KEYS", "TraceParts", "answer_spans", "text_of_value", "trace_parts", "trace_record", "trace_rows"]

#: the fields of an output mapping whose text is the answer
ANSWER_KEYS = ("answer", "output", "response", "content", "text", "result")
_LLM_TYPES = ("LLM", "CHAT_MODEL")


@dataclass(frozen=True)
class _Span:
    span_id: Optional[str]
    parent_id: Optional[str]
    start: int
    end: int
    order: int
    type: str
    inputs: Any
    outputs: Any


def _decoded(value: Any) -> Any:
    """A ``Span.to_dict()`` attribute: JSON text, else the value as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _attributes(span: Mapping[str, Any]) -> dict[str, Any]:
    raw = span.get("attributes") or {}
    if isinstance(raw, Mapping):  # Span.to_dict(): JSON-encoded values
        return {key: _decoded(value) for key, value in raw.items()}
    return {item["key"]: otlp_value(item.get("value") or {}) for item in raw if isinstance(item, Mapping)}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _span(span: Mapping[str, Any], order: int) -> _Span:
    attributes = _attributes(span)
    return _Span(hex_id(span.get("span_id"), 16), hex_id(span.get("parent_span_id"), 16),
                 _int(span.get("start_time_unix_nano")), _int(span.get("end_time_unix_nano")), order,
                 str(attributes.get("mlflow.spanType") or "").upper(), attributes.get("mlflow.spanInputs"),
                 attributes.get("mlflow.spanOutputs"))


def text_of_value(value: Any, keys: tuple[str, ...]) -> Optional[str]:
    """The text of a span's input or output (see the module docstring) read with ``keys``, or None."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, Mapping):
        choices = value.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            message = choices[0].get("message") or {}
            return text_of_value(message.get("content") if isinstance(message, Mapping) else None, keys)
        for key in keys:
            if key in value:
                return text_of_value(value[key], keys)
        if isinstance(value.get("messages"), list):
            return text_of_value(value["messages"], keys)
        if len(value) == 1:
            return text_of_value(next(iter(value.values())), keys)
        return None
    if isinstance(value, list) and value and all(isinstance(m, Mapping) and "content" in m for m in value):
        return text_of_value(value[-1]["content"], keys)
    return None


def _documents(span: _Span) -> list[str]:
    items = span.outputs if isinstance(span.outputs, list) else [span.outputs] if span.outputs else []
    texts = []
    for item in items:
        try:
            text = text_of(item)
        except InputError:
            continue
        if text.strip():
            texts.append(text)
    return texts


def _root(spans: list[_Span]) -> Optional[_Span]:
    ids = {s.span_id for s in spans}
    roots = sorted((s for s in spans if s.parent_id is None or s.parent_id not in ids),
                   key=lambda s: (s.start, s.order))
    return roots[0] if roots else None


def _answer(spans: list[_Span]) -> tuple[Optional[str], Optional[_Span]]:
    """The answer and the span it came from: the root span's output, else the last LLM or CHAT_MODEL output."""
    root = _root(spans)
    text = text_of_value(root.outputs, ANSWER_KEYS) if root is not None else None
    if text is not None:
        return text, root
    for span in sorted((s for s in spans if s.type in _LLM_TYPES), key=lambda s: (s.end, s.order), reverse=True):
        text = text_of_value(span.outputs, ANSWER_KEYS)
        if text is not None:
            return text, span
    return None, None


def _trace_id(trace: Mapping[str, Any]) -> str:
    info = trace.get("info") or {}
    return str(info.get("trace_id") or info.get("request_id") or "")


def _spans(trace: Mapping[str, Any]) -> list[_Span]:
    return [_span(span, i) for i, span in enumerate(trace.get("spans") or []) if isinstance(span, Mapping)]


@dataclass(frozen=True)
class TraceParts:
    """What a trace holds for an audit: its retrieved documents, question and answer, and the span the answer came
    from (None where the trace has none)."""

    trace_id: str
    documents: list[str]
    question: Optional[str]
    answer: Optional[str]
    answer_span: Optional[str]


def trace_parts(trace: Mapping[str, Any]) -> TraceParts:
    """The documents, question and answer of one trace (``{"info": ..., "spans": [...]}``), as the module docstring
    says they are read."""
    spans = _spans(trace)
    retrievers = sorted((s for s in spans if s.type == "RETRIEVER"), key=lambda s: (s.start, s.order))
    answer, source = _answer(spans)
    root = _root(spans)
    return TraceParts(_trace_id(trace), [doc for span in retrievers for doc in _documents(span)],
                      text_of_value(root.inputs, QUESTION_KEYS) if root is not None else None, answer,
                      source.span_id if source is not None else None)


def trace_record(trace: Mapping[str, Any]) -> Union[dict, InputError]:
    """The audit record of one trace (``{"info": ..., "spans": [...]}``), or the ``InputError`` that says why it has
    none (no retrieved documents: field ``context``; no answer: field ``answer``)."""
    parts = trace_parts(trace)
    if not parts.documents:
        return InputError("the trace has no retrieved documents (the outputs of a RETRIEVER span, with page_content)",
                          record=parts.trace_id, field="context")
    if parts.answer is None:
        return InputError("the trace has no answer (a text output of its root span, or of an LLM or CHAT_MODEL "
                          "span)", record=parts.trace_id, field="answer")
    return {"id": parts.trace_id, "context": parts.documents, "question": parts.question, "answer": parts.answer}


def trace_rows(traces: Iterable[Mapping[str, Any]], fields: FieldMap = FieldMap()) -> Iterator[Row]:
    """The input rows of ``traces``, one per trace, keyed by ``fields``; a trace that cannot be audited is a row
    carrying its ``InputError``."""
    for index, trace in enumerate(traces):
        rec = trace_record(trace)
        if isinstance(rec, InputError):
            yield Row(index, None, rec)
        else:
            yield Row(index, {fields.id: rec["id"], fields.context: rec["context"], fields.question: rec["question"],
                              fields.answer: rec["answer"]})


def answer_spans(traces: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The span id each trace's answer came from (its root span, or the LLM span whose output it is), by trace id;
    traces without an answer are left out."""
    found = {_trace_id(trace): trace_parts(trace).answer_span for trace in traces}
    return {trace_id: span_id for trace_id, span_id in found.items() if span_id}
