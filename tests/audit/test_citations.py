"""Citation checking (``audit.citations``): each status from scripted records, ALCE's recall and precision."""

from __future__ import annotations

import asyncio

import pytest

from rt4chart.audit.citations import CitationStatus, check_citations
from rt4chart.judges.registry import build_auditor

PASSAGES = ["The museum opens at nine in the morning.",
            "Tickets cost twelve euros for adults.",
            "The museum is closed on Mondays."]


def _check(answer: str, passages=PASSAGES):
    auditor = build_auditor("lexical")
    result = asyncio.run(auditor.audit({"id": "r", "context": list(passages), "answer": answer}))
    return asyncio.run(check_citations(result, passages, auditor.judge))


def _statuses(report):
    return [c.status for c in report.claims]


def test_a_claim_its_cited_passage_entails_is_supported():
    report = _check("The museum opens at nine in the morning [1].")
    assert _statuses(report) == [CitationStatus.SUPPORTED]
    assert report.recall == 1.0 and report.precision == 1.0


def test_a_true_claim_citing_the_wrong_passage_is_misattributed():
    report = _check("Tickets cost twelve euros for adults [1].")
    assert _statuses(report) == [CitationStatus.MISATTRIBUTED]
    assert report.recall == 0.0 and report.precision == 0.0


def test_a_claim_its_cited_passage_contradicts_is_contradicted_by_cited():
    report = _check("Tickets cost twenty euros for adults [2].")
    assert _statuses(report) == [CitationStatus.CONTRADICTED_BY_CITED]


def test_a_true_claim_citing_a_passage_about_something_else_is_misattributed_not_contradicted():
    passages = ["The Basic plan includes 2 user seats.", "The Team plan includes 10 user seats and priority support."]
    report = _check("The Team plan comes with 10 user seats and priority support [1].", passages)
    (claim,) = report.claims
    assert claim.status is CitationStatus.MISATTRIBUTED
    assert claim.evidence_passages == (2,) and "passage 2" in claim.reason


def test_a_contradicted_by_cited_status_agrees_with_the_claims_label():
    auditor = build_auditor("lexical")
    for answer in ("Tickets cost twenty euros for adults [2].", "The museum opens at nine in the morning [2].",
                   "The museum shop sells handmade jewellery from Peru [1]."):
        result = asyncio.run(auditor.audit({"id": "r", "context": list(PASSAGES), "answer": answer}))
        report = asyncio.run(check_citations(result, PASSAGES, auditor.judge))
        for verdict, cite in zip(result.claims, report.claims):
            if cite.status is CitationStatus.CONTRADICTED_BY_CITED:
                assert verdict.label.value == "contradicted"
            if verdict.label.value == "entailed":
                assert cite.status in (CitationStatus.SUPPORTED, CitationStatus.MISATTRIBUTED)


def test_a_made_up_claim_with_a_citation_is_unsupported():
    report = _check("The museum shop sells handmade jewellery from Peru [1].")
    assert _statuses(report) == [CitationStatus.UNSUPPORTED]


def test_a_marker_beyond_the_passages_is_invalid():
    report = _check("The museum opens at nine in the morning [7].")
    assert _statuses(report) == [CitationStatus.INVALID] and "passage 7" in report.claims[0].reason


def test_a_claim_without_a_citation_in_a_citing_answer_is_uncited():
    report = _check("The museum opens at nine in the morning [1]. Tickets cost twelve euros for adults.")
    assert _statuses(report) == [CitationStatus.SUPPORTED, CitationStatus.UNCITED]
    assert report.recall == 0.5


def test_a_needless_second_citation_is_irrelevant_for_precision():
    report = _check("The museum opens at nine in the morning [1][2].")
    (claim,) = report.claims
    assert claim.status is CitationStatus.SUPPORTED and claim.passages == (1, 2) and claim.relevant == (1,)
    assert report.precision == 0.5 and report.to_json()["counts"]["supported"] == 1


def test_an_answer_without_markers_needs_no_citation():
    report = _check("The museum opens at nine in the morning.")
    assert _statuses(report) == [CitationStatus.NOT_NEEDED] and report.recall is None and report.precision is None


def test_the_misattributed_claim_names_the_passage_its_evidence_is_in():
    report = _check("Tickets cost twelve euros for adults [1].")
    assert report.claims[0].evidence_passages == (2,)
    assert report.to_json()["claims"][0]["evidence_passages"] == [2]


def test_an_auditor_that_checks_citations_writes_them_into_the_result():
    auditor = build_auditor("lexical", citations=True)
    listed = asyncio.run(auditor.audit({"id": "r", "context": PASSAGES,
                                        "answer": "Tickets cost twelve euros for adults [1]."}))
    assert listed.citation_check.counts["misattributed"] == 1
    assert listed.to_json()["citation_check"]["claims"][0]["passages"] == [1]
    # a string context has no passages to cite: no check, and no key in the output
    joined = asyncio.run(auditor.audit({"id": "s", "context": " ".join(PASSAGES),
                                        "answer": "Tickets cost twelve euros."}))
    assert joined.citation_check is None and "citation_check" not in joined.to_json()
    # the check is part of what a baseline result must match
    assert auditor.fingerprint != build_auditor("lexical").fingerprint
    off = asyncio.run(build_auditor("lexical", citations=False).audit(
        {"id": "r", "context": PASSAGES, "answer": "Tickets cost twelve euros for adults [1]."}))
    assert off.citation_check is None and off.label == listed.label


def test_by_default_an_answer_with_markers_over_passages_has_its_citations_checked():
    auditor = build_auditor("lexical")
    cited = asyncio.run(auditor.audit({"id": "r", "context": PASSAGES,
                                       "answer": "Tickets cost twelve euros for adults [1]."}))
    assert cited.citation_check.counts["misattributed"] == 1
    # no marker: nothing to check, so no key in the output
    plain = asyncio.run(auditor.audit({"id": "s", "context": PASSAGES, "answer": "Tickets cost twelve euros."}))
    assert plain.citation_check is None and "citation_check" not in plain.to_json()
    assert len({auditor.fingerprint, build_auditor("lexical", citations=True).fingerprint,
                build_auditor("lexical", citations=False).fingerprint}) == 3


def _checked(record):
    auditor = build_auditor("lexical", citations=True)
    return asyncio.run(auditor.audit({"id": "p", "context": PASSAGES, **record})).citation_check.model_dump(mode="json")


def test_anthropic_content_blocks_cite_by_document_index_from_zero():
    check = _checked({"answer": [
        {"type": "text", "text": "Tickets cost twelve euros for adults.",
         "citations": [{"type": "char_location", "cited_text": "Tickets cost twelve euros", "document_index": 1}]},
        {"type": "text", "text": " The museum is closed on Mondays.",
         "citations": [{"type": "char_location", "cited_text": "closed", "document_index": 0}]}]})
    assert [(c["passages"], c["status"]) for c in check["claims"]] == [([2], "supported"), ([1], "misattributed")]


def test_cohere_spans_cite_sources_by_passage_id():
    answer = "Tickets cost twelve euros for adults. The museum opens at nine in the morning."
    check = _checked({"answer": answer, "passage_ids": ["doc_a", "doc_b", "doc_c"], "citations": [
        {"start": 0, "end": 36, "text": answer[:36], "sources": [{"type": "document", "id": "doc_b"}]},
        {"start": 38, "end": len(answer) - 1, "text": "x", "document_ids": ["doc_c"]}]})
    assert [(c["passages"], c["status"]) for c in check["claims"]] == [([2], "supported"), ([3], "misattributed")]


def test_openai_file_citations_cite_the_claim_before_their_index():
    answer = "Tickets cost twelve euros for adults. The museum opens at nine in the morning."
    check = _checked({"answer": answer, "passage_ids": ["f1", "f2", "f3"], "citations": [
        {"type": "file_citation", "index": 37, "file_id": "f2"},
        {"type": "url_citation", "start_index": 38, "end_index": len(answer), "url": "https://nowhere.example"}]})
    assert [(c["passages"], c["status"]) for c in check["claims"]] == [([2], "supported"), ([0], "invalid")]


def test_given_citations_join_the_inline_markers_of_the_same_claim():
    check = _checked({"answer": "Tickets cost twelve euros for adults [1].",
                      "citations": [{"start": 0, "end": 36, "passages": [2]}]})
    assert sorted(check["claims"][0]["passages"]) == [1, 2]


@pytest.mark.parametrize("record, field, message", [
    ({"citations": "doc_a"}, "citations", "must be a list"),
    ({"citations": [3]}, "citations[0]", "must be an object"),
    ({"citations": [{"passages": [1]}]}, "citations[0]", "needs its answer offsets"),
    ({"citations": [{"start": 0, "end": 999, "passages": [1]}]}, "citations[0]", "outside the answer"),
    ({"passage_ids": ["a"]}, "passage_ids", "one id per passage"),
    ({"answer": [{"type": "image"}]}, "answer[0]", "text block"),
])
def test_a_bad_citation_field_names_the_record_and_the_field(record, field, message):
    from rt4chart.errors import InputError
    from rt4chart.io import validate_record

    with pytest.raises(InputError, match=message) as err:
        validate_record({"id": "bad", "context": PASSAGES, "answer": "Tickets cost twelve euros.", **record})
    assert err.value.field == field and err.value.record == "bad"


def test_a_bad_citations_field_beside_content_blocks_is_an_error_too():
    from rt4chart.errors import InputError
    from rt4chart.io import validate_record

    blocks = [{"type": "text", "text": "Tickets cost twelve euros.", "citations": [{"document_index": 1}]}]
    with pytest.raises(InputError, match="must be a list") as err:
        validate_record({"id": "bad", "context": PASSAGES, "answer": blocks, "citations": "doc_a"})
    assert err.value.field == "citations"
    rec = validate_record({"id": "ok", "context": PASSAGES, "answer": blocks,
                           "citations": [{"start": 0, "end": 5, "passages": [3]}]})
    assert [c.passages for c in rec.citations] == [(2,), (3,)]
