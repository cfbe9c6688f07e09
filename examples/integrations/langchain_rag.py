"""Audit a LangChain RAG chain's answers, offline (pip install -e ".[langchain]";
python3 examples/integrations/langchain_rag.py).

The chain retrieves from an in-memory vector store and answers with a fake chat model scripted with the paper's
hallucinated answer (examples/paper_example.jsonl) and a clean one; AuditRunnable audits the chain's output, and
AuditCallbackHandler audits any chain it is attached to, here one that returns only the answer string.
"""

import json
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

import rt4chart
from rt4chart.integrations.langchain import AuditCallbackHandler, AuditRunnable
from rt4chart.testing import claim_table

paper = json.loads((Path(__file__).parents[1] / "paper_example.jsonl").read_text(encoding="utf-8"))
passages = [s.text for s in rt4chart.split_sentences(paper["context"])]
clean = "The free trial lasts 14 days from the date of activation."

store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
store.add_documents([Document(page_content=p) for p in passages])
retriever = store.as_retriever(search_kwargs={"k": len(passages)})
prompt = ChatPromptTemplate.from_template("Answer from the context.\n{context}\nQuestion: {question}")
llm = FakeListChatModel(responses=[clean, paper["answer"]] * 2)


def join(docs):
    return "\n\n".join(d.page_content for d in docs)


# 1. a retrieval chain's output ({"question", "context": [Document], "answer"}) | AuditRunnable()
generate = RunnableLambda(lambda x: {"context": join(x["context"]), "question": x["question"]}) | prompt | llm \
    | StrOutputParser()
rag = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=generate)
audited = rag | AuditRunnable()  # judge="local", the offline default
for _ in range(2):
    audit = audited.invoke(paper["question"])["audit"]
    print(f"AuditRunnable: {audit.label.value}, hallucinated={audit.hallucinated}")
    print(claim_table(audit))

# 2. a callback handler on a chain that returns only the answer
handler = AuditCallbackHandler()
chain = {"context": retriever | join, "question": RunnablePassthrough()} | prompt | llm | StrOutputParser()
for _ in range(2):
    chain.invoke(paper["question"], config={"callbacks": [handler]})
print("AuditCallbackHandler:", [(r.label.value, r.hallucinated) for r in handler.results])
assert [r.hallucinated for r in handler.results] == [False, True]
