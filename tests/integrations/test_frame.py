"""``audit_frame`` and ``triage_frame``: a DataFrame in, the same DataFrame with result columns out, through the
local engine's per-record path (so a DataFrame and a JSONL file give the same lines)."""

import doctest
import json
import subprocess
import sys

import pytest

import rt4chart
from rt4chart.jobs.batch import run_batch
from rt4chart.errors import ConfigError
from rt4chart.integrations.frame import RESULT_COLUMNS, result_columns
from rt4chart.io import FieldMap
from rt4chart.judges.registry import build_auditor

pd = pytest.importorskip("pandas")

RECORDS = [
    {"qid": 10, "passage": ["The free trial lasts 14 days.", "Refunds take 5 days."],
     "ask": "How long is the trial?", "reply": "The free trial lasts 30 days."},
    {"qid": 11, "passage": "Paris is the capital of France.", "ask": None, "reply": "Paris is the capital of France."},
    {"qid": 12, "passage": "Rome is in Italy.", "ask": None, "reply": None},  # no answer: an error row
    {"qid": 10, "passage": "Rome is in Italy.", "ask": None, "reply": "Rome is in Italy."},  # a repeated id
]
NAMES = {"id": "qid", "context": "passage", "question": "ask", "answer": "reply"}


def _frame() -> "pd.DataFrame":
    return pd.DataFrame(RECORDS, index=["a", "b", "c", "d"]).assign(keep=[1.5, 2.5, 3.5, 4.5])


def test_audit_frame_round_trips_custom_column_names_and_matches_the_local_engine(tmp_path):
    df = _frame()
    out = rt4chart.audit_frame(df, judge="lexical", **NAMES)
    # the input comes back as it was (names, index, values); the result columns are added after it
    assert list(out.columns) == [*df.columns, *RESULT_COLUMNS]
    assert list(out.index) == list(df.index)
    pd.testing.assert_frame_equal(out[df.columns], df)
    # the same records through `rt4chart audit` (JSONL, the same field names) give the same flat columns
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    run_batch(RECORDS, build_auditor("lexical"), tmp_path / "out.jsonl", fields=FieldMap(**NAMES))
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    for (_, row), line in zip(out.iterrows(), lines):
        expected = result_columns(line)
        got = {name: row[name] for name in RESULT_COLUMNS}
        got = {k: (None if v is pd.NA else v) for k, v in got.items()}
        assert got == expected
    assert out.loc["a", "label"] == "contradicted" and bool(out.loc["a", "hallucinated"])
    assert out.loc["a", "n_claims"] == 1 and out.loc["a", "spans"] and 0.0 <= out.loc["a", "score"] <= 1.0
    assert out.loc["b", "label"] == "entailed" and not bool(out.loc["b", "hallucinated"])


def test_bad_rows_give_error_columns_naming_the_record_and_the_field():
    out = rt4chart.audit_frame(_frame(), judge="lexical", **NAMES)
    assert out.loc["c", "label"] is None and out.loc["c", "hallucinated"] is pd.NA
    assert out.loc["c", "error_field"] == "reply" and "record 12" in out.loc["c", "error"]
    assert out.loc["c", "error_kind"] == "input"
    assert out.loc["d", "error_field"] == "qid" and "duplicate id" in out.loc["d", "error"]
    assert out["error"].isna().tolist() == [True, True, False, False]


def test_cells_pandas_fills_in_are_read_as_missing():
    # NaN for a missing question, numpy integers for ids, a numpy array for a list context (as from Parquet)
    import numpy as np

    df = pd.DataFrame({"id": np.array([1, 2], dtype="int64"), "question": [np.nan, "Where is Rome?"],
                       "context": [np.array(["Rome is in Italy.", "Paris is in France."]), "Rome is in Italy."],
                       "answer": ["Rome is in Italy.", "Rome is in Spain."]})
    out = rt4chart.audit_frame(df, judge="lexical")
    assert out["error"].isna().all(), out["error"].tolist()
    assert out["label"].tolist() == ["entailed", "contradicted"]


def test_a_result_column_the_frame_already_has_is_refused():
    df = _frame().assign(label="gold")
    with pytest.raises(ConfigError, match="label"):
        rt4chart.audit_frame(df, judge="lexical", **NAMES)


def test_audit_frame_runs_inside_an_event_loop():
    import asyncio

    async def inside() -> "pd.DataFrame":
        return rt4chart.audit_frame(_frame(), judge="lexical", **NAMES)

    assert asyncio.run(inside())["label"].tolist()[:2] == ["contradicted", "entailed"]


def test_triage_frame_routes_the_valid_rows_and_sends_bad_ones_to_verify():
    from rt4chart.gate.triage import triage_rows
    from rt4chart.io import Row

    df = _frame()
    out = rt4chart.triage_frame(df, accept=0.5, **NAMES)
    assert list(out.columns) == [*df.columns, "risk", "route", "error"]
    expected = triage_rows([Row(i, r) for i, r in enumerate(RECORDS)], accept=0.5,
                           fields=FieldMap(**NAMES))
    assert out["route"].tolist() == [e["route"] for e in expected]
    assert [None if r is pd.NA else r for r in out["risk"]] == [e["risk"] for e in expected]
    assert out.loc["c", "route"] == "verify" and out.loc["c", "risk"] is pd.NA and "reply" in out.loc["c", "error"]
    assert sorted(out["route"][:2]) == ["accept", "verify"]


def test_the_module_example_runs():
    import rt4chart.integrations.frame

    failures, tried = doctest.testmod(rt4chart.integrations.frame)
    assert tried > 0 and failures == 0


def test_importing_rt4chart_imports_neither_pandas_nor_ray():
    code = "import sys, rt4chart; print(sorted(m for m in ('pandas', 'ray', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_pandas_the_error_names_the_extra():
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import rt4chart\n"
            "try:\n    rt4chart.audit_frame(None)\n"
            "except ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'rt4chart[pandas]'" in out.stdout
