"""Issue 42, item 7: the unsupported words a reason lists are content words of the claim that the evidence lacks
after the judge's own normalisation (stems, hyphenated parts, numbers), never stop words. Through ``rt4chart.audit``
with the offline local judge."""

from __future__ import annotations

import re

import pytest

import rt4chart
from rt4chart.evidence import STOPWORDS, stem, tokens

CONTEXT = ("Every plan starts with a 14-day free trial. The trial includes priority email support. Riders can rent an "
           "e-bike at the central station from 7 am to 9 pm; the rental costs 12 dollars a day.")
ANSWERS = [
    "You can rent a bike at the airport kiosk at night.",
    "The trial includes priority email support, a personal trainer and weekly yoga classes at the station.",
    "The bike rental at the central station costs 12 dollars and includes a helmet, a basket and insurance.",
    "The 14-day trial includes a free e-bike and priority phone support at the airport.",
]


def _listed(reason: str) -> list[str]:
    m = re.search(r"unsupported words: (.*)$", reason)
    return m.group(1).split(", ") if m else []


def test_listed_words_are_content_words_the_context_lacks():
    context_stems = {stem(t) for t in tokens(CONTEXT)}
    listed = []
    for answer in ANSWERS:
        for claim in rt4chart.audit(context=CONTEXT, answer=answer, judge="local").claims:
            for word in _listed(claim.reason):
                listed.append(word)
                assert word.lower() not in STOPWORDS, (word, claim.reason)
                assert all(stem(t) not in context_stems for t in tokens(word)), (word, claim.reason)
    assert listed, "no reason listed unsupported words: the test checks nothing"


@pytest.mark.parametrize("word", ["bike", "trial", "at", "The", "station", "12"])
def test_words_of_the_context_are_never_listed(word):
    reasons = [c.reason for a in ANSWERS for c in rt4chart.audit(context=CONTEXT, answer=a, judge="local").claims]
    assert not any(word in _listed(r) for r in reasons), reasons
