"""A value the user gives in the question against a bound the evidence states (``evidence.bounds``), and what a
question gives (``evidence.claims.givens``): a given number is never "missing" from the evidence."""

from __future__ import annotations

import pytest

from rt4chart.evidence import EvidenceIndex, Rule, assess, given_numbers, givens, rule_of
from rt4chart.evidence._bounds import bounds, window

SHUTTLE = "The shuttle leaves the airport every 30 minutes until 23:00."


@pytest.mark.parametrize("question, stated", [
    ("My flight lands at 21:40. Can I still catch the shuttle?", ("My flight lands at 21:40.",)),
    ("My flight lands at 21:40, can I still catch the shuttle?", ("My flight lands at 21:40",)),
    ("Can I return it if I bought it on March 3?", ("if I bought it on March 3",)),
    ("I'm 17. Can I open an account?", ("I'm 17.",)),
    ("Is the fee $30?", ()),  # a premise to check, not the user's own situation
    ("What are the opening hours on 24 December?", ()),
])
def test_givens_are_what_the_question_states_of_the_user(question, stated):
    assert givens(question) == stated


def test_a_number_the_question_gives_is_never_missing():
    index = EvidenceIndex(SHUTTLE)
    claim = "Landing at 21:40 you can still catch a shuttle."
    assert "21:40" in assess(claim, index).missing_numbers
    assert not assess(claim, index, "My flight lands at 21:40. Can I still catch it?").missing_numbers
    assert not assess(claim, index, given=given_numbers("My flight lands at 21:40.")).missing_numbers
    # a number the question only asks about stays missing
    assert rule_of(assess("The fee is $30.", EvidenceIndex("The fee is $25."), "Is the fee $30?")) == \
        Rule.NUMBER_CONFLICT


def test_bounds_read_ends_starts_and_ranges():
    found = [(b.value.text, b.end, b.strict) for b in bounds("Open from 6 am to 10 pm; stays up to 10 days.")]
    assert found == [("6 am", False, False), ("10 pm", True, False), ("10 days", True, False)]
    assert [(b.end, b.strict) for b in bounds("Orders over $50 ship free; 18 or older.")] == [(False, True),
                                                                                           (False, False)]


@pytest.mark.parametrize("evidence, question, claim, holds", [
    (SHUTTLE, "My flight lands at 21:40. Can I still catch the shuttle?",
     "Landing at 21:40 you can still catch a shuttle, since they run every 30 minutes until 23:00.", True),
    (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?",
     "Landing at 23:40 you can still catch a shuttle, since they run every 30 minutes until 23:00.", False),
    (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?", "You can still catch the shuttle.", False),
    (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?",
     "The last shuttle leaves at 23:00, so you will miss it.", True),
    ("You must be 18 or older to open an account.", "I'm 17. Can I open an account?",
     "At 17 you can open an account.", False),
    ("You must be 18 or older to open an account.", "I'm 19. Can I open an account?",
     "At 19 you can open an account.", True),
    ("Bikes can be rented for up to 10 days.", "I need a bike for 14 days. Is that possible?",
     "You can rent a bike for 14 days.", False),
    ("The pool is open from 6 am to 10 pm.", "If I arrive at 5:30 am, can I swim?", "You can swim at 5:30 am.",
     False),
    ("The bar is open until 1 am.", "I get there at 11:30 pm. Can I still get a drink?",
     "You can still get a drink since it is open until 1 am.", True),
    ("The museum opens at 9 am.", "My train arrives at 8 am. Can I go in?", "You can go in at 8 am.", False),
])
def test_a_given_value_inside_or_outside_the_bound(evidence, question, claim, holds):
    found = window(claim, EvidenceIndex(evidence), question)
    assert found is not None and found.holds is holds and found.sentences == (0,)
    assert "the question's" in found.reason and ("as the claim states" in found.reason) is holds


@pytest.mark.parametrize("evidence, question, claim", [
    (SHUTTLE, "Can I still catch the shuttle?", "You can still catch the shuttle."),  # nothing given
    (SHUTTLE, "My flight lands at 23:40. Can I still catch the shuttle?", "Take a taxi instead."),  # asserts nothing
    ("The museum has a café on the top floor.", "My train arrives at 8 am. Can I go in?",
     "You can go in at 8 am."),  # no bound
    (SHUTTLE, "My flight lands at 21:40. Can I catch it?", "You can catch a free shuttle to your hotel at 21:40."),
])
def test_no_given_value_no_bound_or_unsupported_words_decide_nothing(evidence, question, claim):
    assert window(claim, EvidenceIndex(evidence), question) is None


def test_a_dates_digits_are_no_given_amount():
    # "4 May 2008" gives a date (dates.deadline reads it), not the amount 4
    assert window("You can apply from May 4, 2026.", EvidenceIndex("Applicants must be at least 18 years old."),
                  "I was born on 4 May 2008. From when can I apply?") is None
