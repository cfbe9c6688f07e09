"""Amounts normalised across words, digits, scales and units (``evidence.quantities``), and what that changes in
``normalised_numbers``: the same number written otherwise is the same number."""

import pytest

from rt4chart.evidence import normalised_numbers
from rt4chart.evidence._quantities import holds, quantities


@pytest.mark.parametrize("a, b", [
    ("ten books", "10 books"), ("1.5 million bottles", "1,500,000 bottles"), ("three weeks", "3 weeks"),
    ("48 hours", "two days"), ("twenty-five people", "25 people"), ("a seven-day extension", "a 7-day extension"),
    ("two hundred and ten cars", "210 cars"), ("$1.2bn", "$1,200,000,000"),
])
def test_one_amount_written_two_ways_is_equal(a, b):
    (qa,), (qb,) = quantities(a), quantities(b)
    assert qa.equals(qb)


@pytest.mark.parametrize("a, b", [("ten books", "20 books"), ("3 weeks", "3 days"), ("$12", "$30"),
                                  ("1.5 million", "1.5 billion")])
def test_different_amounts_differ(a, b):
    (qa,), (qb,) = quantities(a), quantities(b)
    assert not qa.equals(qb)


def test_dimensions():
    dims = [q.dimension for q in quantities("In 1932, 40% of 300 workers earned $5 a day for 2 weeks")]
    assert dims == ["year", "%", "worker", "$", "h"]
    assert quantities("one of the best") == ()  # "one" alone is no amount


def test_normalised_numbers_match_across_writings():
    claim = normalised_numbers("The factory makes 1,500,000 bottles.", claim=True)
    assert claim <= normalised_numbers("It makes 1.5 million bottles a year.", claim=False)
    assert normalised_numbers("It makes 1.5 million bottles.", claim=True) == {"1500000"}
    assert {"3"} <= normalised_numbers("It took three weeks.", claim=False)
    assert normalised_numbers("It takes two days.", claim=False) == {"2"}  # never 48: "2 hours" is not two days
    assert holds("It lasts 48 hours.", ["It takes two days."]) and not holds("It lasts 2 hours.", ["two days"])
    assert "20" not in normalised_numbers("up to ten books", claim=False)
