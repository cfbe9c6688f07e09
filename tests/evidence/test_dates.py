"""Dates (``evidence.dates``): read as written, and a deadline computed from a start date and a duration."""

from __future__ import annotations

import pytest

from rt4chart.evidence._dates import dates, deadline


def test_dates_are_read_in_their_written_forms():
    found = dates("Delivered on March 10, due 9 April 2025, renewed 2025-06-01, or the 1st of June.")
    assert [(d.month, d.day, d.year) for d in found] == [(3, 10, None), (4, 9, 2025), (6, 1, 2025), (6, 1, None)]
    assert dates("on 06/01/2025") == []  # day and month in an order one can only guess


@pytest.mark.parametrize("claim, question, evidence, holds", [
    ("You can return it until April 9.", "My order was delivered on March 10.",
     "You may return unworn items within 30 days of delivery.", True),
    ("You can return it until April 19.", "My order was delivered on March 10.",
     "You may return unworn items within 30 days of delivery.", False),
    ("The warranty runs until 1 December 2026.", "I bought it on 1 June 2025.",
     "The warranty lasts 18 months from the date of purchase.", True),
    ("The warranty runs until 1 June 2026.", "I bought it on 1 June 2025.",
     "The warranty lasts 18 months from the date of purchase.", False),
    ("The refund reaches you by Friday, March 14.", "I returned it on Friday, March 7, 2025.",
     "Refunds are issued within 5 business days.", True),
    ("Your cover ends on 1 June 2027.", "I signed up on 1 June 2025.", "Cover lasts two years.", True),
])
def test_a_date_computed_from_a_start_and_a_duration_is_checked(claim, question, evidence, holds):
    found = deadline(claim, [evidence], question)
    assert found is not None and found.holds is holds
    if not holds:
        assert "not" in found.reason and "=" in found.reason


@pytest.mark.parametrize("claim, question, evidence", [
    ("It opens on April 9.", "", "The museum reopens on April 9 after 30 days of works."),  # the evidence's own date
    ("You can return it until April 10.", "Delivered on March 10.", "Returns within 30 days of delivery."),  # a day
    ("Until April 9.", "Delivered on March 10.", "Returns within 30 days; refunds within 14 days."),  # two durations
    ("Until April 9.", "Bought March 10 or March 12.", "Returns within 30 days."),  # two starts
])
def test_an_ambiguous_reading_decides_nothing(claim, question, evidence):
    assert deadline(claim, [evidence], question) is None



def test_a_birth_date_plus_an_age_and_the_start_the_question_gave():
    found = deadline("You can apply from May 4, 2026.", ["Applicants must be at least 18 years old."],
                     "I was born on 4 May 2008. From when can I apply?")
    assert found is not None and found.holds
    assert found.reason.startswith("4 May 2008 (the question's date) + 18 years = May 4, 2026")
    wrong = deadline("You can apply from May 4, 2027.", ["Applicants must be at least 18 years old."],
                     "I was born on 4 May 2008.")
    assert wrong is not None and not wrong.holds and wrong.reason.endswith("not May 4, 2027")
