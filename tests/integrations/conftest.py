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

#: the three answers of the MLflow round trip (tests/integrations/test_mlflow*.py, scripts/mlflow_picture.py), from
#: examples/records.jsonl with the context as passages: the Eiffel Tower answer with its second sentence taken from
#: the context (the default judge finds both claims entailed), the revenue and the flash photography answers (one claim
#: contradicted each); ``hallucinated`` is what the audit should say
MLFLOW_RECORDS = [json.loads(line) for line in (ROOT / "examples" / "integrations" / "mlflow_records.jsonl")
                  .read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="session")
def mlflow_records() -> list[dict]:
    return [dict(r) for r in MLFLOW_RECORDS]
