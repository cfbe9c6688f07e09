"""OpenInference traces as audit records: ``rt4chart audit --from openinference SPANS`` and
``rt4chart.integrations.openinference``.

Each trace becomes one record, ``id`` = its trace id (32 hex digits):

- ``context``: the documents of its RETRIEVER spans (``retrieval.documents.N.document.content``), spans in the order
  they started, documents in their order (a list context, joined by ``rt4chart.io.join_context``);
- ``answer``: the output of its LLM span that ended last (``llm.output_messages.N.message.content``, the last
  message; else the first generation's text in ``output.value``, else ``output.value`` itself);
- ``question``: the root span's input (``input.value``; from a JSON input its ``question``, ``query`` or ``input``
  field), else the first retriever's input (the query it searched with).

A trace without retriever documents or without an LLM output cannot be audited: ``trace_rows`` gives it as a row
with an ``InputError`` naming the trace and the missing field, so the command line writes an error line for it.

Span files: OTLP JSON (``{"resourceSpans": ...}``, one request in the file or one a line as the OpenTelemetry
collector's file exporter writes them; ids in hex or, as protobuf's JSON mapping writes them, base64) and Phoenix
span exports, Parquet or JSONL (a span a row: ``context.trace_id``, ``context.span_id``, ``parent_id``,
``span_kind``, ``start_time``, ``end_time`` and ``attributes.*`` columns as ``get_spans_dataframe`` gives them,
or the attributes nested as in Phoenix's span JSON). Spans in memory, the OpenTelemetry SDK's ``ReadableSpan``,
go through ``records_from_spans``; spans read from a Phoenix server (its REST API's span JSON, ``audit --from
phoenix``) through ``span_rows``, and ``answer_spans`` names the LLM span each answer came from (where rt4chart
writes its claim annotations back). Nothing here imports OpenTelemetry.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Optional, Union

from ..errors import InputError
from . import FieldMap, Row, decode_bytes, json_lines, open_bytes, parquet_records

__all__ = ["answer_spans", "read_traces", "records_from_spans", "span_rows", "trace_rows"]

#: the fields of a JSON input whose text is the question (rt4chart.integrations.mlflow reads its inputs with them too)
QUESTION_KEYS = ("question", "query", "input")


@dataclass(frozen=True)
class _Span:
    trace_id: str
    span_id: Optional[str]
    parent_id: Optional[str]
    start: float
    end: float
    order: int
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.attributes.get("openinference.span.kind") or "").upper()


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> dict[str, Any]:
    """Nested mappings and lists of mappings as dotted keys (``retrieval.documents.0.document.content``): the
    flat form OpenTelemetry attributes have, whichever way an export nested them."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(item, f"{prefix}{key}.", out)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(item, Mapping) for item in value):
        for i, item in enumerate(value):
            _flatten(item, f"{prefix}{i}.", out)
    elif not _missing(value):
        out[prefix[:-1]] = value
    return out


def _time(value: Any) -> float:
    """A start or end time as a number that orders the spans of one file (nanoseconds, milliseconds, a datetime
    or an ISO string); 0 when absent."""
    if _missing(value):
        return 0.0
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return float(value)


def hex_id(value: Any, digits: int) -> Optional[str]:
    """A trace or span id as lowercase hex: an int (the SDK's), hex text, or base64 (protobuf's JSON mapping); MLflow's
    spans carry theirs in base64 too (``rt4chart.integrations.mlflow``)."""
    if _missing(value):
        return None
    if isinstance(value, int):
        return format(value, f"0{digits}x") if value else None
    text = str(value)
    if len(text) == digits and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text
    return raw.hex() if len(raw) * 2 == digits else text


def _span_from_row(row: Mapping[str, Any], order: int) -> _Span:
    """A span of a Phoenix export (a DataFrame row, or Phoenix's span JSON with nested ``context``/``attributes``)."""
    flat = _flatten(row, "", {})
    attributes = {key[len("attributes."):]: value for key, value in flat.items() if key.startswith("attributes.")}
    if "openinference.span.kind" not in attributes and not _missing(flat.get("span_kind")):
        attributes["openinference.span.kind"] = flat["span_kind"]
    trace = flat.get("context.trace_id", flat.get("trace_id"))
    if _missing(trace):
        raise InputError(f"span #{order} has no trace id (context.trace_id)")
    return _Span(hex_id(trace, 32) or str(trace), hex_id(flat.get("context.span_id", flat.get("span_id")), 16),
                 hex_id(flat.get("parent_id"), 16), _time(flat.get("start_time")), _time(flat.get("end_time")),
                 order, attributes)


def _key(obj: Mapping[str, Any], camel: str) -> Any:
    """``obj[camel]``, or its snake_case name (protobuf's JSON mapping with ``preserving_proto_field_name``)."""
    if camel in obj:
        return obj[camel]
    return obj.get("".join(f"_{c.lower()}" if c.isupper() else c for c in camel))


def otlp_value(value: Mapping[str, Any]) -> Any:
    """An OTLP ``AnyValue`` (camelCase or snake_case JSON) as a Python value."""
    for name in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if _key(value, name) is not None:
            return _key(value, name)
    if _key(value, "intValue") is not None:
        return int(_key(value, "intValue"))  # int64 is a string in OTLP JSON
    if _key(value, "arrayValue") is not None:
        return [otlp_value(v) for v in _key(value, "arrayValue").get("values", [])]
    if _key(value, "kvlistValue") is not None:
        return {kv["key"]: otlp_value(kv.get("value", {})) for kv in _key(value, "kvlistValue").get("values", [])}
    return None


def _otlp_spans(doc: Mapping[str, Any], start: int) -> Iterator[_Span]:
    """The spans of one OTLP JSON ``ExportTraceServiceRequest``."""
    order = start
    for resource in _key(doc, "resourceSpans") or []:
        for scope in _key(resource, "scopeSpans") or _key(resource, "instrumentationLibrarySpans") or []:
            for span in scope.get("spans", []):
                attributes: dict[str, Any] = {}
                for kv in span.get("attributes", []):
                    _flatten(otlp_value(kv.get("value", {})), f"{kv['key']}.", attributes)
                trace = hex_id(_key(span, "traceId"), 32)
                if trace is None:
                    raise InputError(f"OTLP span #{order} has no traceId")
                yield _Span(trace, hex_id(_key(span, "spanId"), 16), hex_id(_key(span, "parentSpanId"), 16),
                            _time(_key(span, "startTimeUnixNano")), _time(_key(span, "endTimeUnixNano")), order,
                            attributes)
                order += 1


def _sdk_span(span: Any, order: int) -> _Span:
    """A span of the OpenTelemetry SDK (``ReadableSpan``: what an in-memory exporter holds)."""
    parent = getattr(span, "parent", None)
    return _Span(hex_id(span.context.trace_id, 32) or "", hex_id(span.context.span_id, 16),
                 hex_id(parent.span_id, 16) if parent is not None else None, _time(span.start_time),
                 _time(span.end_time), order, _flatten(dict(span.attributes or {}), "", {}))


def _spans(items: Iterable[Any]) -> list[_Span]:
    spans: list[_Span] = []
    for item in items:
        if isinstance(item, Mapping) and _key(item, "resourceSpans") is not None:
            spans.extend(_otlp_spans(item, len(spans)))
        elif isinstance(item, Mapping):
            spans.append(_span_from_row(item, len(spans)))
        elif hasattr(item, "context") and hasattr(item, "attributes"):
            spans.append(_sdk_span(item, len(spans)))
        else:
            raise InputError(f"span #{len(spans)} is neither a span nor an OTLP request: {type(item).__name__}")
    return spans


def _file_items(path: Union[str, Path]) -> list[Any]:
    """The spans (or OTLP requests) of a span file: Parquet rows, one JSON document, or JSON lines."""
    data = open_bytes(path)
    if data.startswith(b"PAR1") or str(path).lower().endswith(".parquet"):
        return parquet_records(data, str(path))
    text = decode_bytes(data)
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, Mapping):
        return [whole]
    if isinstance(whole, list):
        return whole
    items = []
    for lineno, obj, problem in json_lines(text):
        if problem is not None or not isinstance(obj, Mapping):
            raise InputError(f"{path}: line {lineno} is not a JSON object ({problem or type(obj).__name__}); "
                             "spans are read whole or not at all, so that no trace is audited with parts missing")
        items.append(obj)
    return items


def _documents(span: _Span) -> list[str]:
    prefix, suffix = "retrieval.documents.", ".document.content"
    found = {}
    for key, value in span.attributes.items():
        if key.startswith(prefix) and key.endswith(suffix):
            index = key[len(prefix):-len(suffix)]
            if index.isdigit() and isinstance(value, str) and value.strip():
                found[int(index)] = value
    return [found[i] for i in sorted(found)]


def _text_of_json(value: Any, keys: tuple[str, ...]) -> Optional[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in keys:
            if isinstance(value.get(key), str):
                return value[key]
    return None


def _llm_output(span: _Span) -> Optional[str]:
    prefix, suffix = "llm.output_messages.", ".message.content"
    messages = {int(k[len(prefix):-len(suffix)]): v for k, v in span.attributes.items()
                if k.startswith(prefix) and k.endswith(suffix) and k[len(prefix):-len(suffix)].isdigit()}
    if messages:
        return str(messages[max(messages)])
    output = span.attributes.get("output.value")
    if output is None:
        return None
    try:
        generations = json.loads(output)["generations"]
        return str(generations[0][0]["text"])
    except (ValueError, KeyError, IndexError, TypeError):
        return str(output)


def _question(spans: list[_Span], retrievers: list[_Span]) -> Optional[str]:
    ids = {s.span_id for s in spans}
    roots = sorted((s for s in spans if s.parent_id is None or s.parent_id not in ids), key=lambda s: s.start)
    for span in [*roots[:1], *retrievers[:1]]:
        text = _text_of_json(span.attributes.get("input.value"), QUESTION_KEYS)
        if text and text.strip():
            return text
    return None


def _answer_span(spans: list[_Span]) -> Optional[_Span]:
    """The LLM span whose output is the trace's answer: the one that ended last."""
    llms = sorted((s for s in spans if s.kind == "LLM"), key=lambda s: (s.end, s.order))
    return llms[-1] if llms else None


def _trace_record(trace_id: str, spans: list[_Span]) -> Union[dict, InputError]:
    retrievers = sorted((s for s in spans if s.kind == "RETRIEVER"), key=lambda s: (s.start, s.order))
    documents = [doc for span in retrievers for doc in _documents(span)]
    if not documents:
        return InputError("the trace has no retriever documents (retrieval.documents on a RETRIEVER span)",
                          record=trace_id, field="context")
    llm = _answer_span(spans)
    answer = _llm_output(llm) if llm is not None else None
    if not answer or not answer.strip():
        return InputError("the trace has no LLM output (an LLM span with llm.output_messages or output.value)",
                          record=trace_id, field="answer")
    return {"id": trace_id, "context": documents, "question": _question(spans, retrievers), "answer": answer}


def _traces(spans: list[_Span]) -> dict[str, list[_Span]]:
    traces: dict[str, list[_Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    return traces


def _records(spans: list[_Span]) -> list[Union[dict, InputError]]:
    return [_trace_record(trace_id, members) for trace_id, members in _traces(spans).items()]


def records_from_spans(spans: Iterable[Any]) -> list[dict]:
    """One audit record per trace of ``spans`` (OpenTelemetry SDK ``ReadableSpan`` objects, Phoenix span rows or
    OTLP JSON requests), traces in the order their first span comes; a trace without retriever documents or
    without an LLM output is left out (``trace_rows`` reports it instead)."""
    return [rec for rec in _records(_spans(spans)) if not isinstance(rec, InputError)]


def read_traces(path: Union[str, Path]) -> list[dict]:
    """``records_from_spans`` for a span file (OTLP JSON, Phoenix Parquet or JSONL); raises ``InputError`` for a
    file that is not one."""
    return records_from_spans(_file_items(path))


def answer_spans(spans: Iterable[Any]) -> dict[str, str]:
    """The span id of each trace's answer, the LLM span its record's ``answer`` comes from (the one that ended
    last), by trace id; traces without an LLM span (or whose span has no id) are left out. ``spans`` as for
    ``records_from_spans``."""
    found = {trace_id: _answer_span(members) for trace_id, members in _traces(_spans(spans)).items()}
    return {trace_id: span.span_id for trace_id, span in found.items() if span is not None and span.span_id}


def span_rows(spans: Iterable[Any], fields: FieldMap = FieldMap()) -> Iterator[Row]:
    """The input rows of the spans in ``spans`` (as for ``records_from_spans``): one per trace, keyed by ``fields``;
    a trace that cannot be audited is a row carrying its ``InputError``."""
    for index, rec in enumerate(_records(_spans(spans))):
        if isinstance(rec, InputError):
            yield Row(index, None, rec)
        else:
            yield Row(index, {fields.id: rec["id"], fields.context: rec["context"],
                              fields.question: rec["question"], fields.answer: rec["answer"]})


def trace_rows(path: Union[str, Path], fields: FieldMap = FieldMap()) -> Iterator[Row]:
    """The input rows of ``rt4chart audit --from openinference``: ``span_rows`` of a span file."""
    return span_rows(_file_items(path), fields)
