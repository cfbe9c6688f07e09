"""Issue 52, item 7: a verb phrase coordinated with a clause ("She hasn't seen it and doesn't plan to") becomes a claim
with that clause's subject ("She doesn't plan to."), its answer span the verbatim fragment; a verb phrase whose subject
cannot be found stays joined to the clause before it; two full clauses still split as before."""

from __future__ import annotations

import asyncio

import pytest

import rt4chart
from rt4chart import Label
from rt4chart.audit.auditor import Auditor
from rt4chart.audit.relation import violations
from rt4chart.types import Judgment, Span


def _claims(answer: str) -> list[tuple[str, str]]:
    """(claim text, the answer text its span covers) for each claim."""
    out = []
    for c in rt4chart.RuleDecomposer().decompose_sync(answer):
        (span,) = c.answer_spans
        out.append((c.text, answer[span.start:span.end]))
    return out


@pytest.mark.parametrize("answer, expected", [
    ("She hasn't seen it and doesn't plan to.",
     [("She hasn't seen it", "She hasn't seen it"), ("She doesn't plan to.", "doesn't plan to.")]),
    ("The shop opens at 9 and is closed on Monday.",
     [("The shop opens at 9", "The shop opens at 9"), ("The shop is closed on Monday.", "is closed on Monday.")]),
    # the subject after an introductory phrase, capitalised
    ("In 2019, the company opened a new plant and is now hiring 200 workers.",
     [("In 2019, the company opened a new plant", "In 2019, the company opened a new plant"),
      ("The company is now hiring 200 workers.", "is now hiring 200 workers.")]),
    # a relative clause in the subject is left out of the borrowed subject; an adverb before the verb is kept
    ("The hotel, which has a pool, offers free breakfast and also provides parking.",
     [("The hotel, which has a pool, offers free breakfast", "The hotel, which has a pool, offers free breakfast"),
      ("The hotel also provides parking.", "also provides parking.")]),
    # a demonstrative determiner is part of the subject
    ("This hotel has a pool and offers free parking for guests.",
     [("This hotel has a pool", "This hotel has a pool"),
      ("This hotel offers free parking for guests.", "offers free parking for guests.")]),
    # a plural noun before the verb is not the verb
    ("Forward contracts are traded privately and are not traded on exchanges.",
     [("Forward contracts are traded privately", "Forward contracts are traded privately"),
      ("Forward contracts are not traded on exchanges.", "are not traded on exchanges.")]),
])
def test_a_coordinated_verb_phrase_keeps_the_subject(answer, expected):
    assert _claims(answer) == expected


def test_a_chain_of_verb_phrases_passes_the_subject_on():
    claims = _claims("The museum opened in 1901 and was rebuilt in 1950 and is now a library.")
    assert [t for t, _ in claims] == ["The museum opened in 1901", "The museum was rebuilt in 1950",
                                      "The museum is now a library."]


@pytest.mark.parametrize("answer", [
    "According to the reviews, does not offer parking and does not take reservations at all.",
    "Because of the storm was closed on Monday and is open again on Tuesday.",
])
def test_no_subject_found_keeps_the_verb_phrase_joined(answer):
    claims = _claims(answer)
    assert all(text == span for text, span in claims)  # nothing borrowed
    assert not any(text.startswith(("does ", "is ")) for text, _ in claims)  # and no bare fragment


@pytest.mark.parametrize("answer, expected", [
    # two full clauses: each keeps its own subject, nothing borrowed
    ("The first store opened in 2019 and the second store was opened in 2021.",
     ["The first store opened in 2019", "the second store was opened in 2021."]),
    ("The policy applies to all users and verification is not required.",
     ["The policy applies to all users", "verification is not required."]),
    ("She hasn't seen it and they don't plan to see it.", ["She hasn't seen it", "they don't plan to see it."]),
    # no auxiliary after the conjunction: not cut, as before
    ("A opened in 2019 and B opened in 2021.", ["A opened in 2019 and B opened in 2021."]),
    # "Italy" is a subject even though it ends in -ly
    ("The tour visits France and Italy is the last stop on the trip.",
     ["The tour visits France", "Italy is the last stop on the trip."]),
    # coordinated subjects are one claim, as before
    ("The CityRide frame and motor are covered for two years.",
     ["The CityRide frame and motor are covered for two years."]),
])
def test_look_alikes_split_as_before(answer, expected):
    claims = _claims(answer)
    assert [t for t, _ in claims] == expected
    assert all(text == span for text, span in claims)


class _FlagLast:
    """Flags the claim's last word as baseless (a span into the claim text); everything else entailed."""

    name = "flag-last"

    async def judge(self, claims, evidence, *, question, stage, local_labels=None, hints=None):
        out = []
        for c in claims:
            if "Monday" in c.text:
                at = c.text.index("Monday")
                out.append(Judgment(label=Label.BASELESS, spans=(Span(start=0, end=3), Span(start=at, end=at + 6))))
            else:
                out.append(Judgment(label=Label.ENTAILED, evidence=("The shop opens at 9.",)))
        return out


def test_judge_spans_of_a_claim_with_a_borrowed_subject_map_to_the_fragment():
    answer = "The shop opens at 9 and is closed on Monday."
    result = asyncio.run(Auditor(judge=_FlagLast()).audit(
        {"id": "r", "context": "The shop opens at 9.", "answer": answer}))
    bad = [c for c in result.claims if c.label.hallucinated]
    assert [c.text for c in bad] == ["The shop is closed on Monday."]
    # the span inside the borrowed subject ("The") is dropped; "Monday" maps to the answer's "Monday"
    assert [answer[s.start:s.end] for s in bad[0].flagged_spans] == ["Monday"]
    assert [answer[s.start:s.end] for s in result.spans] == ["Monday"]
    assert violations(result) == []
