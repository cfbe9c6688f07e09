"""Shape checks for the round-4 everyday set (``benchmarks.everyday4_cases``, issue 62): sizes, balance, labels.

These tests check the records only; they never run a judge (the set measures judges, it is not tuned to them).
"""

from __future__ import annotations

from collections import Counter

from rt4chart.types import Label

from benchmarks.everyday_cases import Everyday
from benchmarks.everyday4_cases import KINDS, RECORDS

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS


def _and_join(claims: tuple[Label, ...]) -> Label:
    return C if C in claims else N if N in claims else E


def test_size_and_kinds() -> None:
    assert len(RECORDS) >= 150
    assert len(set(KINDS)) == len(KINDS) == 12
    counts = Counter(r.kind for r in RECORDS)
    assert set(counts) == set(KINDS)
    for kind in KINDS:
        assert counts[kind] >= 12, kind


def test_balance_per_kind() -> None:
    for kind in KINDS:
        records = [r for r in RECORDS if r.kind == kind]
        faithful = sum(r.label is E for r in records)
        hallucinated = sum(r.label.hallucinated for r in records)
        assert faithful + hallucinated == len(records), kind
        assert faithful >= 0.4 * len(records), kind
        assert hallucinated >= 0.5 * len(records), kind


def test_records_are_well_formed() -> None:
    for r in RECORDS:
        assert isinstance(r, Everyday)
        assert r.id.startswith("e4-")
        assert r.context.strip() and r.answer.strip()
        assert r.claims and all(c in (E, C, N) for c in r.claims), r.id
        assert r.label in (E, C, N), r.id


def test_unique_ids() -> None:
    ids = [r.id for r in RECORDS]
    assert len(ids) == len(set(ids))


def test_label_is_and_join_of_claims() -> None:
    for r in RECORDS:
        assert r.label is _and_join(r.claims), r.id


def test_most_records_have_a_question() -> None:
    asked = sum(1 for r in RECORDS if r.question)
    assert asked >= 0.75 * len(RECORDS)


def test_no_answer_equals_its_context() -> None:
    for r in RECORDS:
        assert r.answer.strip() != r.context.strip(), r.id


def test_short_answers_have_questions() -> None:
    for r in RECORDS:
        if r.kind == "short-answer":
            assert r.question and r.question.rstrip().endswith("?"), r.id


def test_multi_claim_answers_have_several_claims() -> None:
    for r in RECORDS:
        if r.kind == "multi-claim":
            assert 2 <= len(r.claims) <= 3, r.id
            wrong = sum(c.hallucinated for c in r.claims)
            assert wrong <= 1, r.id
        else:
            assert len(r.claims) == 1, r.id
