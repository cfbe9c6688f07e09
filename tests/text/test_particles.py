"""Answer particles (``text.particles``): the "Yes." / "No, ..." / "Not necessarily:" an answer opens with and its
polarity, and the statement a yes or no particle asserts in reply to a yes/no question."""

import pytest

from rt4chart.text.particles import particle, yes_no_statement


@pytest.mark.parametrize("sentence, polarity", [
    ("Yes.", "yes"), ("Yes, you can.", "yes"), ("Yeah!", "yes"), ("Correct.", "yes"), ("That's right.", "yes"),
    ("Of course!", "yes"), ("Absolutely — it is.", "yes"), ("Sure, it is.", "yes"), ("Yes", "yes"),
    ("**Yes.**", "yes"),
    ("No.", "no"), ("No, it is closed.", "no"), ("Nope.", "no"), ("Not really.", "no"), ("Not at all.", "no"),
    ("Unfortunately, no.", "no"), ("Sorry, no.", "no"), ("Incorrect.", "no"), ("No", "no"),
    ("Not necessarily.", "hedge"), ("It depends: on the size.", "hedge"), ("Maybe.", "hedge"), ("Partly.", "hedge"),
])
def test_particle_polarity(sentence, polarity):
    found = particle(sentence)
    assert found is not None
    assert found[1] == polarity


@pytest.mark.parametrize("sentence, rest", [
    ("Yes, you can bring it.", "you can bring it."),
    ("No. Dogs wait outside.", "Dogs wait outside."),
    ("Not necessarily: it depends.", "it depends."),
    ("Yes.", ""),
])
def test_particle_offset_is_where_the_rest_starts(sentence, rest):
    end, _ = particle(sentence)
    assert sentence[end:] == rest


@pytest.mark.parametrize("sentence", [
    "No dogs are allowed in the café.", "Nobody came.", "Yesterday it rained.", "Surely not.",
    "Not all rooms have a balcony.", "The answer is yes.",
])
def test_no_particle(sentence):
    assert particle(sentence) is None


@pytest.mark.parametrize("question, yes, no", [
    ("Is the museum open on Mondays?", "The museum is open on Mondays.", "The museum is not open on Mondays."),
    ("Can I bring my dog into the café?", "You can bring your dog into the café.",
     "You cannot bring your dog into the café."),
    ("Does the gym offer yoga classes?", "The gym does offer yoga classes.", "The gym does not offer yoga classes."),
    ("Are children allowed in the pool?", "Children are allowed in the pool.",
     "Children are not allowed in the pool."),
    ("Is there a parking lot?", "There is a parking lot.", "There is not a parking lot."),
    ("Do I need a ticket?", "You do need a ticket.", "You do not need a ticket."),
    ("Am I eligible for a refund?", "You are eligible for a refund.", "You are not eligible for a refund."),
    ("Has the parcel arrived?", "The parcel has arrived.", "The parcel has not arrived."),
    ("Should we book ahead?", "You should book ahead.", "You should not book ahead."),
    ("Is breakfast included?", "Breakfast is included.", "Breakfast is not included."),
])
def test_yes_no_statement(question, yes, no):
    assert yes_no_statement(question, "yes") == yes
    assert yes_no_statement(question, "no") == no


@pytest.mark.parametrize("question, yes, no", [
    ("Isn't the pool heated?", "The pool is heated.", "The pool is not heated."),
    ("Can't I pay by card?", "You can pay by card.", "You cannot pay by card."),
])
def test_negative_question_asks_the_positive(question, yes, no):
    assert yes_no_statement(question, "yes") == yes
    assert yes_no_statement(question, "no") == no


@pytest.mark.parametrize("question, yes", [
    ("Hi, is the library open on Sunday?", "The library is open on Sunday."),
    ("I have a question. Will the shop deliver to Leeds?", "The shop will deliver to Leeds."),
])
def test_opening_words_and_earlier_sentences_are_not_the_question(question, yes):
    assert yes_no_statement(question, "yes") == yes


@pytest.mark.parametrize("question", [
    "What time does the museum open?", "Where is the station?", "How much is a ticket?",
    "Is the sofa red or blue?", "Can I pay by card or only in cash?", "",
])
def test_not_a_yes_no_question(question):
    assert yes_no_statement(question, "yes") is None
    assert yes_no_statement(question, "no") is None


def test_hedge_asserts_nothing():
    assert yes_no_statement("Is the museum open on Mondays?", "hedge") is None


@pytest.mark.parametrize("question, yes, no", [
    ("Is Paris the capital of France?", "Paris is the capital of France.", "Paris is not the capital of France."),
    ("Is the Louvre a museum?", "The Louvre is a museum.", "The Louvre is not a museum."),
    ("Is Tokyo the largest city in Japan?", "Tokyo is the largest city in Japan.",
     "Tokyo is not the largest city in Japan."),
    ("Is Marie Curie Polish?", "Marie Curie is Polish.", "Marie Curie is not Polish."),
    ("Is Mount Everest taller than K2?", "Mount Everest is taller than K2.", "Mount Everest is not taller than K2."),
    ("Are both the Danube and the Rhine longer than 1,000 km?",
     "Both the Danube and the Rhine are longer than 1,000 km.",
     "The Danube and the Rhine are not both longer than 1,000 km."),
    ("Is either the Danube or the Rhine longer than 3,000 km?",
     "Either the Danube or the Rhine is longer than 3,000 km.",
     "Neither the Danube nor the Rhine is longer than 3,000 km."),
    ("Were Marie Curie and Pierre Curie born in the same city?",
     "Marie Curie and Pierre Curie were born in the same city.",
     "Marie Curie and Pierre Curie were not born in the same city."),
])
def test_a_statement_in_grammatical_english(question, yes, no):
    assert yes_no_statement(question, "yes") == yes
    assert yes_no_statement(question, "no") == no
