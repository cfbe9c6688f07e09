"""The local judge's feature columns: named groups in their places, the rule and kind codes, explicit evidence."""

from __future__ import annotations

import json

import numpy as np

from rt4chart.evidence import Kind, Rule
from rt4chart.judges.local import features as F

CTX = ("The free trial lasts 14 days. After the trial, the Pro plan costs 12 dollars a month. "
       "Refunds are not available for annual plans.")


def test_column_groups_stand_where_their_names_say():
    assert F.FEATURES == F.WORD_FEATURES + F.CLAIM_FEATURES + F.RECORD_FEATURES
    assert len(set(F.FEATURES)) == len(F.FEATURES) and len(set(F.CLAIM_MODEL_FEATURES)) == len(F.CLAIM_MODEL_FEATURES)
    rows = F.claim_rows("The Pro plan costs 14 dollars a month.", CTX, "How much is the Pro plan?", index=2,
                        sentence=1, start=40)
    m = rows.matrix
    col = F.FEATURES.index
    assert m.shape == (len(rows.spans), len(F.FEATURES)) and m.dtype == np.float32
    assert (m[:, col("c_index")] == 2).all() and (m[:, col("c_sentence")] == 1).all()
    assert np.allclose(m[:, col("c_start")], np.log1p(40))
    assert (m[:, col("c_words")] == len(rows.spans)).all()
    assert (m[:, col("r_question_words")] == 6).all()
    assert m[:, col("w_number")].tolist() == [float(t == "14") for t in ("the", "pro", "plan", "costs", "14",
                                                                         "dollars", "a", "month")]
    probs = [np.linspace(0.1, 0.8, len(rows.spans), dtype=np.float32)]
    cm = F.claim_matrix(probs, [rows])
    ccol = F.CLAIM_MODEL_FEATURES.index
    assert cm[0, ccol("p_max")] == np.float32(0.8) and cm[0, ccol("c_n_words")] == len(rows.spans)
    assert cm[0, ccol("a_claims")] == 1 and cm[0, ccol("a_other_max")] == 0
    # the claim and record columns are copied from the first word row, by name
    for name in F.CLAIM_FEATURES + F.RECORD_FEATURES:
        assert cm[0, ccol(name)] == m[0, col(name)], name


def test_rule_and_kind_codes_are_positions_in_the_enums():
    rows = F.claim_rows("The Pro plan costs 15 dollars a month.", CTX, None)
    assert rows.rule is Rule.NUMBER_CONFLICT and rows.assessment.kind is Kind.SCORED
    assert rows.matrix[0, F.FEATURES.index("c_rule")] == list(Rule).index(Rule.NUMBER_CONFLICT) == 2
    assert rows.matrix[0, F.FEATURES.index("c_kind")] == list(Kind).index(Kind.SCORED) == 4
    assert F.RULES == tuple(r.value for r in Rule)
    meta = F.claim_rows("Sure! Here is a summary.", CTX, None)
    assert meta.rule is Rule.UNVERIFIED and meta.matrix[0, F.FEATURES.index("c_kind")] == 0


def test_explicit_evidence_gives_the_rows_of_its_text():
    ev = F.FeatureEvidence(CTX)
    for claim in ("The free trial lasts 30 days.", "Refunds are available for annual plans.", "It is free."):
        a, b = F.claim_rows(claim, ev, None, index=1), F.claim_rows(claim, CTX, None, index=1)
        assert a.matrix.tobytes() == b.matrix.tobytes() and a.rule == b.rule and a.assessment == b.assessment
    assert [s.text for s in F.sentences_of(CTX)] == list(ev.index.texts) and ev.numbers == {"14", "12"}


def test_a_text_is_read_for_its_call_alone(monkeypatch):
    """``claim_rows`` keeps nothing between calls: each call given a text reads it again, a ``FeatureEvidence``
    is read by none."""
    built = []
    init = F.FeatureEvidence.__init__
    monkeypatch.setattr(F.FeatureEvidence, "__init__", lambda self, text: (built.append(text), init(self, text))[1])
    ev = F.FeatureEvidence(CTX)
    for _ in range(2):
        F.claim_rows("The free trial lasts 30 days.", CTX, None)
        F.claim_rows("The free trial lasts 30 days.", ev, None)
    assert built == [CTX] * 3


def test_a_record_reads_the_same_as_indented_json_on_one_line_or_as_a_python_literal():
    record = {"name": "Blue Harbor", "hours": None, "attributes": {"OutdoorSeating": False, "WiFi": "free",
              "Parking": {"garage": False, "street": True}}, "stars": 4.5}
    shapes = [json.dumps(record, indent=2), json.dumps(record), repr(record)]
    evidence = [F.FeatureEvidence(text) for text in shapes]
    assert evidence[0].false_keys == {"hour", "outdo", "seat", "garag"}  # word keys (stems)
    assert all(ev.false_keys == evidence[0].false_keys for ev in evidence)
    # the colon-lines share and the sentence count are the same; the length in characters is not (indentation)
    assert {(ev.record[1], ev.record[2], ev.record[3]) for ev in evidence} == {evidence[0].record[1:]}
