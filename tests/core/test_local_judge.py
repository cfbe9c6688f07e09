"""The trained offline judge: evidence selection (always) and the shipped ONNX model (when installed)."""

import asyncio
import json
from pathlib import Path

import pytest

import rt4chart
from rt4chart import Claim, Label, Span, check_relation
from rt4chart.judges import local
from rt4chart.judges.registry import make_judge

EXAMPLES = Path(__file__).parents[2] / "examples" / "records.jsonl"
needs_model = pytest.mark.skipif(not local.is_available(), reason="local judge model or onnxruntime not installed")


def test_select_evidence_ranks_by_shared_content_words_within_budget():
    ctx = "Cats sleep a lot. The free trial lasts 14 days. Dogs bark. The trial can be extended once."
    sel = local.select_evidence("The free trial lasts 30 days.", ctx)
    assert sel[0] == "The free trial lasts 14 days."
    assert "Dogs bark." not in sel
    long_ctx = " ".join(f"The trial fact {i} is here." for i in range(200))
    sel = local.select_evidence("trial fact", long_ctx, budget=100)
    assert sum(len(s) + 1 for s in sel) <= 100 + 1 and len(sel) <= local.MAX_SENTENCES
    assert local.select_evidence("anything", "") == []
    # nothing shares a word: the model still gets the first sentence to read
    assert local.select_evidence("Zebras", "Cats sleep. Dogs bark.") == ["Cats sleep."]


@needs_model
def test_probabilities_are_distributions_and_cached():
    judge = local.LocalJudge()
    pairs = [("The trial lasts 14 days.", "The free trial lasts 14 days."),
             ("The trial includes phone support.", "The free trial lasts 14 days.")]
    p = judge.probabilities(pairs)
    assert p.shape == (2, 3)
    assert abs(p.sum(axis=1) - 1).max() < 1e-5
    assert (judge.probabilities(pairs) == p).all()


@needs_model
def test_judge_output_contract_on_examples():
    judge, _ = make_judge("local")
    for line in EXAMPLES.read_text().splitlines():
        rec = json.loads(line)
        result = rt4chart.audit(rec["context"], rec["answer"], rec.get("question"), judge=judge)
        check_relation(result)
        for c in result.claims:
            assert c.label in (Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.UNVERIFIED)
            assert c.score is None or 0.0 <= c.score <= 1.0
            if c.label == Label.BASELESS:
                assert c.evidence == ()


@needs_model
def test_threshold_moves_decisions():
    claims = [Claim(index=0, text="The trial includes priority email support.", sentence_index=0,
                    answer_spans=(Span(start=0, end=10),))]
    ctx = "The free trial lasts 14 days. Eligible users may request one extension."
    strict = asyncio.run(local.LocalJudge(threshold=0.01).judge(claims, ctx, question=None, stage="global"))
    lenient = asyncio.run(local.LocalJudge(threshold=0.99).judge(claims, ctx, question=None, stage="global"))
    assert strict[0].label.hallucinated
    assert lenient[0].label == Label.ENTAILED and lenient[0].evidence
    with pytest.raises(ValueError):
        local.LocalJudge(threshold=1.5)


@needs_model
def test_auto_picks_the_local_judge_offline(monkeypatch):
    monkeypatch.delenv("RT4CHART_BASE_URL", raising=False)
    judge, _ = make_judge("auto")
    assert judge.name == "local"
