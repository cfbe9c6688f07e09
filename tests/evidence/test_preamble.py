"""A preamble (courtesy, or a line introducing what follows) is no claim: ``is_preamble`` and the rule decomposer."""

import pytest

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.evidence import is_preamble, is_remark, read_claim

PREAMBLES = [
    "Sure!",
    "I hope this helps!",
    "Let me know if you have any further questions.",
    "Sure, I can help you with that!",
    "Here is a concise summary of the passage:",
    "Here is a summary of the article in 200 words or less:",
    "Here's my answer based on the given passages:",
    "Based on the given passages, here is the answer to the question:",
    "Based on the provided structured data in JSON format, here is an objective overview of the business:",
    "Passage 2:",
    "Therefore, the answer to the question is:",
    "1.",
    "b)",
    "(Passage 3)",
    "(Reference passage 2)",
    "(Passages 1 and 3)",
]
CLAIMS = [
    "The free trial lasts 14 days.",
    "Sure, the trial lasts 14 days.",
    "The museum has three wings:",
    "To make whipped cream from milk, follow these steps:",
    "Unable to answer based on given passages.",
    "Here the river turns north.",
    "1990.",
    "Paris.",
    "(Passage 3) The museum opened in 1901.",
]


@pytest.mark.parametrize("text", PREAMBLES)
def test_preambles(text):
    assert is_preamble(text)
    # no preamble is ever a checkable claim (a meta sentence, a remark, or no word keys): dropping one removes no
    # entailed, contradicted or baseless verdict
    reading = read_claim(text)
    assert reading.meta or is_remark(text) or not reading.keys


@pytest.mark.parametrize("text", CLAIMS)
def test_not_preambles(text):
    assert not is_preamble(text)


def test_decomposer_drops_preambles_and_keeps_offsets():
    answer = ("Here is a concise summary of the passage:\nThe museum opened in 1901. It has three wings.\n"
              "I hope this helps!")
    claims = RuleDecomposer().decompose_sync(answer)
    assert [c.text for c in claims] == ["The museum opened in 1901.", "It has three wings."]
    assert [c.index for c in claims] == [0, 1]
    for c in claims:
        span = c.answer_spans[0]
        assert answer[span.start:span.end] == c.text
    assert [c.sentence_index for c in claims] == [1, 2]


def test_list_markers_and_citations_are_no_claims():
    answer = "Steps:\n1. Preheat the oven to 200 degrees.\n2. Bake for 20 minutes. (Passage 3)"
    texts = [c.text for c in RuleDecomposer().decompose_sync(answer)]
    assert "1." not in texts and "(Passage 3)" not in texts
    assert any("Preheat the oven" in t for t in texts) and any("Bake for 20 minutes" in t for t in texts)


def test_an_answer_of_preambles_only_has_no_claim():
    assert RuleDecomposer().decompose_sync("Sure! Here is the answer:") == []
