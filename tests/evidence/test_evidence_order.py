"""The evidence that decided comes first: for a contradiction the sentence that says otherwise, for an entailment the
sentence that holds the claim's fact (its numbers) before one that only names its subject, and never, for an
entailed claim, a sentence that contradicts it. Both word judges, through the whole audit (the auditor keeps the
judge's order)."""

from __future__ import annotations

import pytest

import rt4chart
from rt4chart.evidence import EvidenceIndex
from rt4chart.text.align import anchor
from rt4chart.text.segment import split_sentences

HEADPHONES = ("Aurora X2 wireless headphones. The Aurora X2 weighs 250 grams. It charges over USB-C in 90 minutes. "
              "The battery of the Aurora X2 lasts 30 hours.")
TRAIN = ("Timetable of the Kelby line. The first train to Kelby leaves at 6:12 on weekdays. The last train to Kelby "
         "leaves at 23:40. Trains to Kelby run every 20 minutes.")


def _first_sentence(context: str, answer: str, judge: str) -> tuple[str, int]:
    result = rt4chart.audit(context=context, answer=answer, judge=judge)
    (claim,) = result.claims
    return claim.label.value, claim.evidence[0].sentence_ids[0]


@pytest.mark.parametrize("judge", ["local", "lexical"])
def test_an_entailed_claim_shows_the_sentence_that_holds_its_numbers_first(judge):
    label, first = _first_sentence(HEADPHONES, "The Aurora X2 charges over USB-C in 90 minutes.", judge)
    assert label == "entailed" and first == 2


@pytest.mark.parametrize("judge", ["local", "lexical"])
def test_a_contradicted_claim_shows_the_contradicting_sentence(judge):
    label, first = _first_sentence(TRAIN, "The first train to Kelby leaves at 8:12 on weekdays.", judge)
    assert label == "contradicted" and first == 1


def test_a_contradicting_sentence_is_never_the_evidence_of_an_entailed_claim():
    index = EvidenceIndex(TRAIN)
    claim = "The first train to Kelby leaves at 6:12 on weekdays."
    assert not index.contradicts(claim, 1)
    assert index.contradicts("The first train to Kelby leaves at 8:12 on weekdays.", 1)
    assert index.contradicts("The Aurora X2 weighs 300 grams.", 1) is False  # no amount of that unit there
    heavy = EvidenceIndex(HEADPHONES)
    assert heavy.contradicts("The Aurora X2 weighs 300 grams.", 1)
    assert not heavy.contradicts("The Aurora X2 weighs under 300 grams.", 1)  # a bound the amount holds
    assert 1 not in heavy.supporting("The Aurora X2 weighs 300 grams.", [1, 0, 3])


def test_supporting_puts_the_sentence_with_the_claims_numbers_first():
    index = EvidenceIndex(HEADPHONES)
    assert index.supporting("The Aurora X2 charges over USB-C in 90 minutes.", [0, 2]) == [2, 0]
    assert index.supporting("The Aurora X2 has wireless headphones.", [0, 3]) == [0, 3]  # no number: as given


def test_contradicting_picks_the_sentence_that_says_otherwise():
    index = EvidenceIndex(TRAIN)
    assert index.contradicting("The last train to Kelby leaves at 22:40.", fallback=0) == 2
    assert index.contradicting("Trains to Kelby are comfortable.", fallback=3) == 3


def test_anchor_keeps_the_judges_order():
    sentences = split_sentences(TRAIN)
    found, missing = anchor([sentences[2].text, sentences[1].text], TRAIN, sentences, ids=((2,), (1,)))
    assert [e.sentence_ids for e in found] == [(2,), (1,)] and missing == []


def test_a_negated_noun_is_no_opposite_of_its_verb_denied_or_of_free():
    from rt4chart.evidence import EvidenceIndex

    index = EvidenceIndex("Members on the annual plan get personal training sessions free. "
                          "The tower has not been inspected since 2018. The bridge was repainted in 2019.")
    assert not index.contradicts("Members on the annual plan get personal training sessions at no charge.", 0)
    assert not index.contradicts("No inspection of the tower has taken place since 2018.", 1)
    assert index.contradicts("The bridge was not repainted in 2019.", 2)


def test_another_amount_of_the_same_unit_and_a_surface_restatement():
    from rt4chart.evidence import EvidenceIndex, restated

    index = EvidenceIndex("The Team plan includes 500 GB of storage. The mill grinds 2.5 million tonnes a year.")
    assert index.states_another_amount("The Team plan includes 50 GB of storage.", 0)
    assert not index.states_another_amount("The Team plan includes 500 GB of storage.", 0)
    claim = "The mill grinds 2,500,000 tonnes a year."
    assert restated(claim, index)[0] == claim  # the same digits: word judges read them as they are
    assert restated(claim, index, surface=True)[0] == "The mill grinds 2.5 million tonnes a year."
