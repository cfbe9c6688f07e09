"""Issue 42, item 6: the rule decomposer keeps coordinated subjects and objects, lists and relative clauses in one
claim, and still cuts between two clauses. Through the public API: ``rt4chart.audit`` and ``RuleDecomposer``."""

from __future__ import annotations

import pytest

import rt4chart

WARRANTY = "The CityRide frame and motor are covered by a two-year warranty."


def _claims(answer: str) -> list[str]:
    return [c.text for c in rt4chart.RuleDecomposer().decompose_sync(answer)]


def test_the_issue_example_is_one_claim_in_an_audit():
    result = rt4chart.audit(context="Warranty: the CityRide frame and motor are covered for two years.",
                            answer=WARRANTY, judge="lexical")
    assert [c.text for c in result.claims] == [WARRANTY]
    assert [(s.start, s.end) for s in result.claims[0].answer_spans] == [(0, len(WARRANTY))]


@pytest.mark.parametrize("answer", [
    WARRANTY,                                                                   # coordinated subject, bare noun
    "The red bike and the blue scooter are on sale until Friday.",              # coordinated subject, determiners
    "Alice, Bob and the new intern were at the meeting on Monday.",             # a list as subject
    "The basic plan includes email support and the premium plan.",              # coordinated object
    "The plan includes email, chat, phone support and a dedicated manager.",   # a list as object
    "The bike, which has a motor, and the helmet are included in the price.",  # relative clause in the subject
    "Customers who bought the premium plan and their families are covered.",   # relative clause with a verb
    "Riders whose bikes were stolen and their insurers are notified at once.",
])
def test_one_proposition_stays_one_claim(answer):
    assert _claims(answer) == [answer]


@pytest.mark.parametrize("answer, expected", [
    ("The policy applies to all users and verification is not required.",
     ["The policy applies to all users", "verification is not required."]),
    ("The hotel opened in 1990 and it has 200 rooms.", ["The hotel opened in 1990", "it has 200 rooms."]),
    ("The warranty covers the frame and the motor is covered for one year.",
     ["The warranty covers the frame", "the motor is covered for one year."]),
    ("The museum, which opened in 1990, has 200 rooms and it is open daily.",
     ["The museum, which opened in 1990, has 200 rooms", "it is open daily."]),
    ("The trial lasts 14 days; support is available by email.",
     ["The trial lasts 14 days", "support is available by email."]),
])
def test_two_clauses_are_still_two_claims(answer, expected):
    assert _claims(answer) == expected
