"""Typed edits at clause level (``evidence.clauses``): each kind fires on its edit and stays quiet on a paraphrase
or the same fact written otherwise."""

import pytest

from rt4chart.evidence import EvidenceIndex
from rt4chart.evidence._clauses import ClauseIndex
from rt4chart.evidence._typed import typed_edit


def edit(claim: str, context: str):
    return typed_edit(claim, EvidenceIndex(context).clauses)


@pytest.mark.parametrize("claim, context, kind, label, words", [
    ("The gallery is closed on Mondays.", "The gallery is open on Mondays from 9 to 5.", "antonym", "contradicted",
     ("'closed'", "'open'", "antonyms")),
    ("Shares of the firm fell in March.", "Shares of the firm rose in March.", "antonym", "contradicted",
     ("'fell'", "'rose'")),
    ("The car is red.", "The car is blue and fast.", "antonym", "contradicted", ("'red'", "'blue'", "incompatible")),
    ("Guests may bring up to 30 bags.", "Guests may bring up to twelve bags.", "number", "contradicted",
     ("'30 bags'", "'twelve bags'")),
    ("The gold medal costs $40.", "The silver medal costs $40, and the gold medal costs $55.", "number",
     "contradicted", ("'$40'", "'$55'")),
    ("All of the tested engines failed.", "Some of the tested engines failed in the cold.", "quantifier",
     "contradicted", ("'some of the'", "'All'")),
    ("Students must submit the form online.", "Students may submit the form online.", "quantifier",
     "contradicted", ("'must'", "'may'")),
    ("Visitors do not need a ticket for the tour.", "Visitors must buy a ticket for the tour.", "requirement",
     "contradicted", ("'not need'", "'must'")),
    ("The committee did not approve the budget.", "The committee approve the budget each spring.", "polarity",
     "contradicted", ("negates",)),
    ("Rovers bought Castle Mining in 2011.", "In 2011, Castle Mining bought Rovers.", "roles", "contradicted",
     ("other way round", "'bought'")),
    ("On Mondays Priya chairs the audit board.",
     "On Mondays Olu chairs the audit board, and Priya chairs the pay board.", "entity",
     "contradicted", ("'Priya'", "'Olu'", "another name of the context")),
    ("The meeting took place in Oslo with the ministers.", "The meeting took place in Lima with the ministers.",
     "entity", "baseless", ("'Oslo'", "'Lima'", "does not have")),
])
def test_each_kind_fires_and_names_the_edit(claim, context, kind, label, words):
    t = edit(claim, context)
    assert t is not None, claim
    assert (t.edit.kind, t.label) == (kind, label)
    for w in words:
        assert w in t.reason
    # the evidence is the aligned sentence, and the span lies in the claim
    assert 0 <= t.edit.start < t.edit.end <= len(claim)


@pytest.mark.parametrize("claim, context", [
    ("The plant makes 2,400,000 cans a year.", "The plant makes 2.4 million cans a year."),
    ("The voyage lasted 5 weeks.", "The voyage took five weeks."),
    ("The test takes 72 hours.", "The test takes three days."),
    ("The gallery is open on Mondays.", "The gallery is open on Mondays from 9 to 5."),
    ("The gallery is not closed on Mondays.", "The gallery is open on Mondays."),  # a negated antonym agrees
    ("Castle Mining was bought by Rovers.", "Rovers bought Castle Mining."),
    ("Sales rose 7% in 2020.", "Sales rose 5% in 2019, and sales rose 7% in 2020."),
    ("On Mondays Priya chairs the pay board.",
     "On Mondays Olu chairs the audit board, and Priya chairs the pay board."),
    ("Tim met Ana in Rome.", "Ana met Tim in Rome."),  # a symmetric verb
])
def test_same_fact_written_otherwise_is_no_edit(claim, context):
    assert edit(claim, context) is None


def test_clauses_split_at_conjunctions_not_at_clock_times():
    idx = ClauseIndex(["Anna leads design, and Marco leads research.", "Open from 10:00 to 14:00 on Saturdays."])
    assert [c.text for c in idx.clauses] == ["Anna leads design", "Marco leads research.",
                                              "Open from 10:00 to 14:00 on Saturdays."]
