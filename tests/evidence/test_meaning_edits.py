"""The typed edits of scope, certainty and pairs (``evidence.scope``, ``evidence.pairs``, ``evidence.typed``): each
kind fires on its edit with a reason that names it, and a faithful look-alike built the same way stays quiet."""

import pytest

from rt4chart.evidence import EvidenceIndex
from rt4chart.evidence._typed import instruction, typed_edit

CAFE = "The Corner Café serves breakfast from 8:00. On Fridays it stays open until 22:00."
CHARGERS = "The Zephyr charges fully in 45 minutes. The Bolt charges fully in 30 minutes."
STATIONS = "Northgate station opened in 2019 and Southgate station in 2021."
PHONE = "Kestrel launched the K5 phone on 3 March 2024. A recall of the K5 was announced on 1 February 2024."
HOTEL = "The Bay Hotel has 40 rooms. Guests can swim in the rooftop pool."


def edit(claim: str, context: str):
    return typed_edit(claim, EvidenceIndex(context).clauses)


@pytest.mark.parametrize("claim, context, kind, label, words", [
    # a restriction widened, or a condition dropped
    ("Anyone can join the climbing club.", "Membership of the climbing club is open to residents of Elm Park only.",
     "restriction", "contradicted", ("'Anyone'", "'park only'")),
    ("All tenants get a 2% discount.", "Tenants who pay by the 5th get a 2% discount.", "restriction",
     "contradicted", ("'All'", "'tenants who pay by the 5th'")),
    # certainty, both ways, and a plan stated as done
    ("The new tram line will open in June.", "The new tram line is expected to open in June.", "modality",
     "contradicted", ("'will'", "'expected'")),
    ("Repairs may take place on Sundays.", "Repairs will always take place on Sundays.", "modality",
     "contradicted", ("'may'", "'will'")),
    ("The council has opened the new pool.", "The council plans to open the new pool next year.", "modality",
     "contradicted", ("plans to open", "'opened'")),
    # a negation that a later event contradicts
    ("The bridge has not been inspected since 2020.",
     "The old bridge was built in 1950. Inspectors examined the bridge in March 2023.", "since", "contradicted",
     ("'2020'", "'2023'")),
    # a swap inside one coordinated clause
    ("Southgate station opened in 2019.", STATIONS, "swap", "contradicted", ("'2019'", "'2021'", "Northgate")),
    ("The Deluxe room costs 95 pounds a night.",
     "The Standard room costs 95 pounds a night and the Deluxe room costs 140 pounds a night.", "swap",
     "contradicted", ("'95 pounds'", "'140 pounds'")),
    # a comparison the numbers contradict
    ("The Zephyr charges faster than the Bolt.", CHARGERS, "comparison", "contradicted",
     ("'faster'", "'45 minutes'", "'30 minutes'")),
    # two events the dates order the other way
    ("The launch came before the recall.", PHONE, "comparison", "contradicted", ("'before'", "other way")),
    # a denial that a clause of another sentence contradicts
    ("The hotel has no pool.", HOTEL, "absence", "contradicted", ("'pool'", "rooftop pool")),
    ("The shop does not sell stamps.", "The corner shop sells newspapers and stamps.", "absence", "contradicted",
     ("'sell stamps'",)),
    # a subject the context never mentions
    ("The museum runs guided tours on Fridays.", CAFE, "subject", "baseless", ("'museum'", "never mentions")),
])
def test_each_kind_fires_and_names_the_edit(claim, context, kind, label, words):
    t = edit(claim, context)
    assert t is not None, claim
    assert (t.edit.kind, t.label) == (kind, label)
    for w in words:
        assert w in t.reason, t.reason
    assert 0 <= t.edit.start < t.edit.end <= len(claim)
    assert (t.edit.sentence < 0) == (label == "baseless")  # a baseless claim points at no sentence


@pytest.mark.parametrize("claim, context", [
    ("All residents of Elm Park can join the climbing club.",
     "Membership of the climbing club is open to residents of Elm Park only."),  # the restriction kept
    ("Tenants who pay by the 5th get a 2% discount.", "Tenants who pay by the 5th get a 2% discount."),
    ("The new tram line is expected to open in June.", "The new tram line is expected to open in June."),
    ("The new tram line will open in May.", "The new tram line will open in May."),  # May, the month
    ("The council plans to open the new pool next year.", "The council plans to open the new pool next year."),
    ("The bridge has not been inspected since 2024.",
     "The old bridge was built in 1950. Inspectors examined the bridge in March 2023."),
    ("Northgate station opened in 2019.", STATIONS),
    ("Southgate station opened in 2021.", STATIONS),
    ("The Bolt charges faster than the Zephyr.", CHARGERS),
    ("The Zephyr charges slower than the Bolt.", CHARGERS),
    ("The café stays open late on Fridays.", CAFE),
    ("Most experts will likely agree.", "Most experts are expected to agree."),  # the claim hedges itself
    ("The recall came before the launch.", PHONE),
    ("The hotel has no gym.", HOTEL),  # silence is no contradiction
    ("He did not attend the meeting.", "The meeting was held on Monday."),  # the act is not stated
    ("The café does not accept cash.", "Payment is by card only; cash is not accepted."),
])
def test_a_faithful_look_alike_is_no_edit(claim, context):
    assert edit(claim, context) is None


def test_instructions_are_told_from_statements():
    assert instruction("Fill in any sparse spots with an eyebrow pencil.")
    assert instruction("Continue this process until all of the molding has been installed.")
    assert not instruction("The policy applies to all users")
    assert not instruction("Anyone can join the club.")
    assert not instruction("Tenants get a 2% discount.")


@pytest.mark.parametrize("claim, context", [
    ("The match lasted an hour and a half.", "The match lasted 90 minutes."),
    ("The course takes a fortnight.", "The course takes 14 days."),
    ("Half of the staff work from home.", "50% of the staff work from home."),
    ("Refunds arrive in under three weeks.", "Refunds arrive within 10 working days."),
    ("Members aged 20 can vote.", "Members aged at least 18 can vote."),
])
def test_the_same_amount_or_a_bound_that_holds_is_no_edit(claim, context):
    assert edit(claim, context) is None


@pytest.mark.parametrize("claim, context, words", [
    ("The bag holds 35 litres.", "The bag holds up to 30 litres.", ("'35 litres'", "bounds")),
    ("Guests may bring up to 30 bags.", "Guests may bring up to twelve bags.", ("'30 bags'",)),
    ("The match lasted an hour and a half.", "The match lasted 80 minutes.", ("'an hour and a half'",)),
])
def test_a_bound_that_does_not_hold_is_a_number_edit(claim, context, words):
    t = edit(claim, context)
    assert t is not None and t.edit.kind == "number"
    for w in words:
        assert w in t.reason, t.reason
