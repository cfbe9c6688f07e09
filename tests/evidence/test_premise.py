"""premise_sentences / premise_text: which context sentences a claim is checked against (rare shared words first,
hint first, a word budget, context order, the no-shared-word fallback)."""

from __future__ import annotations

import pytest

from rt4chart.evidence import EvidenceIndex, premise_sentences, premise_text

POLICY = ("The policy is available to new users. "                                      # 0
          "Only new users who have completed identity verification are eligible. "      # 1
          "The Hollis cafe opened in 1999 in Boston. "                                  # 2
          "Users can reach the support desk by phone. "                                 # 3
          "The weather in Boston was mild that spring.")                                # 4


@pytest.fixture(scope="module")
def index():
    return EvidenceIndex(POLICY)


def test_rare_shared_words_rank_first(index):
    # "verification" and "identity" are in one sentence only, "users" in three: sentence 1 ranks first
    assert premise_sentences(index, "Identity verification is required for users.", max_words=11) == (1,)
    # "Hollis" and 1999 are rare and count double (a name, a number); "Boston" is shared with sentence 4
    assert premise_sentences(index, "Hollis opened in 1999.", max_words=8) == (2,)
    assert premise_sentences(index, "Boston is lovely.", max_words=100) == (2, 4)


def test_only_related_sentences_are_taken_and_returned_in_context_order(index):
    ids = premise_sentences(index, "New users need identity verification for the policy.")
    assert ids == (0, 1, 3)  # the three "users" sentences; 2 and 4 share nothing
    assert list(ids) == sorted(ids)
    assert premise_text(index, ids) == " ".join(index.texts[i] for i in (0, 1, 3))
    assert premise_text(index, (3, 0, 3)) == f"{index.texts[0]} {index.texts[3]}"


def test_word_budget_passes_over_sentences_that_do_not_fit(index):
    claim = "New users need identity verification for the policy."
    # ranked 1 (10 words), 0 (7), 3 (8): 10 + 7 fits in 17, 3 does not
    assert premise_sentences(index, claim, max_words=17) == (0, 1)
    # 1 alone (10), 0 would make 17 > 16, 3 makes 18 > 16
    assert premise_sentences(index, claim, max_words=16) == (1,)
    assert premise_sentences(index, claim, max_words=25) == (0, 1, 3)


def test_a_lower_ranked_sentence_that_fits_is_still_taken():
    index = EvidenceIndex("Zorblat and quux glow. Zorblat was seen by many people in the old town square late "
                          "last night. Quux hums.")
    # sentence 0 holds both words (first); 1 and 2 one each (tie: 1 first), but 1 (15 words) does not fit
    assert premise_sentences(index, "Zorblat meets quux.", max_words=7) == (0, 2)
    assert premise_sentences(index, "Zorblat meets quux.", max_words=19) == (0, 1)


def test_a_sentence_longer_than_the_budget_is_kept_alone(index):
    assert premise_sentences(index, "Identity verification", max_words=3) == (1,)
    assert premise_sentences(index, "unrelated words entirely", max_words=1) == (0,)


def test_hint_sentences_come_first(index):
    claim = "Identity verification is required for users."
    assert premise_sentences(index, claim, max_words=10, hint=(3,)) == (3,)
    assert premise_sentences(index, claim, max_words=18, hint=(3,)) == (1, 3)
    # a hint sentence need not share a word; duplicates count once
    assert premise_sentences(index, claim, max_words=100, hint=(4, 4)) == (0, 1, 3, 4)
    with pytest.raises(IndexError):
        premise_sentences(index, claim, hint=(5,))


def test_a_claim_sharing_no_word_gets_the_first_sentences(index):
    # 7 + 10 words fit in 20; the fallback is a prefix, so sentence 3 (8 words, would fit in 25) is not reached
    assert premise_sentences(index, "Quantum chromodynamics explains gluons.", max_words=20) == (0, 1)
    assert premise_sentences(index, "Quantum chromodynamics explains gluons.", max_words=24) == (0, 1)
    assert premise_sentences(index, "Here is a summary of the passage:") == (0, 1, 2, 3, 4)


def test_empty_index_and_bad_budget():
    assert premise_sentences(EvidenceIndex(""), "Anything at all.") == ()
    with pytest.raises(ValueError):
        premise_sentences(EvidenceIndex("A b c."), "A", max_words=0)


def test_deterministic_with_ties_by_position():
    text = "Alpha beta here. Gamma delta there. Alpha beta again. Gamma delta once more."
    index = EvidenceIndex(text)
    first = premise_sentences(index, "Alpha beta gamma delta.", max_words=7)
    assert first == (0, 1)  # all four tie; the earliest two fit
    assert all(premise_sentences(EvidenceIndex(text), "Alpha beta gamma delta.", max_words=7) == first
               for _ in range(3))
