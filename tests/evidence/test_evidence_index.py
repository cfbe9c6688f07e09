"""The public evidence API: EvidenceIndex, assess (Assessment, Kind), rule_of (Rule, Thresholds)."""

from __future__ import annotations

import dataclasses

import pytest

from rt4chart.errors import ConfigError
from rt4chart.evidence import (
    Assessment, EvidenceIndex, Kind, Rule, Thresholds, assess, one_edit, rule_of, word_key,
)

MUSEUM = ("The Hollis Museum opened in 1921. It is open from 10:00 to 18:00, and entry costs $12. "
          "Photography with flash is not permitted. The museum is in Boston, MA.")


@pytest.fixture(scope="module")
def index():
    return EvidenceIndex(MUSEUM)


def test_index_holds_each_sentence_keys_and_numbers(index):
    assert index.texts == ("The Hollis Museum opened in 1921.",
                           "It is open from 10:00 to 18:00, and entry costs $12.",
                           "Photography with flash is not permitted.", "The museum is in Boston, MA.")
    assert [s.text for s in index.sentences] == list(index.texts)
    assert all(MUSEUM[s.start:s.end] == s.text for s in index.sentences)
    # words match on their key: the stem, cut to five letters ("museum" -> "museu", "permitted" -> "permi")
    assert index.keys[0] == {"holli", "museu", "open", "1921"}
    assert index.amount_postings["=1921"] == [0] and index.amounts["=1921"] == "1921"  # the amount, in any form
    assert word_key("permitted") in index.keys[2]
    assert index.numbers == [{"1921"}, {"10:00", "18:00", "12"}, set(), set()]
    assert index.all_numbers == {"1921", "10:00", "18:00", "12"}
    assert index.codes == {"MA"}


def test_postings_list_the_sentences_of_a_key_in_order(index):
    # sentence 1 opens with "It": it is read as "The Hollis Museum is open ...", so it holds "museum" too
    assert index.postings["museu"] == [0, 1, 3]
    assert index.postings["photo"] == [2]
    assert all(i in index.postings[k] for i, keys in enumerate(index.keys) for k in keys)
    assert "zebra" not in index.postings


def test_edits_are_built_once_and_read_like_the_sentence_texts(index):
    assert index.edits is index.edits
    assert index.edits.text == index.readings  # the texts, the pronoun's sentence read with its antecedent
    assert index.readings[1] == "The Hollis Museum is open from 10:00 to 18:00, and entry costs $12."
    assert index.texts[1] == "It is open from 10:00 to 18:00, and entry costs $12."
    found = {c: one_edit(c, index.edits) for c in ("The Hollis Museum closed in 1921.", "The museum is in Denver, MA.",
                                                  "Photography with flash is permitted.", "The museum opened in 1921.")}
    assert found == {c: one_edit(c, list(index.readings)) for c in found}
    assert [(e.kind, e.evidence_text, e.sentence) if e else None for e in found.values()] == [
        ("word", "opened", 0), ("name", "Boston", 3), ("affirmation", "is not permitted", 2), None]


def test_an_empty_text_has_no_sentences():
    empty = EvidenceIndex("")
    assert empty.texts == () and empty.all_numbers == frozenset() and empty.postings == {}
    a = assess("Zebras migrate across the plains.", empty)
    assert a.kind is Kind.NO_EVIDENCE and a.reason == "the evidence text is empty"
    assert rule_of(a) is Rule.NO_EVIDENCE


@pytest.mark.parametrize("claim, question, kind", [
    ("Sure! Here is a summary of the passages.", None, Kind.META),
    ("It is what it is.", None, Kind.EMPTY),
    ("Zebra migration.", "Is zebra migration seasonal?", Kind.RESTATES),
    ("Zebras migrate.", None, Kind.NO_EVIDENCE),
    ("The Hollis Museum opened.", None, Kind.SCORED),
])
def test_assess_kinds(index, claim, question, kind):
    a = assess(claim, index, question)
    assert a.kind is kind
    assert (a.kind is Kind.SCORED) == bool(a.order)
    assert rule_of(a) is (Rule.UNVERIFIED if kind in (Kind.META, Kind.EMPTY, Kind.RESTATES) else
                          Rule.NO_EVIDENCE if kind is Kind.NO_EVIDENCE else Rule.ENTAILED)


def test_assess_joins_sentences_greedily_and_records_coverage(index):
    a = assess("The museum opened in 1921 and entry costs $12.", index)
    assert a.order == (1, 0)  # the sentence covering most weight first, then the one covering the rest
    assert a.cover[0] < a.cover[1] == 1.0
    assert a.uncovered == () and a.missing_numbers == frozenset()
    one = assess("The museum opened in 1921 and entry costs $12.", index, max_sentences=1)
    assert one.order == (1,) and one.cover == a.cover[:1] and one.uncovered
    assert rule_of(one, Thresholds(max_sentences=1, support=0.9)) is Rule.LOW_COVERAGE


def test_assess_number_name_and_negation_checks(index):
    number = assess("The Hollis Museum opened in 1925.", index)
    assert number.missing_numbers == {"1925"} and number.rival == 0 and number.rival_cover == 0.75
    assert rule_of(number) is Rule.NUMBER_CONFLICT
    assert rule_of(number, Thresholds(match=0.8)) is Rule.NUMBER_MISSING  # the rival covers too little
    negation = assess("Photography with flash is permitted.", index)
    assert negation.order == (2,) and negation.negation_match == 1.0
    assert rule_of(negation) is Rule.NEGATION_CONFLICT
    assert rule_of(negation, Thresholds(negation=None)) is Rule.ENTAILED
    names = assess("The Hollis Museum opened in 1921 with Ada Lovelace.", index)
    assert names.missing_names == ("ada", "lovelace")
    assert rule_of(names) is Rule.NAME_MISSING
    assert rule_of(names, Thresholds(names=False)) is Rule.ENTAILED
    # a state name is found through its postal code, a name of the question is not missing
    assert assess("The museum in Massachusetts opened in 1921.", index).missing_names == ()
    assert assess("Ada Lovelace visited the museum.", index, "Did Ada Lovelace visit it?").missing_names == ()


def test_rule_of_tries_the_rules_in_order():
    scored = Assessment(Kind.SCORED, cover=(0.4, 0.6), order=(0, 1), missing_numbers=frozenset({"7"}), rival=1,
                        rival_cover=0.5, negation_match=1.0, missing_names=("ada",))
    assert rule_of(scored) is Rule.NUMBER_CONFLICT
    steps = [({}, Rule.NUMBER_CONFLICT), ({"rival": -1}, Rule.NEGATION_CONFLICT),
             ({"negation_match": 0.5}, Rule.NUMBER_MISSING), ({"missing_numbers": frozenset()}, Rule.NAME_MISSING),
             ({"missing_names": ()}, Rule.ENTAILED)]
    a = scored
    for change, expected in steps:
        a = dataclasses.replace(a, **change)
        assert rule_of(a) is expected, change
    # support is reached at the cover of max_sentences joined sentences, and >= counts
    assert rule_of(a, Thresholds(support=0.6)) is Rule.ENTAILED
    assert rule_of(a, Thresholds(support=0.6, max_sentences=1)) is Rule.LOW_COVERAGE
    assert rule_of(a, Thresholds(support=0.61)) is Rule.LOW_COVERAGE
    assert rule_of(Assessment(Kind.SCORED)) is Rule.NO_EVIDENCE  # nothing chosen: nothing to cover


def test_rule_values_are_the_strings_the_features_code_by_position():
    assert [r.value for r in Rule] == ["unverified", "no-evidence", "number-conflict", "negation-conflict",
                                       "number-missing", "name-missing", "entailed", "low-coverage"]
    assert [k.value for k in Kind] == ["meta", "empty", "restates", "no-evidence", "scored"]
    assert Rule.ENTAILED == "entailed" and str(Rule.LOW_COVERAGE) == "low-coverage" and f"{Kind.META}" == "meta"
    assert Rule.NUMBER_CONFLICT in {"number-conflict"}


@pytest.mark.parametrize("kw", [{"support": 0}, {"support": 1.5}, {"match": -0.1}, {"negation": 0},
                                {"max_sentences": 0}])
def test_thresholds_are_checked(kw):
    with pytest.raises(ConfigError):
        Thresholds(**kw)


def test_thresholds_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Thresholds().support = 0.7  # type: ignore[misc]
