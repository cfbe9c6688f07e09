"""The LlamaIndex evaluator on a real query engine: a vector index of the context's sentences (LlamaIndex's
MockEmbedding, in memory), a retriever query engine, and an LLM made with LlamaIndex's CustomLLM that answers what
it is scripted to."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import VectorStoreIndex  # noqa: E402
from llama_index.core.base.response.schema import Response  # noqa: E402
from llama_index.core.embeddings import MockEmbedding  # noqa: E402
from llama_index.core.evaluation import BaseEvaluator, EvaluationResult  # noqa: E402
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata  # noqa: E402
from llama_index.core.schema import TextNode  # noqa: E402

from rt4chart import AuditResult, InputError, Label  # noqa: E402
from rt4chart.integrations.llama_index import AuditEvaluator  # noqa: E402


class ScriptedLLM(CustomLLM):
    """Answers every prompt with ``answer``."""

    answer: str = ""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
        return CompletionResponse(text=self.answer)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
        yield CompletionResponse(text=self.answer, delta=self.answer)


def query_engine(passages: list[str], answer: str):
    index = VectorStoreIndex([TextNode(text=p) for p in passages], embed_model=MockEmbedding(embed_dim=8))
    return index.as_query_engine(llm=ScriptedLLM(answer=answer), similarity_top_k=len(passages))


@pytest.fixture(scope="module")
def evaluator() -> AuditEvaluator:
    return AuditEvaluator(judge="local")


def test_is_a_llama_index_evaluator(evaluator):
    assert isinstance(evaluator, BaseEvaluator) and evaluator.get_prompts() == {}


def test_evaluate_response_of_a_query_engine(evaluator, paper, passages, clean_answer):
    for answer, passing in ((clean_answer, True), (paper["answer"], False)):
        response = query_engine(passages, answer).query(paper["question"])
        assert isinstance(response, Response) and str(response) == answer
        assert sorted(n.get_content() for n in response.source_nodes) == sorted(passages)
        result = evaluator.evaluate_response(query=paper["question"], response=response)
        assert isinstance(result, EvaluationResult)
        assert result.passing is passing and result.response == answer
        audit = result.metadata["audit"]
        assert isinstance(audit, AuditResult) and audit.hallucinated is not passing
        assert result.score == sum(c.label == Label.ENTAILED for c in audit.claims) / len(audit.claims)
        assert result.feedback.startswith(audit.label.value)
    assert 0 < result.score < 1  # the paper's answer: some claims entailed, the fifth baseless
    assert "baseless" in result.feedback and "priority email support" in result.feedback


async def test_aevaluate_with_contexts(evaluator, paper):
    result = await evaluator.aevaluate(query=paper["question"], response=paper["answer"],
                                       contexts=[paper["context"]])
    assert result.passing is False and result.metadata["audit"].label == Label.CONTRADICTED


def test_evaluate_needs_contexts(evaluator):
    with pytest.raises(InputError):
        evaluator.evaluate(query="q", response="an answer")
