"""Amounts a claim derives by arithmetic (``evidence.arithmetic.derive``): a difference, a total, a rate times a
quantity and a start time plus a duration, each right (holds), wrong (does not hold), reversed, or not arithmetic at
all (None)."""

import pytest

from rt4chart import Label
from rt4chart.evidence._arithmetic import derive
from rt4chart.evidence._index import EvidenceIndex

PRICES = "Basic costs $9 a month. Pro costs $19 a month."
BIRTHS = "Ana was born in 1950. Ben was born in 1975."
TRAILS = "The red trail is 12 km long. The blue trail is 7 km long."
HOTEL = "The hotel charges $120 for the room. Breakfast costs $30."
LOAVES = "The bakery sold 40 loaves on Monday. It sold 25 loaves on Tuesday."
PARKING = "Parking costs $6 per hour."
MARKET = "The market opens at 10 am and stays open for six hours."
FLIGHT = "The flight departs at 9:30 am and takes 2 hours."


def run(claim, context):
    return derive(claim, EvidenceIndex(context))


@pytest.mark.parametrize("claim, context", [
    ("Pro costs ten dollars more per month than Basic.", PRICES),
    ("Basic costs $10 less than Pro.", PRICES),
    ("Ana is 25 years older than Ben.", BIRTHS),
    ("The red trail is 5 km longer than the blue trail.", TRAILS),
    ("The room and breakfast cost $150 in total.", HOTEL),
    ("The bakery sold 65 loaves altogether.", LOAVES),
    ("Parking for five hours costs $30.", PARKING),
    ("Parking for 3 hours costs $18.", PARKING),
    ("The market closes at 4 pm.", MARKET),
    ("The market closes at 16:00.", MARKET),
    ("The flight lands at 11:30 am.", FLIGHT),
])
def test_right_arithmetic_holds(claim, context):
    found = run(claim, context)
    assert found is not None and found.holds is True, found
    assert "as the claim states" in found.reason
    assert found.sentences


@pytest.mark.parametrize("claim, context, computed", [
    ("Pro costs $12 more per month than Basic.", PRICES, "= 10"),
    ("Ana is 20 years older than Ben.", BIRTHS, "= 25"),
    ("The red trail is 6 km longer than the blue trail.", TRAILS, "12 km - 7 km"),
    ("The room and breakfast cost $140 in total.", HOTEL, "= 150"),
    ("The bakery sold 70 loaves altogether.", LOAVES, "= 65"),
    ("Parking for five hours costs $35.", PARKING, "= 30"),
    ("The market closes at 5 pm.", MARKET, "16:00"),
    ("The flight lands at 12:30 pm.", FLIGHT, "11:30"),
])
def test_wrong_result_does_not_hold(claim, context, computed):
    found = run(claim, context)
    assert found is not None and found.holds is False, found
    assert computed in found.reason


@pytest.mark.parametrize("claim, context", [
    ("Basic costs ten dollars more per month than Pro.", PRICES),
    ("Pro costs $10 less than Basic.", PRICES),
    ("Ben is 25 years older than Ana.", BIRTHS),
    ("The blue trail is 5 km longer than the red trail.", TRAILS),
])
def test_reversed_comparison_does_not_hold(claim, context):
    found = run(claim, context)
    assert found is not None and found.holds is False, found
    assert "the other way" in found.reason
    assert found.sentences == (0, 1)


@pytest.mark.parametrize("claim, context", [
    ("The market sells fresh bread.", MARKET),
    ("The sky is blue.", PRICES),
    ("Pro includes 200 GB of storage.", PRICES),
    ("Ana was born in 1950.", BIRTHS),
    ("The market opens at 10 am.", MARKET),  # the start itself, not an end time
    ("Parking costs $6 per hour.", PARKING),  # the rate itself
])
def test_unrelated_claims_derive_nothing(claim, context):
    assert run(claim, context) is None


def test_derivation_judgment_quotes_the_sentences_it_read():
    index = EvidenceIndex(PRICES)
    right = derive("Pro costs ten dollars more per month than Basic.", index).judgment(index)
    assert right.label == Label.ENTAILED and right.rule == "arithmetic" and right.score == 0.0
    assert right.evidence == ("Basic costs $9 a month.", "Pro costs $19 a month.")
    assert right.evidence_ids == ((0,), (1,))
    wrong = derive("Pro costs $12 more per month than Basic.", index).judgment(index)
    assert wrong.label == Label.CONTRADICTED and wrong.score == 1.0
    assert "not $12" in wrong.reason


@pytest.mark.parametrize("evidence, claim, question, holds", [
    ("Balance transfers carry a 3% fee on the amount moved.", "Moving £4,000 costs the 3% fee, which comes to £120.",
     "I want to move £4,000.", True),
    ("Every 500 points can be swapped for a £5 voucher.", "You can get one £5 voucher, with 300 points left over.",
     "I have 800 points.", True),
    ("Tickets cost £45 each.", "So two tickets cost £90 in total.", None, True),
    ("Tickets cost £45 each.", "So two tickets cost £100 in total.", None, None),  # no one operation gives £100
    ("Balance transfers carry a 3% fee.", "The fee on £4,000 is £130.", None, None),  # no word says it computed
])
def test_an_amount_the_claim_computed_by_one_operation_is_entailed(evidence, claim, question, holds):
    from rt4chart.evidence import EvidenceIndex
    from rt4chart.evidence._arithmetic import derive

    found = derive(claim, EvidenceIndex(evidence), question)
    if holds is None:
        assert found is None or not found.holds
    else:
        assert found is not None and found.holds is holds and "=" in found.reason
