"""Evaluate a LlamaIndex query engine's responses, offline (pip install -e ".[llama-index]";
python3 examples/integrations/llama_index_eval.py).

A vector index of the paper example's context (MockEmbedding, in memory) and an LLM that answers what it is
scripted to (a CustomLLM: the clean answer, then the paper's hallucinated one); AuditEvaluator is a LlamaIndex
BaseEvaluator, here on each Response and its source nodes.
"""

import json
from pathlib import Path

from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.schema import TextNode

import rt4chart
from rt4chart.integrations.llama_index import AuditEvaluator

paper = json.loads((Path(__file__).parents[1] / "paper_example.jsonl").read_text(encoding="utf-8"))
passages = [s.text for s in rt4chart.split_sentences(paper["context"])]


class ScriptedLLM(CustomLLM):
    answer: str = ""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def complete(self, prompt, formatted=False, **kwargs):
        return CompletionResponse(text=self.answer)

    def stream_complete(self, prompt, formatted=False, **kwargs):
        yield CompletionResponse(text=self.answer, delta=self.answer)


# MockEmbedding gives every passage the same vector, and the vector store breaks ties by node id: ids in the
# context's order keep the retrieved passages (the audited context) in that order, run after run
index = VectorStoreIndex([TextNode(text=p, id_=f"passage-{i:03d}") for i, p in enumerate(passages)],
                         embed_model=MockEmbedding(embed_dim=8))
evaluator = AuditEvaluator()  # judge="local", the offline default
passing = []
for answer in ("The free trial lasts 14 days from the date of activation.", paper["answer"]):
    engine = index.as_query_engine(llm=ScriptedLLM(answer=answer), similarity_top_k=len(passages))
    result = evaluator.evaluate_response(query=paper["question"], response=engine.query(paper["question"]))
    print(f"passing={result.passing} score={result.score:.2f}\n{result.feedback}")
    passing.append(result.passing)
print("the full audit:", type(result.metadata["audit"]).__name__, result.metadata["audit"].label.value)
assert passing == [True, False]
