"""Guard a Haystack pipeline's replies, offline (pip install -e ".[haystack]";
python3 examples/integrations/haystack_guard.py).

An in-memory BM25 retriever over the paper example's context, a prompt builder, a generator component scripted to
reply with a clean answer and the paper's hallucinated one, and AuditGuard between the generator and the component
that receives the answers: only grounded replies go on.
"""

import json
from pathlib import Path

from haystack import Document, Pipeline, component
from haystack.components.builders import PromptBuilder
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

import rt4chart
from rt4chart.integrations.haystack import AuditGuard

paper = json.loads((Path(__file__).parents[1] / "paper_example.jsonl").read_text(encoding="utf-8"))
passages = [s.text for s in rt4chart.split_sentences(paper["context"])]
clean = "The free trial lasts 14 days from the date of activation."


@component
class ScriptedGenerator:
    """Stands in for a generator: replies the same answers to any prompt."""

    @component.output_types(replies=list[str])
    def run(self, prompt: str) -> dict:
        return {"replies": [clean, paper["answer"]]}


@component
class Answers:
    @component.output_types(answers=list[str])
    def run(self, replies: list[str]) -> dict:
        return {"answers": replies}


store = InMemoryDocumentStore()
store.write_documents([Document(content=p) for p in passages])
pipe = Pipeline()
pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=len(passages)))
pipe.add_component("prompt", PromptBuilder("{% for d in documents %}{{ d.content }}\n{% endfor %}Q: {{ query }}",
                                           required_variables=["documents", "query"]))
pipe.add_component("llm", ScriptedGenerator())
pipe.add_component("guard", AuditGuard())  # judge="local", the offline default
pipe.add_component("answers", Answers())
pipe.connect("retriever.documents", "prompt.documents")
pipe.connect("prompt.prompt", "llm.prompt")
pipe.connect("retriever.documents", "guard.documents")
pipe.connect("llm.replies", "guard.replies")
pipe.connect("guard.grounded_replies", "answers.replies")

q = paper["question"]
out = pipe.run({"retriever": {"query": q}, "prompt": {"query": q}, "guard": {"query": q}},
               include_outputs_from={"guard"})
for audit in out["guard"]["audits"]:
    print(f"{audit.label.value:<10} {audit.answer}")
print("answers that went on:", out["answers"]["answers"])
assert out["answers"]["answers"] == [clean] and out["guard"]["ungrounded_replies"] == [paper["answer"]]
