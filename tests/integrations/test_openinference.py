"""OpenInference traces from a really instrumented LangChain RAG chain: OpenInference's LangChain instrumentor with
the OpenTelemetry SDK's in-memory exporter records the spans of three runs (a clean answer, the paper's
hallucinated one, and a chat call without retrieval); the reader must give one record per trace with the documents
the retriever returned and the answer the model gave, from the SDK's spans, from OTLP JSON written by
OpenTelemetry's own OTLP encoder, and from a Phoenix-style span table (Parquet, JSONL)."""

from __future__ import annotations

import json
import warnings

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("openinference.instrumentation.langchain")
pytest.importorskip("opentelemetry.sdk")

from click.testing import CliRunner  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402
from openinference.instrumentation.langchain import LangChainInstrumentor  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from rt4chart import InputError, Label  # noqa: E402
from rt4chart.cli import main  # noqa: E402
from rt4chart.integrations.openinference import audit_traces, read_traces, records_from_spans  # noqa: E402
from rt4chart.io.traces import trace_rows  # noqa: E402

PROMPT = ChatPromptTemplate.from_template("Answer from the context.\n{context}\nQuestion: {question}")


def _rag_chain(passages: list[str], answer: str, seen: list):
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=p) for p in passages])

    def keep(docs: list[Document]) -> str:
        seen.append([d.page_content for d in docs])  # what the retriever returned, in its order
        return "\n\n".join(d.page_content for d in docs)

    retriever = store.as_retriever(search_kwargs={"k": len(passages)})
    return {"context": retriever | RunnableLambda(keep), "question": RunnablePassthrough()} | PROMPT \
        | FakeListChatModel(responses=[answer]) | StrOutputParser()


@pytest.fixture(scope="module")
def traced(paper, passages, clean_answer):
    """The spans of three instrumented runs and, per trace id, what the run really retrieved and answered."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    expected: dict[str, dict] = {}
    try:
        with warnings.catch_warnings():
            # the instrumentor itself calls a method LangChain deprecated (message.text()); not ours to fix
            warnings.filterwarnings("ignore", message=".*text.*deprecated", category=DeprecationWarning)
            for answer in (clean_answer, paper["answer"]):
                seen: list = []
                assert _rag_chain(passages, answer, seen).invoke(paper["question"]) == answer
                new = {format(s.context.trace_id, "032x") for s in exporter.get_finished_spans()} - set(expected)
                assert len(new) == 1
                expected[new.pop()] = {"context": seen[0], "question": paper["question"], "answer": answer}
            (RunnablePassthrough() | FakeListChatModel(responses=["no retrieval here"])).invoke("hello")
    finally:
        instrumentor.uninstrument()
    spans = exporter.get_finished_spans()
    assert len({s.context.trace_id for s in spans}) == 3
    return spans, expected


def _check(records: list[dict], expected: dict[str, dict]) -> None:
    assert [r["id"] for r in records] == list(expected)  # one record per trace with a retriever, in trace order
    for rec in records:
        assert {k: rec[k] for k in ("context", "question", "answer")} == expected[rec["id"]]


def test_records_from_sdk_spans(traced):
    spans, expected = traced
    _check(records_from_spans(spans), expected)


def _otlp_request(spans) -> dict:
    return json_format.MessageToDict(encode_spans(spans))  # protobuf's JSON mapping: camelCase, ids in base64


def test_read_otlp_json(traced, tmp_path):
    spans, expected = traced
    request = _otlp_request(spans)
    assert "resourceSpans" in request
    (tmp_path / "spans.json").write_text(json.dumps(request, indent=2), encoding="utf-8")
    _check(read_traces(tmp_path / "spans.json"), expected)
    # the collector's file exporter: one request a line; and protobuf's field names kept (snake_case)
    lines = [json.dumps(_otlp_request([s])) for s in spans]
    (tmp_path / "spans.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _check(read_traces(tmp_path / "spans.jsonl"), expected)
    snake = json_format.MessageToDict(encode_spans(spans), preserving_proto_field_name=True)
    assert "resource_spans" in snake
    _check(records_from_spans([snake]), expected)


def _phoenix_rows(spans) -> list[dict]:
    """The SDK spans as rows of Phoenix's span table (get_spans_dataframe): context.* ids, parent_id, span_kind,
    times, attributes.* columns, with retrieval.documents and llm.*_messages as lists of dicts."""
    rows = []
    for s in spans:
        row = {"name": s.name, "context.trace_id": format(s.context.trace_id, "032x"),
               "context.span_id": format(s.context.span_id, "016x"),
               "parent_id": format(s.parent.span_id, "016x") if s.parent else None,
               "span_kind": s.attributes.get("openinference.span.kind"),
               "start_time": s.start_time / 1e9, "end_time": s.end_time / 1e9}
        lists: dict[str, dict[int, dict]] = {}
        for key, value in s.attributes.items():
            head = next((h for h in ("retrieval.documents", "llm.input_messages", "llm.output_messages")
                         if key.startswith(h + ".")), None)
            if head is None:
                row[f"attributes.{key}"] = value
            else:
                index, _, rest = key[len(head) + 1:].partition(".")
                lists.setdefault(head, {}).setdefault(int(index), {})[rest] = value
        for head, items in lists.items():
            row[f"attributes.{head}"] = [items[i] for i in sorted(items)]
        rows.append(row)
    return rows


def test_read_phoenix_parquet_and_jsonl(traced, tmp_path):
    pd = pytest.importorskip("pandas")
    spans, expected = traced
    df = pd.DataFrame(_phoenix_rows(spans))
    df["start_time"] = pd.to_datetime(df["start_time"], unit="s", utc=True)
    df["end_time"] = pd.to_datetime(df["end_time"], unit="s", utc=True)
    df.to_parquet(tmp_path / "spans.parquet")
    _check(read_traces(tmp_path / "spans.parquet"), expected)
    df.to_json(tmp_path / "spans.jsonl", orient="records", lines=True, date_format="iso")
    _check(read_traces(tmp_path / "spans.jsonl"), expected)


def test_trace_without_retrieval_is_an_error_row(traced, tmp_path):
    spans, expected = traced
    (tmp_path / "spans.json").write_text(json.dumps(_otlp_request(spans)), encoding="utf-8")
    rows = list(trace_rows(tmp_path / "spans.json"))
    assert [r.data["id"] for r in rows if r.data] == list(expected)
    errors = [r.error for r in rows if r.error is not None]
    assert len(errors) == 1 and errors[0].field == "context"


def test_audit_traces_clean_and_hallucinated(traced):
    spans, expected = traced
    results = audit_traces(spans, judge="local")
    assert [r.id for r in results] == list(expected)
    assert [r.hallucinated for r in results] == [False, True]
    assert results[1].label == Label.CONTRADICTED and results[1].claims[-1].label == Label.BASELESS


def test_cli_audit_from_openinference(traced, tmp_path):
    spans, expected = traced
    (tmp_path / "spans.json").write_text(json.dumps(_otlp_request(spans)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["audit", "--from", "openinference", str(tmp_path / "spans.json"), "-o", str(out),
                                    "--judge", "local", "-q"])
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert res.exit_code == 1, res.output  # the trace without retrieval is an error line
    assert [line.get("hallucinated") for line in lines] == [False, True, None]
    assert [line["id"] for line in lines[:2]] == list(expected)
    assert lines[2]["error"]["field"] == "context"


def test_cli_from_openinference_refuses_other_engines(tmp_path):
    res = CliRunner().invoke(main, ["audit", "--from", "openinference", "x.json", "--format", "jsonl"])
    assert res.exit_code == 2 and "--from openinference" in res.output


def test_unreadable_span_line_stops_the_read(tmp_path):
    (tmp_path / "spans.jsonl").write_text('{"context.trace_id": "ab"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_traces(tmp_path / "spans.jsonl")
