"""Context sentences that open with a pronoun read with their antecedent (``text.pronouns.resolved``)."""

import pytest

from rt4chart.text.pronouns import resolved


@pytest.mark.parametrize("first, second, read", [
    ("The vaccine was approved for adults in 2021.", "It has not been approved for pregnant women.",
     "The vaccine has not been approved for pregnant women."),
    ("The library opens at 9 am.", "It is closed on Sundays.", "The library is closed on Sundays."),
    ("Tom and Ann moved to Leeds in 2010.", "They run a bakery there.", "Tom and Ann run a bakery there."),
    ("Dr Patel joined the clinic in 2015.", "He works on Mondays.", "Dr Patel works on Mondays."),
    ("Maria Lopez founded the studio.", "She teaches pottery.", "Maria Lopez teaches pottery."),
    ("The Alder card costs $20 a year.", "This includes free loans.", "The Alder card includes free loans."),
    ("The new lockers were installed in May.", "These require a coin.", "The new lockers require a coin."),
])
def test_pronoun_before_a_verb_is_read_with_the_subject_before(first, second, read):
    assert resolved([first, second]) == (first, read)


def test_a_chain_of_pronoun_sentences_keeps_the_first_antecedent():
    out = resolved(["The vaccine was approved for adults in 2021.", "It has not been approved for pregnant women.",
                    "It is given in two doses."])
    assert out[2] == "The vaccine is given in two doses."


@pytest.mark.parametrize("second", [
    "It is important to shower first.", "It takes ten minutes to walk there.", "It is raining.",
    "It is possible that the pool closes early.",
])
def test_dummy_it_is_left_alone(second):
    assert resolved(["The pool is heated.", second]) == ("The pool is heated.", second)


@pytest.mark.parametrize("second", ["This plan costs $9 a month.", "These classes are free."])
def test_demonstrative_before_a_noun_is_left_alone(second):
    assert resolved(["The Basic plan is cheap.", second])[1] == second


def test_first_sentence_is_never_changed():
    assert resolved(["It closes at 6 pm.", "The library opens at 9."]) == ("It closes at 6 pm.",
                                                                           "The library opens at 9.")


def test_pronoun_after_a_pronoun_subject_is_left_alone():
    assert resolved(["It opens at 9 am.", "It closes at 6 pm."]) == ("It opens at 9 am.", "It closes at 6 pm.")


def test_sentences_without_a_pronoun_are_unchanged():
    sentences = ("The gym opens at 6 am.", "Lockers cost $2.")
    assert resolved(sentences) == sentences
