"""Log RAG records as MLflow traces with MLflow's own tracing SDK (``pip install 'rt4chart[mlflow]'``)::

    MLFLOW_TRACKING_URI=http://127.0.0.1:5000 python3 scripts/mlflow_traces.py RECORDS.jsonl EXPERIMENT

Each record (``id``, ``question``, ``context`` a list of passages, ``answer``; questions all different; e.g.
examples/integrations/mlflow_records.jsonl) becomes one trace of a function ``rag`` traced with ``@mlflow.trace``:
a RETRIEVER span returning the passages as ``mlflow.entities.Document``s and a CHAT_MODEL span returning the answer
as a chat completion; the root span's input is the question and its output the answer. Prints the trace id of each
record as one JSON object (trace id -> record id). tests/integrations/test_mlflow_live.py and
scripts/mlflow_picture.py log their traces with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(records_path: str, experiment: str) -> int:
    import mlflow
    from mlflow.entities import Document, SpanType

    records = [json.loads(line) for line in Path(records_path).read_text(encoding="utf-8").splitlines() if line]
    mlflow.set_experiment(experiment)

    by_question = {record["question"]: record for record in records}

    @mlflow.trace(name="rag")
    def rag(question: str) -> str:
        record = by_question[question]  # the "retriever" and the "model" replay the record
        with mlflow.start_span(name="retrieve", span_type=SpanType.RETRIEVER) as span:
            span.set_inputs({"query": question})
            span.set_outputs([Document(page_content=p, metadata={"doc_uri": f"{record['id']}#{i}"})
                              for i, p in enumerate(record["context"])])
        with mlflow.start_span(name="generate", span_type=SpanType.CHAT_MODEL) as span:
            span.set_inputs({"messages": [{"role": "user", "content": question}]})
            span.set_outputs({"choices": [{"message": {"role": "assistant", "content": record["answer"]}}]})
        return record["answer"]

    ids = {}
    for record in records:
        rag(record["question"])
        ids[mlflow.get_last_active_trace_id()] = record["id"]
    mlflow.flush_trace_async_logging()
    print(json.dumps(ids))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
