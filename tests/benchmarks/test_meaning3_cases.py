"""The round-3 everyday set's shape (``benchmarks.meaning3_cases``, issue 52): the six kinds, each with at least 8
hallucinated records and 4 faithful look-alikes, unique ids, valid labels whose AND-join is the answer label, short
documents, and one expected claim label per claim the rule decomposer reads (one claim per answer sentence). No
judge's accuracy is asserted here: the set measures judges (``benchmarks/everyday.py --set meaning3``), it is never
tuned to."""

from __future__ import annotations

from collections import Counter

import pytest

from rt4chart import Label, RuleDecomposer, and_join, split_sentences

from benchmarks import everyday_cases
from benchmarks.meaning3_cases import KINDS, RECORDS, as_records


def test_enough_records_of_every_kind():
    assert len(RECORDS) >= 72
    assert KINDS == ("restriction", "cross-negation", "number-form", "coordinated-swap", "modality",
                     "absent-subject")
    counts = Counter(r.kind for r in RECORDS)
    assert set(counts) == set(KINDS)
    for kind in KINDS:
        of_kind = [r for r in RECORDS if r.kind == kind]
        assert len(of_kind) >= 12, kind
        assert sum(r.label != Label.ENTAILED for r in of_kind) >= 8, kind  # the positive case
        assert sum(r.label == Label.ENTAILED for r in of_kind) >= 4, kind  # faithful look-alikes


def test_the_hallucinated_label_of_each_kind():
    for r in RECORDS:
        if r.label == Label.ENTAILED or r.kind == "number-form":
            continue
        expected = Label.BASELESS if r.kind == "absent-subject" else Label.CONTRADICTED
        assert r.label == expected, r.id


def test_some_answers_mix_a_faithful_and_a_hallucinated_claim():
    mixed = [r for r in RECORDS if Label.ENTAILED in r.claims and r.label != Label.ENTAILED]
    assert len(mixed) >= 4
    assert len({r.kind for r in mixed}) >= 4


def test_ids_are_unique_and_numbered():
    ids = [r.id for r in RECORDS]
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("m3-") and i[3:].isdigit() for i in ids)


def test_labels_are_valid_and_the_answer_label_is_their_and_join():
    allowed = {Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS}
    for r in RECORDS:
        assert r.label in allowed and r.claims and set(r.claims) <= allowed, r.id
        assert r.label == and_join(r.claims), r.id


def test_no_answer_copies_its_context_or_the_everyday_set():
    everyday = {r.answer for r in everyday_cases.RECORDS} | {r.context for r in everyday_cases.RECORDS}
    for r in RECORDS:
        assert r.answer.strip() not in r.context, r.id
        assert r.answer not in everyday and r.context not in everyday, r.id


@pytest.mark.parametrize("rec", RECORDS, ids=[r.id for r in RECORDS])
def test_one_expected_label_per_rule_decomposer_claim(rec):
    claims = RuleDecomposer().decompose_sync(rec.answer)
    assert len(claims) == len(rec.claims), [c.text for c in claims]
    assert [c.sentence_index for c in claims] == list(range(len(claims)))  # one claim per answer sentence
    assert 1 <= len(split_sentences(rec.context)) <= 4  # a short document
    assert 1 <= len(claims) <= 3 and len(split_sentences(rec.answer)) == len(claims)


def test_as_records_is_rt4chart_input():
    records = as_records()
    assert [r["id"] for r in records] == [r.id for r in RECORDS]
    assert all(set(r) == {"id", "context", "question", "answer"} and r["question"] is None for r in records)


def test_the_runner_reads_the_set_and_orders_its_kinds():
    from benchmarks.everyday import SETS, summarize

    assert SETS["meaning3"] == (RECORDS, KINDS)
    assert SETS["everyday"] == (everyday_cases.RECORDS, everyday_cases.KINDS)
    rows = [{"id": r.id, "kind": r.kind, "expected": r.label.value, "label": "entailed",
             "right": r.label == Label.ENTAILED, "expected_claims": [c.value for c in r.claims],
             "claims": ["entailed"] * len(r.claims), "claims_right": sum(c == Label.ENTAILED for c in r.claims),
             "seconds": 0.01} for r in reversed(RECORDS)]
    s = summarize(rows, KINDS)
    assert list(s["kinds"]) == list(KINDS)
    assert s["faithful_entailed"] == s["faithful"] == sum(r.label == Label.ENTAILED for r in RECORDS)
    assert sum(right for right, _ in s["kinds"].values()) == s["right"] == s["faithful"]
