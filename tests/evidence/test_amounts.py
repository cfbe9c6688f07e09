"""One amount read as one key whatever its form (``evidence.quantities.amount_key``, ``evidence.claims.read_claim``
and ``amount_spans``), claims restated in the evidence's forms (``evidence.index.restated``), and an
``EvidenceIndex``'s readings of pronoun-led sentences and its amounts."""

import pytest

from rt4chart.evidence._assess import assess
from rt4chart.evidence._claims import amount_spans, read_claim, word_key
from rt4chart.evidence._index import EvidenceIndex, original_offset, restated
from rt4chart.evidence._quantities import amount_key, quantities


def key(text):
    (q,) = quantities(text)
    return amount_key(q)


@pytest.mark.parametrize("a, b", [
    ("a dozen eggs", "12 eggs"), ("two dozen eggs", "24 eggs"), ("three dozen", "thirty-six"),
    ("a quarter of a litre", "250 ml"), ("0.25 l", "250 ml"), ("half a litre", "500 ml"), ("5 cl", "50 ml"),
    ("2 l", "2000 ml"), ("five hundred millilitres", "0.5 l"),
    ("a couple of days", "48 hours"), ("two days", "2 days"), ("a couple of weeks", "a fortnight"),
    ("three quarters of an hour", "45 minutes"), ("half an hour", "30 minutes"), ("an hour and a half", "90 minutes"),
    ("1.5 kg", "1500 g"), ("1,500 grams", "1.5 kg"), ("half a kilo", "500 g"), ("2 tonnes", "2000 kg"),
    ("3 km", "3,000 metres"), ("150 cm", "1.5 metres"), ("5 mm", "0.5 cm"),
    ("twelve per cent", "12%"), ("12 percent", "12%"), ("twenty percent", "20 per cent"),
    ("ten dollars", "$10"), ("seven hundred fifty thousand people", "750,000 visitors"),
])
def test_one_amount_has_one_key_across_forms(a, b):
    assert key(a) == key(b)


@pytest.mark.parametrize("text, expected", [
    ("a quarter of a litre", "=250ml"), ("twelve per cent", "=12%"), ("ten dollars", "=10$"),
    ("a couple of days", "=48h"), ("1.5 kg", "=1500g"), ("4.2 km", "=4200metre"), ("a dozen eggs", "=12"),
    ("750,000 visitors", "=750000"),
])
def test_amount_key_values(text, expected):
    assert key(text) == expected


@pytest.mark.parametrize("a, b", [
    ("a dozen eggs", "24 eggs"), ("a quarter of a litre", "500 ml"), ("a couple of days", "3 days"),
    ("1.5 kg", "150 g"), ("3 km", "300 metres"), ("twelve per cent", "20%"), ("ten dollars", "$12"),
    ("two days", "2 hours"), ("12%", "$12"), ("250 ml", "250 g"),
])
def test_different_amounts_have_different_keys(a, b):
    assert key(a) != key(b)


def test_read_claim_reads_each_amount_with_its_key_numbers_and_words():
    worded = read_claim("The jug holds a quarter of a litre and costs ten dollars.")
    assert [a.key for a in worded.amounts] == ["=250ml", "=10$"]
    quarter, ten = worded.amounts
    assert {"quart", "litre"} <= quarter.words and "0.25" in quarter.numbers
    assert "10" in ten.words | ten.numbers and "dolla" in ten.words
    # the words stay words of the claim: an evidence sentence that states the amount holds them
    assert {"quart", "litre", "dolla"} <= set(worded.keys)


def test_the_words_of_an_amount_the_evidence_states_otherwise_are_found():
    index = EvidenceIndex("The jug holds 250 ml and costs $10.")
    a = assess("The jug holds a quarter of a litre and costs ten dollars.", index)
    assert a.cover[-1] == 1.0 and not a.missing_numbers and a.uncovered == ()
    other = assess("The jug holds half a litre and costs ten dollars.", index)
    assert other.missing_numbers  # another amount is not found


def test_read_claim_dozen_and_digits_agree():
    def keys(claim: str) -> list[str]:
        return [a.key for a in read_claim(claim).amounts]

    assert keys("Buy a dozen eggs.") == keys("Buy 12 eggs.") == ["=12"]
    assert keys("It lasts a couple of days.") == keys("It lasts 48 hours.") == ["=48h"]


def test_amount_spans_finds_the_words_of_amounts_the_evidence_holds():
    text = "Mix two dozen eggs and a quarter of a litre of milk"
    found = [text[a:b].strip() for a, b in amount_spans(text, {"=24": [0], "=250ml": [0]})]
    assert found == ["two dozen", "a quarter of a litre"]
    assert [text[a:b].strip() for a, b in amount_spans(text, {"=250ml"})] == ["a quarter of a litre"]
    assert amount_spans(text, {"=500ml"}) == []


def test_amount_spans_of_a_counted_noun_stop_before_the_noun():
    text = "Seven hundred fifty thousand people came"
    ((a, b),) = amount_spans(text, {"=750000"})
    assert text[a:b].strip() == "Seven hundred fifty thousand"


RECIPE = "The recipe needs 24 eggs and 250 ml of milk. It takes 45 minutes to bake."


def test_restated_writes_amounts_as_the_evidence_writes_them():
    index = EvidenceIndex(RECIPE)
    text, read = restated("Mix two dozen eggs and a quarter of a litre of milk", index)
    assert text == "Mix 24 eggs and 250 ml of milk"
    assert [(r.mine, r.theirs) for r in read] == [("two dozen", "24"), ("a quarter of a litre", "250 ml")]
    assert [(r.start, r.end) for r in read] == [(4, 13), (23, 43)]  # offsets into the claim as written


def test_restated_reads_a_fraction_of_an_hour():
    text, read = restated("Bake for three quarters of an hour", EvidenceIndex(RECIPE))
    assert text == "Bake for 45 minutes" and [(r.mine, r.theirs) for r in read] == [("three quarters of an hour",
                                                                                     "45 minutes")]


@pytest.mark.parametrize("claim", ["Bake for an hour", "Mix 24 eggs", "Mix three dozen eggs", "Add salt."])
def test_restated_leaves_amounts_the_evidence_lacks_or_already_writes(claim):
    assert restated(claim, EvidenceIndex(RECIPE)) == (claim, ())


def test_index_amounts_as_the_text_first_writes_them():
    amounts = EvidenceIndex(RECIPE).amounts
    assert {k: v.strip() for k, v in amounts.items()} == {"=24": "24", "=250ml": "250 ml", "=0.75h": "45 minutes"}


VACCINE = "The vaccine was approved for adults in 2021. It has not been approved for pregnant women."


def test_index_readings_resolve_a_pronoun_and_texts_stay_verbatim():
    index = EvidenceIndex(VACCINE)
    assert index.texts == ("The vaccine was approved for adults in 2021.",
                           "It has not been approved for pregnant women.")
    assert index.readings == ("The vaccine was approved for adults in 2021.",
                              "The vaccine has not been approved for pregnant women.")
    for s, t in zip(index.sentences, index.texts):
        assert VACCINE[s.start:s.end] == t


def test_index_keys_come_from_the_reading():
    index = EvidenceIndex(VACCINE)
    vaccine = word_key("vaccine")
    assert vaccine in index.keys[1]  # "It" is read as "The vaccine"
    assert index.postings[vaccine] == [0, 1]


def test_index_without_pronouns_reads_its_texts():
    index = EvidenceIndex("Basic costs $9 a month. Pro costs $19 a month.")
    assert index.readings == index.texts
    assert set(index.amounts) == {"=9$", "=19$"}


def test_original_offset_maps_a_restated_claim_back_to_the_claim_as_written():
    claim = "Mix two dozen eggs and a quarter of a litre of goat milk"
    text, read = restated(claim, EvidenceIndex(RECIPE))
    assert text == "Mix 24 eggs and 250 ml of goat milk"
    at = text.index("goat")
    assert claim[original_offset(read, at):original_offset(read, at + 4)] == "goat"  # after both amounts
    at = text.index("24")
    assert claim[original_offset(read, at):original_offset(read, at + 2)] == "two dozen"  # a replaced amount: all of it
    assert original_offset(read, 2) == 2  # before any amount: unchanged

