"""The judge fingerprint: what decides an auditor's verdicts, written into every result it makes (issue 28)."""

import asyncio

import pytest

from rt4chart import Auditor
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.registry import build_auditor

LLM = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "cache": False}
RECORD = {"id": 1, "context": "Paris is in France.", "answer": "Paris is in France.", "task": "qa"}


def _fp(judge="lexical", **options) -> str:
    return build_auditor(judge, **options).fingerprint


def test_the_same_options_give_the_same_fingerprint_and_transport_options_do_not_count():
    assert _fp() == _fp() == _fp(concurrency=2)
    assert _fp("llm", **LLM) == _fp("llm", api_key="sk-a", rpm=30, timeout=5.0, price_in=1.0, concurrency=2, **LLM)


@pytest.mark.parametrize("judge, options", [
    ("lexical", {"window": 20}), ("lexical", {"overlap": 5}), ("lexical", {"global_verification": False}),
    ("lexical", {"prefilter": True}), ("lexical", {"decomposition": "rule", "support": 0.9}),
    ("local", {}), ("llm", LLM),
])
def test_whatever_decides_a_verdict_changes_it(judge, options):
    assert _fp(judge, **options) != _fp()


def test_llm_model_granularity_and_local_options_change_it():
    assert _fp("llm", **LLM) != _fp("llm", **{**LLM, "model": "other"})
    assert _fp("llm", **LLM) != _fp("llm", granularity="batched", **LLM)
    assert _fp("llm", **LLM) != _fp("llm", prompt_version="llm@v3", **LLM)  # the judge's prompts (issue 35)
    local = _fp("local")
    assert local == _fp("auto")  # auto resolves to the local judge here: the same verdicts
    assert local != _fp("local", no_tagger=True) and local != _fp("local", threshold=0.4)


def test_the_local_judge_version_names_its_models():
    with_tagger, trees = build_auditor("local").judge, build_auditor("local", no_tagger=True).judge
    assert trees.version.startswith("local_judge@") and "+tagger@" not in trees.version
    assert with_tagger.version.startswith(trees.version + "+tagger@")


def test_results_carry_the_fingerprint_and_a_hand_built_auditor_writes_none():
    auditor = build_auditor("lexical")
    result = asyncio.run(auditor.audit(RECORD))
    assert result.config["judge_fingerprint"] == auditor.fingerprint and result.config["task"] == "qa"
    empty = asyncio.run(auditor.audit({**RECORD, "answer": "..."}))  # no claim: the other result branch
    assert empty.config["judge_fingerprint"] == auditor.fingerprint
    assert "judge_fingerprint" not in asyncio.run(Auditor(judge=LexicalJudge()).audit(RECORD)).config
