"""Records are validated once, in ``rt4chart.io``: a raw mapping becomes a frozen ``Record`` or an ``InputError``
naming the record and the field; a list context is joined there, and only there."""

import asyncio
import dataclasses

import pytest

from rt4chart import Auditor, InputError, LexicalJudge
from rt4chart.io import FieldMap, Row, check_context, checked_rows, context_text, join_context, validate_record
from rt4chart.types import Record


def test_a_valid_record_becomes_a_frozen_record():
    rec = validate_record({"id": 7, "context": ["Paris is in France.", "Rome is in Italy."], "question": "",
                           "answer": "Rome is in Italy.", "task": "QA", "extra": 1})
    assert rec == Record(id=7, context="Paris is in France.\n\nRome is in Italy.", question=None,
                         answer="Rome is in Italy.", task="QA", passages=("Paris is in France.", "Rome is in Italy."))
    assert rec.context == join_context(["Paris is in France.", "Rome is in Italy."])
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.answer = "changed"


def test_a_record_reads_as_a_mapping_of_its_five_fields():
    rec = validate_record({"id": "a", "context": "C.", "answer": "A."})
    assert dict(rec) == {"id": "a", "context": "C.", "question": None, "answer": "A.", "task": None}
    assert rec["answer"] == "A." and rec.get("question") is None and "extra" not in rec
    with pytest.raises(KeyError):
        rec["extra"]
    assert validate_record(rec) == rec  # a Record is a mapping the validator accepts as it is


@pytest.mark.parametrize("raw, index, record, field", [
    ({"context": "C.", "answer": "A."}, 3, "#4", "id"),  # numbered from 1, as lines are
    ({"id": True, "context": "C.", "answer": "A."}, 0, "#1", "id"),
    ({"id": "r", "answer": "A."}, None, "r", "context"),
    ({"id": "r", "context": ["C.", None], "answer": "A."}, None, "r", "context[1]"),
    ({"id": "r", "context": ["C.", 5], "answer": "A."}, None, "r", "context[1]"),
    ({"id": "r", "context": [" ", ""], "answer": "A."}, None, "r", "context"),
    ({"id": "r", "context": "C.", "answer": 3}, None, "r", "answer"),
    ({"id": "r", "context": "C.", "answer": "  "}, None, "r", "answer"),
    ({"id": "r", "context": "C\udc80.", "answer": "A."}, None, "r", "context"),
    ({"id": "r", "context": "C.", "answer": "A.", "question": ["q"]}, None, "r", "question"),
])
def test_a_bad_record_names_the_record_and_the_field(raw, index, record, field):
    with pytest.raises(InputError) as exc:
        validate_record(raw, index)
    assert exc.value.record == record and exc.value.field == field
    assert f"record {record!r}" in str(exc.value) and f"field {field!r}" in str(exc.value)


def test_not_a_mapping_is_named_by_its_position():
    with pytest.raises(InputError, match="must be a JSON object") as exc:
        validate_record(["a list"], 4)
    assert exc.value.record == "#5"


def test_field_names_are_mapped():
    rec = validate_record({"qid": 1, "passage": "C.", "response": "A."},
                          fields=FieldMap(id="qid", context="passage", answer="response"))
    assert (rec.id, rec.context, rec.answer) == (1, "C.", "A.")


def test_checked_rows_yield_records_errors_and_duplicates_in_order():
    rows = [Row(0, {"id": "a", "context": "C.", "answer": "A."}), Row(1, {"id": "b", "context": "C."}),
            Row(2, None, InputError("line 3 is not valid JSON", record="#3")),
            Row(3, {"id": "a", "context": "C.", "answer": "A."})]
    out = list(checked_rows(rows))
    assert isinstance(out[0][1], Record) and out[0][2] == "a"
    assert isinstance(out[1][1], InputError) and out[1][1].field == "answer" and out[1][2] == "b"
    assert isinstance(out[2][1], InputError) and out[2][2] is None
    assert isinstance(out[3][1], InputError) and "duplicate id" in str(out[3][1])


def test_the_auditor_takes_a_record_or_a_mapping_alike():
    auditor = Auditor(judge=LexicalJudge())
    raw = {"id": 1, "context": ["Paris is in France.", "The trial lasts 14 days."],
           "answer": "The trial lasts 30 days."}
    from_mapping = asyncio.run(auditor.audit(raw))
    from_record = asyncio.run(auditor.audit(validate_record(raw)))
    assert from_mapping.model_dump(exclude={"usage"}) == from_record.model_dump(exclude={"usage"})
    assert from_record.context == "Paris is in France.\n\nThe trial lasts 14 days."
    with pytest.raises(InputError) as exc:
        asyncio.run(auditor.audit({"id": 2, "context": "C."}, index=5))
    assert exc.value.record == 2 and exc.value.field == "answer"


def test_readers_with_their_own_contract_share_the_context_checks():
    # the gate and the evaluation datasets: a string, or strings joined as validate_record joins them
    assert context_text(["a", "b"]) == context_text(("a", "b")) == join_context(["a", "b"])
    assert context_text("") == ""  # no emptiness check: that is the reader's contract
    with pytest.raises(InputError) as exc:
        context_text(["a", 1], record="r")
    assert (exc.value.record, exc.value.field) == ("r", "context")
    # facet diagnostics keeps a list context as a list, checked part by part as validate_record checks it
    assert check_context(["a", "b"], record="r") == ["a", "b"]
    for bad, field in ((["a", None], "context[1]"), (["a", "b\udc80"], "context[1]"), ([" "], "context"),
                       (None, "context")):
        with pytest.raises(InputError) as exc:
            check_context(bad, record="r")
        assert exc.value.field == field


def test_parquet_input_reads_typed_values_and_a_list_context(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from rt4chart.io import read_rows

    rows = [{"id": 1, "context": ["Rome is in Italy.", "Oslo."], "answer": "Rome is in Italy."},
            {"id": 2, "context": ["Paris."], "answer": None}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet")
    read = list(read_rows(tmp_path / "in.parquet"))
    assert [r.data for r in read] == [{**rows[0]}, {**rows[1]}]
    (tmp_path / "renamed.bin").write_bytes((tmp_path / "in.parquet").read_bytes())  # found by its magic bytes
    assert [r.data for r in read_rows(tmp_path / "renamed.bin")] == [r.data for r in read]
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 but not really")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        list(read_rows(tmp_path / "bad.parquet"))


def test_parse_rows_names_the_source_file_of_a_bad_line():
    from rt4chart.io import parse_rows

    rows = list(parse_rows(b'{"id": 1}\n{oops\n', "part-2.jsonl", source="part-2.jsonl"))
    assert rows[1].error is not None and str(rows[1].error).startswith("record '#2': part-2.jsonl line 2 ")


def test_repeated_ids_found_elsewhere_are_duplicates_here():
    from rt4chart.io import record_ids

    rows = [Row(0, {"id": "a", "context": "C.", "answer": "A."}), Row(1, {"id": 7, "context": "C."}),
            Row(5, {"id": "7", "context": "C.", "answer": "A."}), Row(6, None, InputError("bad"))]
    assert list(record_ids(rows)) == [(0, "a"), (5, "7")]  # 7 and "7" are one id
    out = list(checked_rows(rows[2:], repeated={5}))
    assert isinstance(out[0][1], InputError) and "duplicate id" in str(out[0][1]) and out[0][2] == "7"
