"""Audit a traced RAG application from its OpenInference spans, offline (pip install -e ".[otel]";
python3 examples/integrations/openinference_traces.py [SPANS.json]).

A toy RAG function traced with the OpenTelemetry SDK, its spans carrying OpenInference's attributes as an
instrumentor writes them (a RETRIEVER span with retrieval.documents, an LLM span with llm.output_messages, under a
CHAIN span with the question); here the instrumentation is by hand, so that the example needs no framework. Two
calls, a clean answer and the paper's hallucinated one (examples/paper_example.jsonl), make two traces: they are
audited from memory (the in-memory exporter's spans) and from an OTLP JSON file, which the command line reads too:
rt4chart audit --from openinference SPANS.json
"""

import json
import sys
import tempfile
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import rt4chart
from rt4chart.integrations.openinference import audit_traces, read_traces

paper = json.loads((Path(__file__).parents[1] / "paper_example.jsonl").read_text(encoding="utf-8"))
passages = [s.text for s in rt4chart.split_sentences(paper["context"])]

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracer = provider.get_tracer("rag-example")


def rag(question: str, answer: str) -> str:
    with tracer.start_as_current_span("rag", attributes={"openinference.span.kind": "CHAIN",
                                                         "input.value": question}) as chain:
        with tracer.start_as_current_span("retrieve", attributes={"openinference.span.kind": "RETRIEVER",
                                                                  "input.value": question}) as span:
            for i, passage in enumerate(passages):
                span.set_attribute(f"retrieval.documents.{i}.document.content", passage)
        with tracer.start_as_current_span("generate", attributes={"openinference.span.kind": "LLM"}) as span:
            span.set_attribute("llm.output_messages.0.message.role", "assistant")
            span.set_attribute("llm.output_messages.0.message.content", answer)
        chain.set_attribute("output.value", answer)
    return answer


rag(paper["question"], "The free trial lasts 14 days from the date of activation.")
rag(paper["question"], paper["answer"])
spans = exporter.get_finished_spans()

results = audit_traces(spans)  # judge="local", the offline default
for r in results:
    print(f"trace {r.id}: {r.label.value}, hallucinated={r.hallucinated}, {len(r.claims)} claims")
assert [r.hallucinated for r in results] == [False, True]

# the same spans as OTLP JSON, as a collector or an exporter writes them, read back as the command line reads them
path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "spans.json"
path.write_text(json_format.MessageToJson(encode_spans(spans)), encoding="utf-8")
records = read_traces(path)
print(f"{path}: {len(records)} traces; now try: rt4chart audit --from openinference {path}")
assert [rec["id"] for rec in records] == [r.id for r in results]
