"""Regression tests for contract breaks found in review: fail-open, resume keys, anchoring, fatal backend errors."""

import asyncio
import json

import pytest
from click.testing import CliRunner

import rt4chart
from rt4chart import Auditor, Judgment, Label, LexicalJudge
from rt4chart.jobs.batch import run_batch
from rt4chart.jobs.resume import completed_keys
from rt4chart.cli import main
from rt4chart.errors import BackendError
from rt4chart.text.align import locate

REC = {"id": "x", "context": "The free trial lasts 14 days.", "answer": "The trial lasts 90 days and costs 5 dollars."}


class NoClaims:
    name = "empty"

    async def decompose(self, answer, *, question=None):
        return []


def test_an_answer_without_claims_is_unverified_not_entailed():
    result = asyncio.run(Auditor(judge=LexicalJudge(), decomposer=NoClaims()).audit(REC))
    assert result.label == Label.UNVERIFIED and not result.hallucinated
    assert result.claims == () and "no claim" in result.errors[0].message


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _good(rid):
    return {"id": rid, "context": "The sky is blue.", "answer": "The sky is blue."}


def test_resume_keeps_duplicate_id_error_rows_apart(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, [_good("a"), _good("b"), _good("a")])
    assert CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q"]).exit_code == 1
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")  # killed before the duplicate's error row
    res = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q", "--resume"])
    assert res.exit_code == 1
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2] and "duplicate id" in rows[2]["error"]["message"]


def test_resume_reports_errors_written_by_earlier_runs(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(src, [_good("a"), {"id": "b", "context": "x"}])
    assert CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q"]).exit_code == 1
    again = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q", "--resume"])
    assert again.exit_code == 1  # nothing new to do, but the output still holds a failed record
    assert len(out.read_text().splitlines()) == 2


def test_completed_keys_truncates_non_object_lines(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "a", "index": 0, "label": "entailed"}\n[1, 2]\n{"id": "c", "index": 2}\n')
    keys, errors = completed_keys(out)
    assert keys == {"id:a"} and errors == 0
    assert out.read_text() == '{"id": "a", "index": 0, "label": "entailed"}\n'


def test_locate_maps_offsets_when_lowercasing_changes_length():
    context = "İstanbul is large. The trial lasts 14 days."
    s, e = locate("the trial LASTS 14 days", context)
    assert context[s:e] == "The trial lasts 14 days"


@pytest.mark.parametrize("quote", ["is", "14", "  .. ", "2023"])
def test_too_short_or_letterless_quotes_never_ground_a_verdict(quote):
    assert locate(quote, "It is 14 days long in 2023.") is None


class RejectingJudge:
    name = "rejecting"

    async def judge(self, claims, evidence, **kw):
        raise BackendError("401 Unauthorized", status=401)


class FlakyJudge:
    name = "flaky"

    async def judge(self, claims, evidence, **kw):
        raise BackendError("500 after 5 attempts", status=500)


def test_a_configuration_error_stops_the_batch(tmp_path):
    with pytest.raises(BackendError):
        run_batch([_good(str(i)) for i in range(5)], Auditor(judge=RejectingJudge()), tmp_path / "o.jsonl")


def test_a_transient_error_only_makes_claims_unverified(tmp_path):
    summary = run_batch([_good(str(i)) for i in range(3)], Auditor(judge=FlakyJudge()), tmp_path / "o.jsonl")
    assert summary.ok == 3 and summary.answer_labels["unverified"] == 3


def test_unwritable_output_is_a_usage_error(tmp_path):
    src = tmp_path / "in.jsonl"
    _write(src, [_good("a")])
    (tmp_path / "a-file").write_text("")
    res = CliRunner().invoke(main, ["audit", str(src), "-o", str(tmp_path / "a-file" / "out.jsonl"), "-q"])
    assert res.exit_code == 2 and "cannot write the output" in res.output


def test_answer_spans_outside_the_answer_are_rejected():
    class Wild:
        name = "wild"

        async def decompose(self, answer, *, question=None):
            return [rt4chart.Claim(index=0, text="x", sentence_index=0,
                                   answer_spans=(rt4chart.Span(start=0, end=len(answer) + 5),))]

    class Yes:
        name = "yes"

        async def judge(self, claims, evidence, **kw):
            return [Judgment(label=Label.ENTAILED, evidence=("The free trial lasts 14 days.",)) for _ in claims]

    result = asyncio.run(Auditor(judge=Yes(), decomposer=Wild()).audit(REC))
    assert result.claims[0].label == Label.UNVERIFIED and "outside the answer" in result.claims[0].reason


def test_an_id_with_a_lone_surrogate_does_not_break_the_output(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": "bad\\ud800", "context": "c", "answer": "a"}\n' + json.dumps(_good("ok")) + "\n")
    assert CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q"]).exit_code == 1
    bad, ok = [json.loads(x) for x in out.read_text().splitlines()]
    assert bad["id"] is None and bad["error"]["field"] == "id" and ok["id"] == "ok"
