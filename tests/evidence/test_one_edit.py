"""One-edit copies (rt4chart.evidence.one_edit): an evidence sentence copied with another name, number word or
word of a closed class in one place, with a negation it does not have, or without the negation it has."""

from __future__ import annotations

import pytest

from rt4chart.evidence import one_edit
from rt4chart.text.segment import split_sentences

TOWER = ("The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall. About seven million people "
         "visit it every year. Visitors can climb the stairs or take a lift to the top.")
PRIZE = "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie and Henri Becquerel."
FIRM = "The company reported revenue of $5.1 billion. The CEO is Jane Smith of Zürich."
SALES = "Sales rose by 5% in 2020. The shop is closed on Sundays."
MUSEUM = ("Entry to the museum is never free. Visitors cannot take photographs inside the museum. The museum wasn't "
          "built by the city; a trust paid for it.")


def edit(claim, context):
    return one_edit(claim, [s.text for s in split_sentences(context)])


@pytest.mark.parametrize("claim, context, kind, mine, theirs, sentence", [
    ("The Eiffel Tower is in London.", TOWER, "name", "London", "Paris", 0),
    ("Marie Curie won the Nobel Prize in Chemistry in 1903.", PRIZE, "name", "Chemistry", "Physics", 0),
    ("The CEO is John Smith of Zürich.", FIRM, "name", "John", "Jane", 1),
    ("The CEO is Jane Smith of Basel.", FIRM, "name", "Basel", "Zürich", 1),
    ("The Eiffel Tower is in New York.", TOWER, "name", "New York", "Paris", 0),
    ("About seventy million people visit it every year.", TOWER, "number", "seventy", "seven", 2),
    ("Visitors cannot take a lift to the top.", TOWER, "negation", "cannot", "take a lift to the top", 3),
    ("Visitors can't take a lift to the top.", TOWER, "negation", "can't", "take a lift to the top", 3),
    ("Visitors do not take a lift to the top.", TOWER, "negation", "not", "take a lift to the top", 3),
    ("The company reported revenue of $5.1 million.", FIRM, "number", "million", "billion", 0),
    ("About seven thousand people visit it every year.", TOWER, "number", "thousand", "million", 2),
    ("It was completed in 1889 and is 330 metres wide.", TOWER, "word", "wide", "tall", 1),
    ("Sales fell by 5% in 2020.", SALES, "word", "fell", "rose", 0),
    ("The shop is open on Sundays.", SALES, "word", "open", "closed", 1),
    ("Entry to the museum is free.", MUSEUM, "affirmation", "is free", "is never free", 0),
    ("Visitors can take photographs inside the museum.", MUSEUM, "affirmation",
     "can take photographs inside the museum", "cannot take photographs inside the museum", 1),
    ("The museum was built by the city.", MUSEUM, "affirmation", "was built by the city",
     "wasn't built by the city", 2),
])
def test_one_edit_is_found_with_its_span_and_sentence(claim, context, kind, mine, theirs, sentence):
    e = edit(claim, context)
    assert e is not None and e.kind == kind and e.claim_text == mine and claim[e.start:e.end] == mine
    assert e.evidence_text == theirs and e.sentence == sentence


@pytest.mark.parametrize("claim, context", [
    ("The Eiffel Tower is in Paris.", TOWER),  # the same name
    ("The Eiffel Tower’s home is in Paris.", TOWER),
    ("Marie Curie won the Nobel Prize in Physics in 1903 with Albert Einstein.", PRIZE),  # an added name
    ("The CEO is Janet Smith of Zürich.", FIRM),  # a spelling of the same name, not another
    ("The CEO is Jane Smith of Zurich.", FIRM),
    ("London has the Eiffel Tower in Paris.", TOWER),  # a sentence-initial capital says nothing
    ("The tower that Gustave Eiffel built is in London.", TOWER),  # too little of the sentence copied
    ("Revenue was reported in Q3 by the Board.", FIRM),
    ("No, the Eiffel Tower is not in London.", TOWER),  # a negated claim: it agrees with "in Paris"
    ("About 7 million people visit it every year.", TOWER),  # the same number, in digits
    ("About seven million people visit it every year.", TOWER),
    ("Visitors can take a lift to the top.", TOWER),
    ("can not take a lift to the top.", TOWER),  # no subject: a fragment cut from a longer sentence
    ("Visitors cannot take a lift.", TOWER),  # too little copied after the negation
    ("Visitors can climb without the stairs or take a lift to the top.", TOWER),  # "without" negates a noun
    ("It was completed in 1889 and is 330 metres high.", TOWER),  # "high" says what "tall" says
    ("The company reported revenue of $5.1 billion.", FIRM),
    ("The company reported revenue of 5,100,000,000 dollars.", FIRM),
    ("Entry to the museum is never free.", MUSEUM),
    ("The museum is not free.", MUSEUM),
    ("Visitors cannot take photographs inside the museum.", MUSEUM),
])
def test_no_edit_without_another_name_number_or_negation_in_the_same_place(claim, context):
    assert edit(claim, context) is None


def test_variants_and_negations_the_evidence_writes_its_own_way_are_not_edits():
    ctx = ("Play begins on Friday, Nov 3. The lab is run by the Defense Department. "
           "Tensions exist, though they are hardly limited to the two cities. "
           "Very important, you didnt allow resize the downloaded photo for the printer.")
    assert edit("Play begins on Friday, November 3.", ctx) is None
    assert edit("The lab is run by the Defence Department.", ctx) is None
    assert edit("Tensions exist, though they are not limited to the two cities.", ctx) is None
    assert edit("Important: you should not resize the downloaded photo for the printer.", ctx) is None


def test_a_negation_the_evidence_states_elsewhere_or_a_question_is_not_an_edit():
    asked = "Did Maria use the spare key this week?"
    assert edit("Maria did not use the spare key.", asked + " Maria did not use the spare key.") is None
    assert edit("Maria did not use the spare key.", asked) is None  # a question states nothing
    assert edit("Maria did not use the spare key.", "Maria used the car. Maria will use the spare key.") is not None


def test_a_contrast_word_in_a_negated_sentence_or_in_a_comparison_s_other_side_is_no_swap():
    income = "She did not have gross income of more than $3,700 last year."
    assert edit("She had gross income of less than $3,700 last year.", income) is None  # the same, said otherwise
    assert edit("She had gross income of more than $3,700 last year.", income) is None
    eggs = "Leghorns lay more eggs than brown-egg layers or other breeds."
    assert edit("Other breeds lay fewer eggs.", eggs) is None  # the comparison's other side
    assert edit("Leghorns lay fewer eggs than brown-egg layers or other breeds.", eggs).kind == "word"
    assert edit("The metal is silver-white.", "Calcium is a silver-grey metal.") is None  # colours are not a class


def test_a_dropped_negation_counts_only_when_the_claim_is_the_negated_clause_and_states_it():
    changes = "Unlike physical changes, chemical changes cannot be reversed."
    assert edit("Physical changes can be reversed.", changes) is None  # another subject before the copied words
    assert edit("Chemical changes can be reversed.", changes).kind == "affirmation"
    disposal = "If the disposal will not turn freely with a service wrench, call a plumber."
    assert edit("Check if the disposal will turn freely with a service wrench.", disposal) is None  # a condition
    assert edit("Entry to the museum is free.", MUSEUM + " Entry to the museum is free on Sundays.") is None
    assert edit("Entry to the museum is free.", "Is entry to the museum never free?") is None  # a question
    assert edit("The team did win the cup.", "The team did not win the cup.") is None  # "did not" left out
    assert edit("Entry to the museum is hardly free.", MUSEUM) is None  # the claim has a negation of its own


CURIE = ("In 1903 she shared the Nobel Prize in Physics with Pierre Curie. She was the first woman to win a Nobel "
         "Prize. In 1911 she won a second Nobel Prize, in Chemistry. Her daughter Irene also won a Nobel Prize.")


def test_ordinals_and_family_words_are_classes_and_a_pronoun_subject_must_be_the_evidence_s():
    assert edit("In 1911 she won a third Nobel Prize, in Chemistry.", CURIE).evidence_text == "second"
    assert edit("She was the first man to win a Nobel Prize.", CURIE).evidence_text == "woman"
    assert edit("She was the last woman to win a Nobel Prize.", CURIE).evidence_text == "first"
    assert edit("It was the last Tribal Council.", "It was the third Tribal Council.") is None  # the latest one
    never = edit("She never shared the Nobel Prize in Physics.", CURIE)
    assert never.kind == "negation" and never.evidence_text == "shared the Nobel Prize in Physics"
    assert edit("She never won a Nobel Prize.", CURIE) is None  # only "Her daughter ... won a Nobel Prize" says so
    assert edit("They did not share the Nobel Prize in Physics.", CURIE) is None


@pytest.mark.parametrize("claim, context", [
    ("The office is open.", "The office isn't open on Sundays."),  # the claim stops before what is negated
    ("He is a citizen of France.", "He is not a citizen of France by birth but became one in 1990."),
    ("Visitors can take photos.", "Visitors can't take photos with flash but can take photos."),
    ("Visitors can take photos.", "Visitors can't take photos; inside, they can take photos."),  # it says both
    ("The disposal will turn freely with a service wrench.",
     "If the disposal will not turn freely with a service wrench, call a plumber."),  # a condition in the evidence
    ("He was guilty of the crime.", "He said he was not guilty of the crime."),  # a report
    ("It is not possible to see the wall from space.",
     "Many people think it is possible to see the wall from space, but that is a myth."),
    ("She took a long breath.", "She took a deep breath."),  # size words said of other things
    ("The show airs every night at 8 pm.", "The show airs every evening at 8 pm."),
    ("Revenue reached 2 millions dollars.", "Revenue reached 2 million dollars."),  # one scale, two spellings
    ("Revenue reached 2 billion dollars.", "Revenue reached 2 thousand million dollars."),  # one scale, two ways
])
def test_faithful_readings_of_a_negated_or_reported_sentence_are_not_edits(claim, context):
    assert edit(claim, context) is None


def test_a_dropped_negation_is_found_up_to_a_clause_end_and_in_one_long_sentence_quickly():
    e = edit("The office is open on Sundays.", "The office isn't open on Sundays, but it is open on Mondays.")
    assert e.kind == "affirmation" and e.claim_text == "is open on Sundays"
    assert e.evidence_text == "isn't open on Sundays"
    # an unsplit web text: thousands of negations in one sentence are read once each
    assert one_edit("Entry to the museum is free.", ["Entry to the museum is never free here " * 4000]) is None
