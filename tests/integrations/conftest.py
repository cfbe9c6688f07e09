"""The two records every integration is tried on: the paper's running example (examples/paper_example.jsonl; the
local judge finds its fifth claim baseless, so the answer is hallucinated) and a clean answer copied from the same
context. ``passages`` are the context's sentences, which the frameworks' in-memory stores hold as documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rt4chart

ROOT = Path(__file__).resolve().parents[2]
PAPER = json.loads((ROOT / "examples" / "paper_example.jsonl").read_text(encoding="utf-8").splitlines()[0])
CLEAN_ANSWER = "The free trial lasts 14 days from the date of activation."


@pytest.fixture(scope="session")
def paper() -> dict:
    return dict(PAPER)


@pytest.fixture(scope="session")
def passages() -> list[str]:
    return [s.text for s in rt4chart.split_sentences(PAPER["context"])]


@pytest.fixture(scope="session")
def clean_answer() -> str:
    return CLEAN_ANSWER


#: the three answers of the MLflow round trip (tests/integrations/test_mlflow*.py), from examples/records.jsonl with
#: the context as passages: the Eiffel Tower answer with its second sentence from the context (the default judge
#: finds both claims entailed), the revenue and the flash photography answers (one claim contradicted each)
MLFLOW_RECORDS = [
    {"id": "faithful-eiffel", "question": "When was the Eiffel Tower completed?",
     "context": ["The Eiffel Tower was completed in 1889 for the Exposition Universelle in Paris.",
                 "It is 330 metres tall and was the tallest man-made structure in the world until 1930, when the "
                 "Chrysler Building in New York surpassed it."],
     "answer": "The Eiffel Tower was completed in 1889 for the Exposition Universelle in Paris. It is 330 metres tall.",
     "hallucinated": False},
    {"id": "contradicted-revenue", "question": "How much revenue did Acme report for 2023?",
     "context": ["Acme Corp reported revenue of $4.2 billion for fiscal 2023, up 8% from the previous year.",
                 "The company employs about 12,000 people across 14 countries."],
     "answer": "Acme Corp reported revenue of $5.1 billion for fiscal 2023, up 8% from the previous year. It employs "
               "about 12,000 people.",
     "hallucinated": True},
    {"id": "contradicted-flash", "question": "Can I use flash photography in the museum?",
     "context": ["The museum is open from Tuesday to Sunday, 10:00 to 18:00.",
                 "Admission is free for children under 12.",
                 "Photography with flash is not permitted inside the galleries."],
     "answer": "Photography with flash is permitted inside the galleries. Admission is free for children under 12.",
     "hallucinated": True},
]


@pytest.fixture(scope="session")
def mlflow_records() -> list[dict]:
    return [dict(r) for r in MLFLOW_RECORDS]
