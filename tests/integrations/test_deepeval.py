"""The DeepEval metric through DeepEval itself: ``measure``/``a_measure`` on ``LLMTestCase``s, and the copies that
``evaluate`` makes of a metric by its constructor arguments. Runs where the ``[deepeval]`` extra is installed
(scripts/check_frameworks.sh makes that environment); skipped elsewhere."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
pytest.importorskip("deepeval")

from deepeval.metrics.utils import copy_metrics  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402

from rt4chart import AuditResult, ConfigError, InputError, Label  # noqa: E402
from rt4chart.integrations.deepeval import Faithfulness  # noqa: E402


def _case(paper, answer, **kw):
    return LLMTestCase(input=paper["question"], actual_output=answer, **kw)


def test_the_paper_example_fails_and_the_reason_names_the_flagged_claims(paper):
    metric = Faithfulness()
    assert metric.measure(_case(paper, paper["answer"], retrieval_context=[paper["context"]])) == pytest.approx(0.6)
    assert metric.is_successful() is False and metric.success is False
    assert isinstance(metric.audit, AuditResult) and metric.audit.label == Label.BASELESS
    assert "claim 5 [baseless]" in metric.reason and "priority email support" in metric.reason
    assert "claim 1 " not in metric.reason  # an entailed claim is not flagged


async def test_a_clean_answer_passes_with_a_measure_and_context_instead_of_retrieval_context(paper, clean_answer):
    metric = Faithfulness(judge="local")
    assert await metric.a_measure(_case(paper, clean_answer, context=[paper["context"]])) == 1.0
    assert metric.is_successful() is True and metric.audit.hallucinated is False


def test_an_answer_no_judge_confirmed_does_not_pass_whatever_the_threshold(paper):
    case = _case(paper, "Yes.", retrieval_context=[paper["context"]])
    metric = Faithfulness(threshold=0.0)
    metric.measure(case)
    assert metric.audit.hallucinated is None and metric.is_successful() is False
    assert "needs review" in metric.reason
    lenient = Faithfulness(threshold=0.0, allow_unverified=True)
    lenient.measure(case)
    assert lenient.is_successful() is True


def test_a_threshold_below_one_lets_a_partly_grounded_answer_pass(paper):
    metric = Faithfulness(threshold=0.5)
    metric.measure(_case(paper, paper["answer"], retrieval_context=[paper["context"]]))
    assert metric.is_successful() is True
    assert Faithfulness(threshold=0.5, strict_mode=True).threshold == 1.0
    with pytest.raises(ConfigError, match="threshold"):
        Faithfulness(threshold=1.5)


def test_deepeval_copies_keep_the_arguments():
    metric = Faithfulness(threshold=0.7, judge="lexical", options={"window": 20}, allow_unverified=True,
                          async_mode=False)
    (copy,) = copy_metrics([metric])
    assert (copy.threshold, copy.judge, copy.options, copy.allow_unverified, copy.async_mode) == \
        (0.7, "lexical", {"window": 20}, True, False)


def test_a_test_case_without_context_is_refused(paper):
    with pytest.raises(InputError, match="context"):
        Faithfulness(judge="lexical").measure(_case(paper, paper["answer"]))
