"""The evidence set's shape (``benchmarks.evidence_cases``): enough claims with a deciding sentence, every claim an
exact sentence of its answer, every deciding index a valid sentence of its context (never the first), baseless
exactly when there is none, unique ids. No judge is run here: the set measures judges' evidence order, it is never
tuned to."""

from __future__ import annotations

from collections import Counter

import pytest

from rt4chart import split_sentences
from rt4chart.types import Label

from benchmarks.evidence_cases import RECORDS, EvidenceCase, ExpectedClaim


def _claims() -> list[tuple[EvidenceCase, ExpectedClaim]]:
    return [(r, c) for r in RECORDS for c in r.claims]


def test_enough_records_and_claims_with_a_deciding_sentence():
    assert len(RECORDS) >= 25
    assert all(isinstance(r, EvidenceCase) and r.claims for r in RECORDS)
    assert sum(c.sentence is not None for _, c in _claims()) >= 60


def test_every_label_occurs_in_a_reasonable_mix():
    labels = Counter(c.label for _, c in _claims())
    assert set(labels) == {Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS}
    total = sum(labels.values())
    assert labels[Label.ENTAILED] >= 0.35 * total
    assert labels[Label.CONTRADICTED] >= 0.25 * total
    assert labels[Label.BASELESS] >= 0.08 * total


def test_ids_are_unique_and_numbered():
    ids = [r.id for r in RECORDS]
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("ev-") and i[3:].isdigit() for i in ids)


def test_records_are_frozen():
    with pytest.raises(AttributeError):
        RECORDS[0].id = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        RECORDS[0].claims[0].sentence = 0  # type: ignore[misc]


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_claims_are_substrings_of_the_answer(rec: EvidenceCase):
    for c in rec.claims:
        assert c.text and c.text in rec.answer, c.text


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_one_claim_per_answer_sentence(rec: EvidenceCase):
    assert 1 <= len(rec.claims) <= 4
    assert [s.text for s in split_sentences(rec.answer)] == [c.text for c in rec.claims]


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_deciding_sentences_are_valid_indices_and_not_the_first(rec: EvidenceCase):
    n = len(split_sentences(rec.context))
    assert 4 <= n <= 8, n
    for c in rec.claims:
        if c.sentence is not None:
            assert isinstance(c.sentence, int) and not isinstance(c.sentence, bool), c.text
            assert 1 <= c.sentence < n, c.text


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_baseless_exactly_when_there_is_no_deciding_sentence(rec: EvidenceCase):
    for c in rec.claims:
        assert c.label in (Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS), c.text
        assert (c.label == Label.BASELESS) == (c.sentence is None), c.text


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_no_answer_copies_its_context(rec: EvidenceCase):
    context = rec.context.lower()
    for c in rec.claims:
        assert c.text.lower() not in context, c.text
