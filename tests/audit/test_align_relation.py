"""Evidence anchoring and the retromorphic relation."""

import pytest

from rt4chart import AuditResult, ClaimVerdict, Evidence, Label, RelationError, Span, check_relation, split_sentences
from rt4chart.audit.relation import violations
from rt4chart.text.align import anchor, locate

CTX = "Alpha is first.  The free trial\nlasts 14 days. Omega is last."


def test_locate_exact_and_whitespace_case_insensitive():
    assert locate("Omega is last.", CTX) == (CTX.index("Omega"), len(CTX))
    s, e = locate("the free trial lasts 14 days", CTX)
    assert CTX[s:e] == "The free trial\nlasts 14 days"
    assert locate("Gamma", CTX) is None
    assert locate("", CTX) is None


def test_locate_respects_window():
    start = CTX.index("The")
    assert locate("Alpha is first", CTX, start=start) is None


def test_anchor_maps_sentence_ids_and_reports_missing():
    sents = split_sentences(CTX)
    found, missing = anchor(["lasts 14 days", "not there", "lasts 14 days"], CTX, sents)
    assert missing == ["not there"]
    assert len(found) == 1
    ev = found[0]
    assert CTX[ev.start:ev.end] == ev.text and ev.sentence_ids == (1,)
    found, _ = anchor(["first.  The free"], CTX, sents)
    assert found[0].sentence_ids == (0, 1)


def _result(claims, context=CTX, answer="The trial lasts 14 days."):
    return AuditResult(id=1, label=Label.ENTAILED, hallucinated=False, claims=tuple(claims), context=context,
                       answer=answer)


def _verdict(label, evidence=(), spans=((0, 5),)):
    return ClaimVerdict(index=0, text="x", sentence_index=0, label=label, evidence=tuple(evidence),
                        answer_spans=tuple(Span(start=s, end=e) for s, e in spans))


def test_relation_holds_for_grounded_evidence():
    s = CTX.index("Omega")
    ok = _result([_verdict(Label.ENTAILED,
                           [Evidence(start=s, end=len(CTX), text="Omega is last.", sentence_ids=(2,))])])
    assert check_relation(ok) is ok


@pytest.mark.parametrize("verdict,needle", [
    (_verdict(Label.ENTAILED, [Evidence(start=0, end=5, text="Omega", sentence_ids=(0,))]), "not found"),
    (_verdict(Label.ENTAILED, [Evidence(start=0, end=5, text="Alpha", sentence_ids=(2,))]), "sentence ids"),
    (_verdict(Label.BASELESS, [Evidence(start=0, end=5, text="Alpha", sentence_ids=(0,))]), "Eq. 1"),
    (_verdict(Label.CONTRADICTED), "no evidence"),
    (_verdict(Label.BASELESS, spans=((3, 99),)), "outside the answer"),
])
def test_relation_violations(verdict, needle):
    result = _result([verdict])
    assert any(needle in v for v in violations(result))
    with pytest.raises(RelationError):
        check_relation(result)
