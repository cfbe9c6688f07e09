"""Two runs compared: each id's status and change, the counts, the rate and the claim flips."""

from __future__ import annotations

import json

import pytest
from diff_helpers import EXPECTED, SHORT, TRIAL, ENT, result, two_runs, write

from rt4chart.diff import CHANGES, STATUSES, diff_files
from rt4chart.errors import InputError


def test_every_status_and_change_on_constructed_runs(tmp_path):
    diff = diff_files(*two_runs(tmp_path))
    assert {r.id: (r.status, r.change) for r in diff.records} == EXPECTED
    assert [r.id for r in diff.records][:9] == list(EXPECTED)[:9]  # the earlier run's order, then the new ids
    counts = diff.counts
    assert list(counts) == [*STATUSES, *CHANGES]
    assert counts == {"newly_hallucinated": 1, "fixed": 1, "still_hallucinated": 2, "needs_review": 0,
                      "not_hallucinated": 3,
                      "errored": 1, "only_before": 1, "only_after": 1, "answer_changed": 2, "label_flip": 1,
                      "claims_changed": 2, "evidence_changed": 1, "unchanged": 1}
    assert sum(counts[s] for s in STATUSES) == len(EXPECTED)
    assert sum(counts[c] for c in CHANGES) == len(diff.common) == 7
    assert diff.claims == {"paired": 8, "flipped": 4, "worse": 1, "better": 2, "added": 0, "removed": 0,
                           "reworded": 1}
    assert diff.rate == {"records": 7, "before": round(3 / 7, 6), "after": round(3 / 7, 6), "change": 0.0}
    assert diff.unmatched_errors == {"before": 0, "after": 1}
    assert (diff.before.results, diff.after.results, diff.after.errors, diff.after.judges) == (9, 8, 2, ("local",))


def test_the_json_document(tmp_path):
    doc = diff_files(*two_runs(tmp_path)).to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert set(doc) == {"before", "after", "counts", "rate", "claims", "unmatched_errors", "rules", "records"}
    by_id = {r["id"]: r for r in doc["records"]}
    newly = by_id["newly"]
    assert newly["label"] == {"before": "entailed", "after": "contradicted"} and newly["answer_changed"] is True
    assert newly["claims"] == [{"before": 0, "after": 0, "change": "flipped", "similarity": newly["claims"][0]
                                ["similarity"], "label": {"before": "entailed", "after": "contradicted"},
                                "text": {"before": "The free trial lasts 14 days.",
                                         "after": "The free trial lasts 30 days."}}]
    assert by_id["errored"]["error"] == {"after": "the judge failed"} and "claims" not in by_id["errored"]
    assert by_id["gone"]["line"] == {"before": 9, "after": None}


def test_ids_match_as_text_and_a_run_compared_with_itself_is_unchanged(tmp_path):
    before = write(tmp_path / "b.jsonl", [result(7, SHORT, [(SHORT, ENT, TRIAL)])])
    after = write(tmp_path / "a.jsonl", [result("7", SHORT, [(SHORT, ENT, TRIAL)])])
    assert [(r.status, r.change) for r in diff_files(before, after).records] == [("not_hallucinated", "unchanged")]
    same = diff_files(*(2 * two_runs(tmp_path)[:1]))
    assert same.counts["unchanged"] == same.counts["not_hallucinated"] + same.counts["still_hallucinated"] == 9


def test_bad_files_are_named_by_file_line_and_field(tmp_path):
    good, _ = two_runs(tmp_path)
    dup = write(tmp_path / "dup.jsonl", [result("x", SHORT, [(SHORT, ENT, TRIAL)])] * 2)
    with pytest.raises(InputError, match=r"dup.jsonl line 2', field 'id': duplicate id \(also on line 1\)"):
        diff_files(good, dup)
    no_id = tmp_path / "no_id.jsonl"
    no_id.write_text(json.dumps({k: v for k, v in result("x", SHORT, []).items() if k != "id"}) + "\n")
    with pytest.raises(InputError, match=r"no_id.jsonl line 1', field 'id': is missing"):
        diff_files(no_id, good)
    csv = tmp_path / "results.csv"
    csv.write_text("id,label\nx,entailed\n")
    with pytest.raises(InputError, match=r"results.csv line 1'.*not valid JSON"):
        diff_files(good, csv)


def test_doctests():
    import doctest

    import rt4chart.diff

    failures, tried = doctest.testmod(rt4chart.diff)
    assert tried > 0 and failures == 0
