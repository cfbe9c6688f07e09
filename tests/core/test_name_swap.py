"""The name swap check (rt4chart.text.lexical.name_swap): another name in an otherwise copied evidence sentence."""

from __future__ import annotations

import pytest

from rt4chart.text.lexical import name_swap
from rt4chart.text.segment import split_sentences

TOWER = "The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall."
PRIZE = "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie and Henri Becquerel."
FIRM = "The company reported revenue of $5.1 billion. The CEO is Jane Smith of Zürich."


def swap(claim, context):
    return name_swap(claim, [s.text for s in split_sentences(context)])


@pytest.mark.parametrize("claim, context, mine, theirs, sentence", [
    ("The Eiffel Tower is in London.", TOWER, "London", "Paris", 0),
    ("Marie Curie won the Nobel Prize in Chemistry in 1903.", PRIZE, "Chemistry", "Physics", 0),
    ("The CEO is John Smith of Zürich.", FIRM, "John", "Jane", 1),
    ("The CEO is Jane Smith of Basel.", FIRM, "Basel", "Zürich", 1),
    ("The Eiffel Tower is in New York.", TOWER, "New York", "Paris", 0),
])
def test_a_name_in_place_of_another_is_found_with_its_span_and_sentence(claim, context, mine, theirs, sentence):
    s = swap(claim, context)
    assert s is not None and s.claim_name == mine and claim[s.start:s.end] == mine
    assert s.evidence_name == theirs and s.sentence == sentence


@pytest.mark.parametrize("claim, context", [
    ("The Eiffel Tower is in Paris.", TOWER),  # the same name
    ("The Eiffel Tower’s home is in Paris.", TOWER),
    ("Marie Curie won the Nobel Prize in Physics in 1903 with Albert Einstein.", PRIZE),  # an added name
    ("The CEO is Janet Smith of Zürich.", FIRM),  # a spelling of the same name, not another
    ("The CEO is Jane Smith of Zurich.", FIRM),
    ("London has the Eiffel Tower in Paris.", TOWER),  # a sentence-initial capital says nothing
    ("The tower that Gustave Eiffel built is in London.", TOWER),  # too little of the sentence copied
    ("Revenue was reported in Q3 by the Board.", FIRM),
])
def test_no_swap_without_another_name_in_the_same_place(claim, context):
    assert swap(claim, context) is None


def test_abbreviations_and_variants_are_not_swaps():
    ctx = "Play begins on Friday, Nov 3. The lab is run by the Defense Department."
    assert swap("Play begins on Friday, November 3.", ctx) is None
    assert swap("The lab is run by the Defence Department.", ctx) is None
