"""End to end with the offline judges (``rt4chart.audit`` with ``judge="local"`` and ``judge="lexical"``): answers
written as an assistant writes them (citation markers, a markdown table, a yes/no particle, numbers in words, amounts
derived by arithmetic, a context sentence that opens with a pronoun). A faithful answer is entailed; a wrong
look-alike is hallucinated, its wrong claim flagged."""

import pytest

import rt4chart
from rt4chart import Label

JUDGES = pytest.mark.parametrize("judge", ["local", "lexical"])

RETURNS = ("Harbor Books lets customers return items within 30 days. Refunds go back to the original card. "
           "Gift cards cannot be refunded.")
PLANS = ("The Starter plan costs $12 a month and includes 20 GB of storage. The Team plan costs $30 a month and "
         "includes 500 GB of storage.")
CAFE = "Dogs are not allowed in the Maple Café."
COURSE = ("The bakery course costs 150 dollars and lasts 3 weeks. Each class has 12 students. The recipe uses 250 ml "
          "of cream. Members get a 15% discount.")
GYM = "The Basic membership costs $25 a month. The Premium membership costs $40 a month."
MARKET = "The farmers market opens at 8 am and stays open for five hours."
KAYAK = "Kayak rental costs $15 per hour."
INN = "The Orchard Inn charges $90 for the room. Dinner costs $35."
VACCINE = "The Brightwater vaccine was approved for adults in 2021. It has not been approved for children under five."
GRANITE = "Granite Gym opens at 6 am on weekdays. It does not open on Sundays."

# (context, faithful answer, wrong look-alike, question, text of the wrong claim)
CASES = {
    "citation marker": (RETURNS, "You can return items within 30 days [1]. Gift cards cannot be refunded [2].",
                        "You can return items within 60 days [1]. Gift cards cannot be refunded [2].", None,
                        "You can return items within 60 days"),
    "markdown table": (PLANS,
                       "| Plan | Price | Storage |\n|---|---|---|\n| Starter | $12/month | 20 GB |\n"
                       "| Team | $30/month | 500 GB |",
                       "| Plan | Price | Storage |\n|---|---|---|\n| Starter | $12/month | 20 GB |\n"
                       "| Team | $30/month | 50 GB |", None, "Team: price $30/month, storage 50 GB"),
    "particle": (CAFE, "No.", "Yes.", "Are dogs allowed in the Maple Café?", "Dogs are allowed in the Maple Café."),
    "number in words": (COURSE, "The bakery course costs one hundred and fifty dollars.",
                        "The bakery course costs one hundred and twenty dollars.", None,
                        "The bakery course costs one hundred and twenty dollars."),
    "duration in words": (COURSE, "The bakery course lasts three weeks.", "The bakery course lasts four weeks.", None,
                          "The bakery course lasts four weeks."),
    "dozen": (COURSE, "Each class has a dozen students.", "Each class has two dozen students.", None,
              "Each class has two dozen students."),
    "litre": (COURSE, "The recipe uses a quarter of a litre of cream.", "The recipe uses half a litre of cream.",
              None, "The recipe uses half a litre of cream."),
    "per cent": (COURSE, "Members get a fifteen per cent discount.", "Members get a twenty per cent discount.", None,
                 "Members get a twenty per cent discount."),
    "difference": (GYM, "The Premium membership costs $15 more per month than the Basic membership.",
                   "The Premium membership costs $20 more per month than the Basic membership.", None,
                   "The Premium membership costs $20 more per month than the Basic membership."),
    "reversed difference": (GYM, "The Basic membership costs $15 less per month than the Premium membership.",
                            "The Basic membership costs $15 more per month than the Premium membership.", None,
                            "The Basic membership costs $15 more per month than the Premium membership."),
    "end time": (MARKET, "The farmers market closes at 1 pm.", "The farmers market closes at 2 pm.", None,
                 "The farmers market closes at 2 pm."),
    "rate": (KAYAK, "Renting a kayak for four hours costs $60.", "Renting a kayak for four hours costs $45.", None,
             "Renting a kayak for four hours costs $45."),
    "total": (INN, "The room and dinner cost $125 in total.", "The room and dinner cost $115 in total.", None,
              "The room and dinner cost $115 in total."),
    "pronoun-led context": (VACCINE, "The Brightwater vaccine has not been approved for children under five.",
                            "The Brightwater vaccine has been approved for children under five.", None,
                            "The Brightwater vaccine has been approved for children under five."),
    "pronoun-led context, verb": (GRANITE, "Granite Gym does not open on Sundays.", "Granite Gym opens on Sundays.",
                                  None, "Granite Gym opens on Sundays."),
}


@JUDGES
@pytest.mark.parametrize("case", list(CASES))
def test_faithful_answer_is_entailed(case, judge):
    context, faithful, _, question, _ = CASES[case]
    result = rt4chart.audit(context=context, answer=faithful, question=question, judge=judge)
    assert result.claims
    assert result.label == Label.ENTAILED, [(c.text, c.label, c.reason) for c in result.claims]
    for claim in result.claims:
        assert claim.label == Label.ENTAILED
        assert claim.evidence and all(e.text in context for e in claim.evidence)
        for span in claim.answer_spans:
            assert 0 <= span.start < span.end <= len(faithful)


@JUDGES
@pytest.mark.parametrize("case", list(CASES))
def test_wrong_look_alike_is_hallucinated(case, judge):
    context, _, wrong, question, wrong_claim = CASES[case]
    result = rt4chart.audit(context=context, answer=wrong, question=question, judge=judge)
    assert result.label.hallucinated, [(c.text, c.label, c.reason) for c in result.claims]
    flagged = [c for c in result.claims if c.label.hallucinated]
    assert [c.text for c in flagged] == [wrong_claim], [(c.text, c.label, c.reason) for c in result.claims]


@JUDGES
def test_citations_survive_the_audit(judge):
    answer = CASES["citation marker"][1]
    first, second = rt4chart.audit(context=RETURNS, answer=answer, judge=judge).claims
    assert first.text == "You can return items within 30 days"
    assert [m.passages for m in first.citations] == [(1,)]
    assert [m.passages for m in second.citations] == [(2,)]
    assert "[" not in first.text + second.text


@JUDGES
def test_a_particle_is_read_with_the_sentence_it_opens(judge):
    answer = "No, dogs are not allowed in the café."
    result = rt4chart.audit(context=CAFE, answer=answer, question="Are dogs allowed in the Maple Café?", judge=judge)
    (claim,) = result.claims
    assert claim.text == "dogs are not allowed in the café."
    assert claim.label == Label.ENTAILED
    # alone, it is the statement it asserts, its span the particle
    (statement,) = rt4chart.audit(context=CAFE, answer="No.", question="Are dogs allowed in the Maple Café?",
                                  judge=judge).claims
    assert statement.text == "Dogs are not allowed in the Maple Café."
    assert statement.label == Label.ENTAILED


@JUDGES
def test_pronoun_led_evidence_is_quoted_as_written(judge):
    (claim,) = rt4chart.audit(context=VACCINE, answer=CASES["pronoun-led context"][2], judge=judge).claims
    assert [e.text for e in claim.evidence] == ["It has not been approved for children under five."]


@JUDGES
def test_derived_difference_quotes_both_prices(judge):
    (claim,) = rt4chart.audit(context=GYM, answer=CASES["difference"][2], judge=judge).claims
    assert claim.label == Label.CONTRADICTED
    assert [e.text for e in claim.evidence] == ["The Basic membership costs $25 a month.",
                                                "The Premium membership costs $40 a month."]
    assert "15" in claim.reason
