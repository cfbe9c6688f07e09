"""The RAGAS metric through RAGAS itself: ``evaluate`` on an ``EvaluationDataset`` (no LLM, no embeddings), and
``score``/``ascore`` with the reason. Runs where the ``[ragas]`` extra is installed (scripts/check_frameworks.sh
makes that environment); skipped elsewhere."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
pytest.importorskip("ragas")

from ragas import EvaluationDataset, evaluate  # noqa: E402

from rt4chart import ConfigError, InputError, Label  # noqa: E402
from rt4chart.integrations.ragas import Faithfulness  # noqa: E402

pytestmark = [
    # ragas 0.4 deprecates evaluate() in favour of its experiments; it is still what its users run
    pytest.mark.filterwarnings("ignore:a?evaluate\\(\\) is deprecated:DeprecationWarning"),
    # ragas reads its user id file without closing it (also with RAGAS_DO_NOT_TRACK)
    pytest.mark.filterwarnings("ignore:Exception ignored in.*ragas.uuid:pytest.PytestUnraisableExceptionWarning"),
]


def _sample(paper, answer):
    return {"user_input": paper["question"], "retrieved_contexts": [paper["context"]], "response": answer}


def test_evaluate_scores_each_sample_with_the_local_judge(paper, clean_answer):
    metric = Faithfulness()
    dataset = EvaluationDataset.from_list([_sample(paper, paper["answer"]), _sample(paper, clean_answer)])
    frame = evaluate(dataset, metrics=[metric], show_progress=False).to_pandas()
    assert list(frame["rt4chart_faithfulness"]) == pytest.approx([0.6, 1.0])
    assert sorted(a.label for a in metric.audits) == sorted([Label.BASELESS, Label.ENTAILED])


async def test_ascore_gives_the_reason_and_the_verdict(paper):
    result = await Faithfulness().ascore(**_sample(paper, paper["answer"]))
    assert result.value == pytest.approx(0.6)
    assert "claim 5 [baseless]" in result.reason and "claim 1 " not in result.reason
    assert result.traces["output"]["passed"] is False
    assert Faithfulness(threshold=0.5).score(**_sample(paper, paper["answer"])).traces["output"]["passed"] is True


def test_an_answer_no_judge_confirmed_does_not_pass(paper):
    result = Faithfulness(threshold=0.0).score(**_sample(paper, "Yes."))
    assert result.value < 1.0 and result.traces["output"]["passed"] is False
    assert result.traces["output"]["audit"].hallucinated is None and "needs review" in result.reason
    assert Faithfulness(threshold=0.0, allow_unverified=True).score(**_sample(paper, "Yes.")).traces["output"][
        "passed"] is True


def test_bad_arguments_are_refused(paper):
    with pytest.raises(ConfigError, match="threshold"):
        Faithfulness(threshold=-0.1)
    with pytest.raises(InputError, match="retrieved_contexts"):
        Faithfulness(judge="lexical").score(response="x", retrieved_contexts=[])
