"""The Haystack component in a real Haystack 2 pipeline: an in-memory document store with its BM25 retriever, a
prompt builder, and a generator component that replies what it is scripted to (no model), then the guard."""

from __future__ import annotations

import pytest

haystack = pytest.importorskip("haystack")

from haystack import Document, Pipeline, component  # noqa: E402
from haystack.components.builders import PromptBuilder  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

from rt4chart import AuditResult, Label  # noqa: E402
from rt4chart.integrations.haystack import AuditGuard  # noqa: E402

# Haystack 2 runs async pipelines with AsyncPipeline; Haystack 3 has Pipeline.run_async
AsyncPipeline = getattr(haystack, "AsyncPipeline", Pipeline)
TEMPLATE = "Answer from the documents.\n{% for d in documents %}{{ d.content }}\n{% endfor %}Question: {{ query }}"


@component
class ScriptedGenerator:
    """A generator that replies ``replies`` to any prompt."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict:
        return {"replies": list(self.replies)}


def rag_pipeline(passages: list[str], replies: list[str], cls=Pipeline):
    store = InMemoryDocumentStore()
    store.write_documents([Document(content=p) for p in passages])
    pipe = cls()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=len(passages)))
    pipe.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["documents", "query"]))
    pipe.add_component("llm", ScriptedGenerator(replies))
    pipe.add_component("guard", AuditGuard(judge="local"))
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("prompt.prompt", "llm.prompt")
    pipe.connect("retriever.documents", "guard.documents")
    pipe.connect("llm.replies", "guard.replies")
    return pipe


def _inputs(question: str) -> dict:
    return {"retriever": {"query": question}, "prompt": {"query": question}, "guard": {"query": question}}


def test_guard_in_a_pipeline_splits_grounded_and_hallucinated_replies(paper, passages, clean_answer):
    out = rag_pipeline(passages, [clean_answer, paper["answer"]]).run(_inputs(paper["question"]))["guard"]
    assert out["grounded_replies"] == [clean_answer]
    assert out["ungrounded_replies"] == [paper["answer"]]
    audits = out["audits"]
    assert all(isinstance(a, AuditResult) for a in audits) and [a.hallucinated for a in audits] == [False, True]
    assert audits[1].label == Label.CONTRADICTED and audits[1].claims[-1].label == Label.BASELESS
    assert sorted(audits[0].context.split("\n\n")) == sorted(passages)
    assert audits[0].question == paper["question"]


def test_guard_output_feeds_the_next_component(paper, passages, clean_answer):
    @component
    class Sink:
        @component.output_types(answers=list[str])
        def run(self, replies: list[str]) -> dict:
            return {"answers": replies}

    pipe = rag_pipeline(passages, [paper["answer"], clean_answer])
    pipe.add_component("sink", Sink())
    pipe.connect("guard.grounded_replies", "sink.replies")
    assert pipe.run(_inputs(paper["question"]))["sink"]["answers"] == [clean_answer]


async def test_guard_in_an_async_pipeline(paper, passages, clean_answer):
    out = await rag_pipeline(passages, [paper["answer"]], AsyncPipeline).run_async(_inputs(paper["question"]))
    assert out["guard"]["grounded_replies"] == [] and out["guard"]["audits"][0].hallucinated


def test_guard_takes_chat_messages_and_keeps_them(paper, passages, clean_answer):
    docs = [Document(content=p) for p in passages]
    replies = [ChatMessage.from_assistant(clean_answer), ChatMessage.from_assistant(paper["answer"])]
    guard = AuditGuard(judge="local", chat=True)
    assert guard.__haystack_output__.grounded_replies.type == list[ChatMessage]
    out = guard.run(replies=replies, documents=docs)
    assert out["grounded_replies"] == replies[:1] and out["ungrounded_replies"] == replies[1:]


def test_guard_serialises_by_judge_name():
    data = AuditGuard(judge="lexical", chat=True).to_dict()
    again = AuditGuard.from_dict(data)
    assert data["init_parameters"] == {"judge": "lexical", "chat": True} and again.judge == "lexical" and again.chat
    from rt4chart import ConfigError, LexicalJudge

    with pytest.raises(ConfigError, match="by name"):
        AuditGuard(judge=LexicalJudge()).to_dict()
