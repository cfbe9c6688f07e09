"""The everyday set's shape (``benchmarks.everyday_cases``): enough records of every kind, unique ids, valid labels,
enough faithful records, and one expected claim label per claim the rule decomposer reads. No judge's accuracy is
asserted here: the set measures judges (``benchmarks/everyday.py``), it is never tuned to."""

from __future__ import annotations

from collections import Counter

import pytest

from rt4chart import Label, RuleDecomposer, and_join, split_sentences

from benchmarks.everyday import summarize
from benchmarks.everyday_cases import KINDS, RECORDS, as_records


def test_enough_records_of_every_kind():
    assert len(RECORDS) >= 80
    counts = Counter(r.kind for r in RECORDS)
    assert set(counts) == set(KINDS)
    assert min(counts.values()) >= 3, counts


def test_ids_are_unique_and_numbered():
    ids = [r.id for r in RECORDS]
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("ev-") and i[3:].isdigit() for i in ids)


def test_labels_are_valid_and_the_answer_label_is_their_and_join():
    allowed = {Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS}
    for r in RECORDS:
        assert r.label in allowed and r.claims and set(r.claims) <= allowed, r.id
        assert r.label == and_join(r.claims), r.id


def test_enough_faithful_records_and_every_verdict_occurs():
    labels = Counter(r.label for r in RECORDS)
    assert labels[Label.ENTAILED] >= 20
    assert labels[Label.CONTRADICTED] >= 20 and labels[Label.BASELESS] >= 10
    assert sum(r.label == Label.ENTAILED for r in RECORDS if r.kind == "paraphrase") >= 5


def test_no_answer_copies_its_context():
    for r in RECORDS:
        assert r.answer.strip() not in r.context, r.id


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_one_expected_label_per_rule_decomposer_claim(rec):
    claims = RuleDecomposer().decompose_sync(rec.answer)
    assert len(claims) == len(rec.claims), [c.text for c in claims]
    assert [c.sentence_index for c in claims] == list(range(len(claims)))  # one claim per answer sentence
    if rec.kind == "multi-claim":
        assert len(claims) == 2
    assert 2 <= len(split_sentences(rec.context)) <= 6  # a short document
    assert len(claims) <= 2 and len(split_sentences(rec.answer)) == len(claims)


def test_as_records_is_rt4chart_input():
    records = as_records()
    assert [r["id"] for r in records] == [r.id for r in RECORDS]
    assert all(set(r) == {"id", "context", "question", "answer"} and r["question"] is None for r in records)


def test_summary_counts_from_rows():
    rows = [{"id": "a", "kind": "antonym", "expected": "contradicted", "label": "entailed", "right": False,
             "expected_claims": ["contradicted"], "claims": ["entailed"], "claims_right": 0, "seconds": 0.01},
            {"id": "b", "kind": "paraphrase", "expected": "entailed", "label": "entailed", "right": True,
             "expected_claims": ["entailed", "entailed"], "claims": ["entailed"], "claims_right": None,
             "seconds": 0.03}]
    s = summarize(rows)
    assert (s["right"], s["claims_right"], s["claims_compared"], s["faithful_entailed"]) == (1, 0, 1, 1)
    assert s["kinds"] == {"antonym": (0, 1), "paraphrase": (1, 1)} and s["median_ms"] == pytest.approx(20.0)
