"""A judge may narrow a hallucinated claim to its unsupported words (Judgment.spans, offsets into the claim text)."""

import asyncio

from rt4chart import Label
from rt4chart.audit.auditor import Auditor
from rt4chart.types import Judgment, Span


class NarrowingJudge:
    name = "narrowing"

    def __init__(self, spans):
        self.spans = spans

    async def judge(self, claims, evidence, *, question, stage, local_labels=None, hints=None):
        out = []
        for c in claims:
            if "Mars" in c.text:
                at = c.text.index("Mars")
                out.append(Judgment(label=Label.BASELESS, spans=self.spans or (Span(start=at, end=at + 4),)))
            else:
                out.append(Judgment(label=Label.ENTAILED, evidence=("The cat sleeps.",)))
        return out


def _audit(judge):
    return asyncio.run(Auditor(judge=judge).audit(
        {"id": "r", "context": "The cat sleeps. It is black.", "answer": "The cat sleeps. It lives on Mars."}))


def test_judge_spans_become_answer_spans_of_the_claim():
    result = _audit(NarrowingJudge(None))
    bad = [c for c in result.claims if c.label.hallucinated]
    assert len(bad) == 1
    assert [(s.start, s.end) for s in bad[0].flagged_spans] == [(28, 32)]
    assert result.answer[28:32] == "Mars"
    assert [(s.start, s.end) for s in result.spans] == [(28, 32)]
    assert all(not c.flagged_spans for c in result.claims if not c.label.hallucinated)


def test_spans_outside_the_claim_are_ignored_and_the_whole_claim_is_reported():
    result = _audit(NarrowingJudge((Span(start=0, end=500),)))
    bad = [c for c in result.claims if c.label.hallucinated][0]
    assert bad.flagged_spans == ()
    assert [(s.start, s.end) for s in result.spans] == [(bad.answer_spans[0].start, bad.answer_spans[0].end)]


def test_answer_spans_merge_across_a_joinable_gap_only():
    from rt4chart.audit.auditor import merge_spans
    from rt4chart.eval.metrics import merge_spans as metric_spans

    text = "Alice won and Bob lost. Carol left."
    alice, bob, carol = Span(start=0, end=9), Span(start=14, end=22), Span(start=24, end=34)
    assert merge_spans([carol, bob, alice], text) == (Span(start=0, end=22), carol)  # " and " joins, ". " does not
    assert merge_spans([carol, bob, alice]) == (alice, bob, carol)  # without the text: overlaps and touches only
    # the metrics' union is the same one over (start, end) pairs
    assert metric_spans([bob, alice, carol]) == [(s.start, s.end) for s in merge_spans([carol, bob, alice])]
