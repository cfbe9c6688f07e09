"""Shape checks for the assistant-style set (``benchmarks.assistant_cases``, issue 61): sizes, balance, ids, labels
and the surface each kind promises. No judge runs here; these tests say nothing about accuracy."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from benchmarks.assistant_cases import KINDS, RECORDS
from benchmarks.everyday_cases import Everyday
from rt4chart.types import Label

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

MIN_PER_KIND = 10
MARKER = re.compile(r"\[\^?\d+\]|\[\d+(?:,\s*\d+)+\]|【\d+】|\(Source \d+\)")
PARTICLE = re.compile(r"^(yes|no|nope|not quite|not necessarily|correct|sure|sure thing|of course|absolutely|"
                      r"no problem|no worries|okay|right)\b", re.IGNORECASE)
YES_NO_OPENERS = ("can ", "could ", "do ", "does ", "did ", "is ", "are ", "was ", "were ", "will ", "should ",
                  "may ", "has ", "have ", "so ")


def _by_kind(kind: str) -> list[Everyday]:
    return [r for r in RECORDS if r.kind == kind]


def _and_join(claims: tuple[Label, ...]) -> Label:
    return C if C in claims else N if N in claims else E


def test_size_and_kinds() -> None:
    assert len(KINDS) == 7 == len(set(KINDS))
    assert len(RECORDS) >= 70
    assert {r.kind for r in RECORDS} == set(KINDS)
    assert all(isinstance(r, Everyday) for r in RECORDS)


@pytest.mark.parametrize("kind", KINDS)
def test_kind_size_and_balance(kind: str) -> None:
    records = _by_kind(kind)
    assert len(records) >= MIN_PER_KIND
    faithful = sum(r.label is E for r in records)
    hallucinated = sum(r.label.hallucinated for r in records)
    assert faithful + hallucinated == len(records)
    assert faithful / len(records) >= 0.4, (kind, faithful, len(records))
    assert hallucinated / len(records) >= 0.5, (kind, hallucinated, len(records))


def test_ids_unique_and_numbered() -> None:
    ids = [r.id for r in RECORDS]
    assert len(ids) == len(set(ids))
    assert ids == [f"as-{i:02d}" for i in range(1, len(ids) + 1)]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_label_is_and_join_of_claims(record: Everyday) -> None:
    assert record.claims, record.id
    assert all(c in (E, C, N) for c in record.claims)
    assert record.label is _and_join(record.claims)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_answer_is_not_its_context(record: Everyday) -> None:
    assert record.answer.strip() != record.context.strip()
    assert record.answer.strip() not in record.context
    assert record.context.strip() and record.answer.strip()


def test_most_records_have_a_question() -> None:
    with_question = sum(r.question is not None for r in RECORDS)
    assert with_question / len(RECORDS) >= 0.75
    for r in RECORDS:
        assert r.question is None or r.question.strip().endswith("?"), r.id


def test_particle_question_records_ask_yes_no_questions() -> None:
    for r in _by_kind("particle-question"):
        assert r.question is not None, r.id
        assert r.question.lower().startswith(YES_NO_OPENERS), r.id
        assert PARTICLE.match(r.answer), r.id
        # the particle is a claim of its own, followed by at least one sentence
        assert len(r.claims) >= 2, r.id


def test_particle_bare_records_have_no_yes_no_question() -> None:
    records = _by_kind("particle-bare")
    assert any(r.question is None for r in records)
    assert any(r.question is not None for r in records)
    for r in records:
        assert PARTICLE.match(r.answer), r.id
        if r.question is not None:
            assert not r.question.lower().startswith(YES_NO_OPENERS), r.id


def test_citation_marker_answers_carry_markers() -> None:
    records = _by_kind("citation-marker")
    for r in records:
        assert MARKER.search(r.answer), r.id
    styles = {m.group(0)[0] + ("^" if "^" in m.group(0) else "") + ("," if "," in m.group(0) else "")
              for r in records for m in MARKER.finditer(r.answer)}
    assert {"[", "[^", "[,", "【", "("} <= styles
    assert any(re.search(r"\.\s*\[\d+\]", r.answer) for r in records), "a marker after the full stop"
    assert any(re.search(r"\]\[", r.answer) for r in records), "adjacent markers"


def test_markdown_answers_are_markdown() -> None:
    records = _by_kind("markdown")
    table = [r for r in records if re.search(r"^\|.*\|\s*$", r.answer, re.M)
             and re.search(r"^\|\s*:?-{3,}", r.answer, re.M)]
    bullets = [r for r in records if re.search(r"^[-*] ", r.answer, re.M)]
    assert len(table) >= 3 and len(bullets) >= 3
    assert any(re.search(r"^## ", r.answer, re.M) for r in records)
    assert any("**" in r.answer for r in records)
    assert any(re.search(r"(?<!\*)\*[^*\s][^*]*\*(?!\*)", r.answer) for r in records)
    for r in records:
        assert re.search(r"^\||^[-*] |\*\*|^## ", r.answer, re.M), r.id


def test_derived_and_number_form_hallucinations_are_contradicted() -> None:
    for kind in ("number-form", "derived", "pronoun"):
        for r in _by_kind(kind):
            assert r.label in (E, C), r.id


def test_both_hallucination_labels_appear_where_invention_is_possible() -> None:
    for kind in ("citation-marker", "markdown", "particle-question", "particle-bare"):
        labels = Counter(r.label for r in _by_kind(kind))
        assert labels[C] >= 1 and labels[N] >= 1, kind
