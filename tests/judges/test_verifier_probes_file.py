"""Shape checks for the held-out verifier probe file (contrast pairs never trained on).

Only the file's form is tested here; whether a verifier passes the probes is measured elsewhere."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

PROBES = Path(__file__).parent / "data" / "verifier_probes.jsonl"
KINDS = {
    "negation", "antonym", "number-form", "restriction", "modality", "role-swap",
    "comparison", "pronoun", "absent-detail", "short-answer", "cause", "quantifier",
}
LABELS = {"contradicted", "neutral"}
FIELDS = {"id", "kind", "premise", "faithful", "changed", "changed_label"}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    lines = PROBES.read_text(encoding="utf-8").splitlines()
    assert all(line.strip() for line in lines), "blank line in the probe file"
    return [json.loads(line) for line in lines]


def test_at_least_120_pairs(rows):
    assert len(rows) >= 120


def test_fields_are_exactly_the_schema(rows):
    for row in rows:
        assert set(row) == FIELDS, row.get("id")
        for key in FIELDS:
            assert isinstance(row[key], str), (row["id"], key)


def test_ids_unique_and_numbered_in_order(rows):
    ids = [row["id"] for row in rows]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"vp-\d{3}", i) for i in ids)
    assert [int(i[3:]) for i in ids] == list(range(1, len(ids) + 1))


def test_every_kind_named_and_has_ten_pairs(rows):
    counts = Counter(row["kind"] for row in rows)
    assert set(counts) == KINDS
    assert all(counts[k] >= 10 for k in KINDS), counts


def test_labels_valid(rows):
    assert {row["changed_label"] for row in rows} <= LABELS
    for row in rows:
        if row["kind"] in {"absent-detail", "cause"}:
            assert row["changed_label"] == "neutral", row["id"]
        if row["kind"] in {"role-swap", "restriction", "short-answer"}:
            assert row["changed_label"] == "contradicted", row["id"]


def test_texts_non_empty_and_pairs_differ(rows):
    for row in rows:
        for key in ("premise", "faithful", "changed"):
            assert row[key].strip(), (row["id"], key)
        assert row["faithful"].strip() != row["changed"].strip(), row["id"]
        assert row["premise"].strip() != row["changed"].strip(), row["id"]


def test_no_two_pairs_identical(rows):
    pairs = [(r["premise"], r["faithful"], r["changed"]) for r in rows]
    assert len(set(pairs)) == len(pairs)
    faithful = [(r["premise"], r["faithful"]) for r in rows]
    assert len(set(faithful)) == len(faithful)
