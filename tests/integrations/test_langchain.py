"""The LangChain integration on real LangChain objects: an in-memory vector store with deterministic fake
embeddings, a fake chat model that answers what it is scripted to, and the audit as a Runnable after the chain or
as a callback handler attached to it."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from rt4chart import AuditResult, Label  # noqa: E402
from rt4chart.errors import HallucinationError  # noqa: E402
from rt4chart.integrations.langchain import (  # noqa: E402
    AsyncAuditCallbackHandler,
    AuditCallbackHandler,
    AuditRunnable,
)

PROMPT = ChatPromptTemplate.from_template("Answer from the context.\n{context}\nQuestion: {question}")


def _retriever(passages: list[str]):
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=p) for p in passages])
    return store.as_retriever(search_kwargs={"k": len(passages)})


def _join(docs: list[Document]) -> str:
    return "\n\n".join(d.page_content for d in docs)


def retrieval_chain(passages: list[str], answer: str):
    """What create_retrieval_chain builds: ``{"question", "context": [Document], "answer"}``."""
    llm = FakeListChatModel(responses=[answer])
    generate = RunnableLambda(lambda x: {"context": _join(x["context"]), "question": x["question"]}) \
        | PROMPT | llm | StrOutputParser()
    return RunnableParallel(context=_retriever(passages), question=RunnablePassthrough()).assign(answer=generate)


def string_chain(passages: list[str], answer: str):
    """A RAG chain whose output is the answer string."""
    llm = FakeListChatModel(responses=[answer])
    return {"context": _retriever(passages) | _join, "question": RunnablePassthrough()} | PROMPT | llm \
        | StrOutputParser()


def test_runnable_after_a_retrieval_chain(paper, passages, clean_answer):
    for answer, hallucinated in ((clean_answer, False), (paper["answer"], True)):
        out = (retrieval_chain(passages, answer) | AuditRunnable(judge="local")).invoke(paper["question"])
        audit = out["audit"]
        assert isinstance(audit, AuditResult)
        assert out["answer"] == answer and audit.answer == answer
        assert audit.hallucinated is hallucinated
        assert audit.label == (Label.CONTRADICTED if hallucinated else Label.ENTAILED)
        # the context is the retrieved documents, joined
        assert sorted(audit.context.split("\n\n")) == sorted(passages)
    assert [c.label for c in audit.claims][-1] == Label.BASELESS  # "The trial includes priority email support."


async def test_runnable_ainvoke_with_strings_and_another_key(paper):
    audit = AuditRunnable(judge="local", key="rt4chart")
    out = await audit.ainvoke({"input": paper["question"], "documents": [paper["context"]],
                               "answer": paper["answer"]})
    assert out["rt4chart"].hallucinated and out["input"] == paper["question"]


def test_runnable_rejects_an_input_without_answer(passages):
    from rt4chart import InputError

    with pytest.raises(InputError, match="answer"):
        AuditRunnable(judge="lexical").invoke({"question": "q", "context": passages})


def test_callback_handler_audits_each_run(paper, passages, clean_answer):
    handler = AuditCallbackHandler(judge="local")
    for answer in (clean_answer, paper["answer"]):
        assert string_chain(passages, answer).invoke(paper["question"], config={"callbacks": [handler]}) == answer
    assert [r.hallucinated for r in handler.results] == [False, True]
    assert [r.answer for r in handler.results] == [clean_answer, paper["answer"]]
    assert all(r.question == paper["question"] for r in handler.results)
    assert sorted(handler.last.context.split("\n\n")) == sorted(passages)
    assert list(handler.by_run.values()) == handler.results and handler.errors == []


def test_callback_handler_raises_on_a_hallucinated_answer(paper, passages, clean_answer):
    handler = AuditCallbackHandler(judge="local", raise_on_hallucination=True)
    string_chain(passages, clean_answer).invoke(paper["question"], config={"callbacks": [handler]})
    with pytest.raises(HallucinationError, match="baseless") as err:
        string_chain(passages, paper["answer"]).invoke(paper["question"], config={"callbacks": [handler]})
    assert err.value.result.hallucinated and "priority email support" in str(err.value)


async def test_async_callback_handler_raises_on_a_hallucinated_answer(paper, passages):
    handler = AsyncAuditCallbackHandler(judge="local", raise_on_hallucination=True)
    with pytest.raises(HallucinationError, match="baseless"):
        await string_chain(passages, paper["answer"]).ainvoke(paper["question"], config={"callbacks": [handler]})
    assert handler.last.hallucinated


@pytest.mark.parametrize("handler_type", [AsyncAuditCallbackHandler, AuditCallbackHandler])
async def test_callback_handlers_on_async_runs(handler_type, paper, passages, clean_answer):
    handler = handler_type(judge="local")
    for answer in (clean_answer, paper["answer"]):
        await string_chain(passages, answer).ainvoke(paper["question"], config={"callbacks": [handler]})
    assert [r.hallucinated for r in handler.results] == [False, True]


def test_callback_handler_without_a_retriever_reads_the_context_of_the_run_input(paper):
    handler = AuditCallbackHandler(judge="local")
    chain = PROMPT | FakeListChatModel(responses=[paper["answer"]])
    chain.invoke({"context": paper["context"], "question": paper["question"]}, config={"callbacks": [handler]})
    assert handler.last.context == paper["context"] and handler.last.answer == paper["answer"]
    assert handler.last.question == paper["question"] and handler.last.hallucinated


def test_callback_handler_reports_a_run_with_no_context():
    handler = AuditCallbackHandler(judge="lexical")
    (RunnablePassthrough() | FakeListChatModel(responses=["x"])).invoke("hello", config={"callbacks": [handler]})
    assert handler.results == [] and handler.errors[0].field == "context"


def test_first_hour_callback_handler_raises_on_an_answer_nobody_checked(passages):
    """Issue 42, item 2: ``raise_on_hallucination`` does not let an unverified answer (``hallucinated`` None) pass
    as clean; ``allow_unverified=True`` does."""
    handler = AuditCallbackHandler(judge="local", raise_on_hallucination=True)
    with pytest.raises(HallucinationError, match="needs review") as err:
        string_chain(passages, "Okay.").invoke("Is there a trial?", config={"callbacks": [handler]})
    assert err.value.result.hallucinated is None and err.value.result.label == Label.UNVERIFIED
    lenient = AuditCallbackHandler(judge="local", raise_on_hallucination=True, allow_unverified=True)
    assert string_chain(passages, "Okay.").invoke("Is there a trial?", config={"callbacks": [lenient]}) == "Okay."
    assert lenient.last.hallucinated is None
