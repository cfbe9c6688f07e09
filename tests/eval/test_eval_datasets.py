"""Dataset loaders: hand-written fixtures in every published layout, plus real-data slices when present."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from rt4chart.errors import ConfigError, InputError
from rt4chart.eval.datasets import (
    EvalRecord,
    GoldSpan,
    data_root,
    group_key,
    load_dataset,
    load_jsonl,
    load_nli,
    load_ragtruth,
    load_ragtruth_faithjudge,
    normalize_label,
)


def _write_gz(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")


def _rt_row(rid: str, task_type: str, context: str, output: str, labels: list[dict], query: str = "q?") -> dict:
    return {
        "id": rid, "query": query, "context": context, "output": output, "task_type": task_type,
        "quality": "good", "model": "m", "temperature": 0.7, "hallucination_labels": json.dumps(labels),
        "hallucination_labels_processed": "{}", "input_str": "", "dataset": "test",
    }


@pytest.fixture()
def tiny_ragtruth(tmp_path: Path) -> Path:
    """A hand-written RAGTruth folder in the wandb row layout: one row per task."""
    jdir = tmp_path / "data" / "ragtruth" / "jsonl"
    answer = "Paris is in Spain. It has 3 towers."
    _write_gz(jdir / "test_qa.jsonl.gz", [
        _rt_row("1", "QA", "Paris is in France.", answer, [
            {"start": 0, "end": 18, "text": "Paris is in Spain.", "label_type": "Evident Conflict"},
            {"start": 19, "end": 35, "text": "It has 3 towers.", "label_type": "Subtle Baseless Info"},
        ], query="where is paris"),
    ])
    _write_gz(jdir / "test_summary.jsonl.gz", [_rt_row("2", "Summary", "Some news.", "News.", [])])
    _write_gz(jdir / "test_data2txt.jsonl.gz", [
        _rt_row("3", "Data2txt", "\n{'name': 'Cafe', 'open': True, 'stars': 4.5}\nOverview:", "Cafe is open.", []),
    ])
    _write_gz(jdir / "train_qa.jsonl.gz", [_rt_row("4", "QA", "ctx", "ans", [])])
    _write_gz(jdir / "train_summary.jsonl.gz", [])
    _write_gz(jdir / "train_data2txt.jsonl.gz", [])
    return tmp_path / "data"


def test_ragtruth_fixture_fields(tiny_ragtruth: Path) -> None:
    recs = load_ragtruth("test", root=tiny_ragtruth)
    assert [r.task for r in recs] == ["qa", "summary", "data2txt"]
    qa, summ, d2t = recs
    assert qa.question == "where is paris" and summ.question is None and d2t.question is None
    assert qa.hallucinated and not summ.hallucinated
    assert qa.spans == (GoldSpan(0, 18, "contradicted"), GoldSpan(19, 35, "baseless"))
    assert qa.answer[qa.spans[0].start:qa.spans[0].end] == "Paris is in Spain."
    # Data2txt: Python-repr dict rendered as JSON, prompt suffix dropped.
    assert json.loads(d2t.context) == {"name": "Cafe", "open": True, "stars": 4.5}
    assert "Overview" not in d2t.context
    assert qa.group == group_key("qa", qa.context) and qa.group.startswith("qa:")
    assert qa.to_record() == {"id": "1", "context": "Paris is in France.", "question": "where is paris",
                              "answer": qa.answer, "task": "qa"}
    assert [r.id for r in load_ragtruth("all", task="QA", root=tiny_ragtruth)] == ["4", "1"]
    assert [r.id for r in load_ragtruth("test", task="summary", root=tiny_ragtruth / "ragtruth")] == ["2"]


def test_ragtruth_bad_row_names_record_and_field(tmp_path: Path) -> None:
    jdir = tmp_path / "ragtruth" / "jsonl"
    _write_gz(jdir / "test_qa.jsonl.gz", [
        _rt_row("7", "QA", "ctx", "short", [{"start": 0, "end": 99, "label_type": "Evident Conflict"}]),
    ])
    with pytest.raises(InputError) as err:
        load_ragtruth("test", task="qa", root=tmp_path)
    assert err.value.record == "7" and err.value.field == "hallucination_labels"
    _write_gz(jdir / "test_qa.jsonl.gz", [
        _rt_row("8", "QA", "ctx", "short", [{"start": 0, "end": 2, "label_type": "Weird"}]),
    ])
    with pytest.raises(InputError, match="unknown span label") as err:
        load_ragtruth("test", task="qa", root=tmp_path)
    assert err.value.record == "8"


def test_missing_data_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="RT4CHART_DATA_DIR") as err:
        data_root("no-such-dataset-xyz", data_dir=tmp_path / "nowhere")
    assert "Looked in: data_dir " in str(err.value)
    with pytest.raises(InputError):
        load_ragtruth(root=tmp_path / "absent")
    with pytest.raises(ConfigError):
        load_ragtruth("dev", root=tmp_path)


def test_data_dir_is_searched_first_and_the_environment_is_left_to_the_cli(
        tiny_ragtruth: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert data_root(data_dir=tiny_ragtruth) == tiny_ragtruth
    assert len(load_ragtruth("test", data_dir=tiny_ragtruth)) == 3
    assert len(load_dataset("ragtruth", data_dir=tiny_ragtruth)) == 3
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tiny_ragtruth))
    try:
        assert data_root() != tiny_ragtruth  # the library reads no environment variable
    except InputError:
        pass  # no shared/data here either


def test_nli_pairs_are_audit_records_with_not_entailed_positive(tmp_path: Path) -> None:
    rows = [{"premise": "P one.", "hypothesis": "H one.", "label": "entailment", "source": "x"},
            {"premise": "P one.", "hypothesis": "H two.", "label": "neutral", "source": "x"},
            {"premise": "P two.", "hypothesis": "H three.", "label": "not_entailment", "source": "x"}]
    _write_gz(tmp_path / "nli" / "toy" / "dev.jsonl.gz", rows)
    _write_gz(tmp_path / "nli" / "toy" / "test.jsonl.gz", rows[:1] + [{**rows[0], "label": "partially_supported",
                                                                        "hypothesis": "H four."}])
    recs = load_nli("toy", ["dev", "test"], root=tmp_path)
    assert [r.id for r in recs] == ["toy/dev:1", "toy/dev:2", "toy/dev:3", "toy/test:2"]  # identical pair once
    assert [r.hallucinated for r in recs] == [False, True, True, True]
    assert recs[0].to_record() == {"id": "toy/dev:1", "context": "P one.", "question": None, "answer": "H one.",
                                   "task": "toy"}
    assert recs[0].group == recs[1].group != recs[2].group
    with pytest.raises(InputError):
        load_nli("absent", ["dev"], root=tmp_path)


def test_normalize_label() -> None:
    assert normalize_label("Evident Conflict") == "contradicted"
    assert normalize_label("Subtle Conflict") == "contradicted"
    assert normalize_label("Evident Baseless Info") == "baseless"
    assert normalize_label("Subtle Baseless Info") == "baseless"
    with pytest.raises(InputError):
        normalize_label("maybe")


def test_generic_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    rows = [
        {"id": "a", "context": ["p1", "p2"], "question": "q", "answer": "abcdef", "labels": [
            {"start": 0, "end": 2, "label": "contradicted"}]},
        {"id": "b", "context": "c", "answer": "xyz", "spans": [[1, 3]], "task": "qa", "group": "G"},
        {"id": "c", "context": "c", "answer": "ok", "hallucinated": False},
        {"id": "d", "context": "c", "answer": "ok", "spans": []},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    a, b, c, d = load_jsonl(path)
    assert a.context == "p1\n\np2" and a.spans == (GoldSpan(0, 2, "contradicted"),) and a.hallucinated
    assert b.spans == (GoldSpan(1, 3, "baseless"),) and b.group == "G" and b.task == "qa"
    assert not c.hallucinated and not d.hallucinated
    assert [r.id for r in load_dataset("jsonl", path=path, task="qa")] == ["b"]
    path.write_text(json.dumps({"id": "z", "context": "c", "answer": "ab", "spans": [[0, 5]]}) + "\n")
    with pytest.raises(InputError) as err:
        load_jsonl(path)
    assert err.value.record == "z" and err.value.field == "spans"
    path.write_text(json.dumps({"id": "y", "context": "c", "answer": "ab"}) + "\n")
    with pytest.raises(InputError, match="no gold label"):
        load_jsonl(path)


def test_dispatcher_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown dataset"):
        load_dataset("nope")
    with pytest.raises(ConfigError, match="path"):
        load_dataset("halubench")


def test_record_is_frozen() -> None:
    rec = EvalRecord(id="1", context="c", question=None, answer="a", task="qa", group="g", hallucinated=False)
    with pytest.raises(AttributeError):
        rec.answer = "b"  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------------------------
# Real data (skipped when ../shared/data is absent)


def test_real_ragtruth_test_split_counts(ragtruth_root: Path) -> None:
    root = ragtruth_root
    recs = load_ragtruth("test", root=root)
    assert len(recs) == 2700 and len({r.id for r in recs}) == 2700
    assert sum(r.hallucinated for r in recs) == 943  # PROVENANCE.md: test responses with ≥1 span
    groups: dict[str, int] = {}
    for r in recs:
        groups[r.group] = groups.get(r.group, 0) + 1
        for s in r.spans:
            assert 0 <= s.start < s.end <= len(r.answer)
    assert len(groups) == 450 and set(groups.values()) == {6}  # 450 test sources × 6 models
    d2t = next(r for r in recs if r.task == "data2txt")
    assert isinstance(json.loads(d2t.context), dict)


def test_real_faithjudge_labels_match_ragtruth(ragtruth_root: Path) -> None:
    root = ragtruth_root
    try:
        fj = load_ragtruth_faithjudge(task="summary", root=root)
    except InputError as exc:
        pytest.skip(f"FaithJudge copy not available: {exc}")
    assert len(fj) == 900
    rt = {(r.model, r.answer): r for r in load_ragtruth("test", task="summary", root=root)}
    matched = [(f, rt[(f.model, f.answer)]) for f in fj if (f.model, f.answer) in rt]
    assert len(matched) > 700  # some responses differ in whitespace between the two copies
    for f, r in matched:
        assert f.spans == r.spans  # contexts differ in whitespace between copies, so groups may too


# ---------------------------------------------------------------------------------------------------------------
# RAGTruth++ and HaluBench: hand-written fixtures in the published layouts (the data are not available offline)


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    import csv

    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def test_ragtruth_pp_published_layout(tmp_path: Path) -> None:
    from rt4chart.eval.datasets import load_ragtruth_pp

    no_rt = tmp_path  # holds no ragtruth/: contexts come from the prompts
    pp = tmp_path / "pp"
    pp.mkdir()
    answer = "The bridge opened in 1932.\nIt is 3 km long."
    _write_csv(pp / "messages.csv", ["stable_id", "meta", "role", "position", "text", "message_thread_stable_id"], [
        ["m1", "{}", "user", 0, "Briefly answer: when did the bridge open?\n\nThe bridge opened in 1932.", "t1"],
        ["m2", json.dumps({"original_id": "no-such-id-11865", "model": "gpt-4-0613", "task_type": "QA"}),
         "assistant", 1, answer, "t1"],
        ["m3", "{}", "user", 0, "Summarize: a cat sat.", "t2"],
        ["m4", json.dumps({"model": "llama-2-7b-chat"}), "assistant", 1, "A cat sat.", "t2"],
    ])
    _write_csv(pp / "hallucination_spans.csv",
               ["start_pos", "end_pos", "span_text", "label", "reasoning", "stable_id", "message_stable_id"],
               [[27, 43, "It is 3 km long.", "hallucination", "length not in context", "s1", "m2"]])
    recs = load_ragtruth_pp(pp, ragtruth_root=no_rt)
    assert [r.id for r in recs] == ["no-such-id-11865", "m4"]
    a, b = recs
    assert a.hallucinated and a.spans == (GoldSpan(27, 43, "baseless"),) and a.answer[27:43] == "It is 3 km long."
    assert a.task == "qa" and a.context.startswith("Briefly answer") and a.model == "gpt-4-0613"
    assert not b.hallucinated and b.spans == () and b.task == "unknown"
    assert [r.id for r in load_ragtruth_pp(pp / "messages.csv", task="qa", ragtruth_root=no_rt)] == \
        ["no-such-id-11865"]
    _write_csv(pp / "hallucination_spans.csv",
               ["start_pos", "end_pos", "span_text", "label", "reasoning", "stable_id", "message_stable_id"],
               [[27, 99, "x", "hallucination", "", "s1", "m2"]])
    with pytest.raises(InputError) as err:
        load_ragtruth_pp(pp, ragtruth_root=no_rt)
    assert err.value.record == "no-such-id-11865" and err.value.field == "hallucination_spans"
    (pp / "hallucination_spans.csv").unlink()
    with pytest.raises(InputError, match="hallucination_spans.csv"):
        load_dataset("ragtruth++", path=pp)


def test_ragtruth_pp_takes_context_from_ragtruth(tiny_ragtruth: Path, tmp_path: Path) -> None:
    pp = tmp_path / "pp2"
    pp.mkdir()
    _write_csv(pp / "messages.csv", ["stable_id", "meta", "role", "position", "text", "message_thread_stable_id"], [
        ["u", "{}", "user", 0, "prompt text", "t"],
        ["a", json.dumps({"original_id": "1"}), "assistant", 1, "Paris is in Spain. It has 3 towers.", "t"],
    ])
    _write_csv(pp / "hallucination_spans.csv",
               ["start_pos", "end_pos", "span_text", "label", "reasoning", "stable_id", "message_stable_id"], [])
    from rt4chart.eval.datasets import load_ragtruth_pp

    (rec,) = load_ragtruth_pp(pp, ragtruth_root=tiny_ragtruth)
    assert rec.context == "Paris is in France." and rec.question == "where is paris" and rec.task == "qa"
    assert not rec.hallucinated  # RAGTruth++ labels, not RAGTruth's


def test_halubench_published_columns(tmp_path: Path) -> None:
    rows = [
        {"id": "h1", "passage": "Water boils at 100 C.", "question": "When does water boil?", "answer": "At 100 C.",
         "label": "PASS", "source_ds": "covidQA"},
        {"id": "h2", "passage": "Water boils at 100 C.", "question": "When does water boil?", "answer": "At 50 C.",
         "label": "FAIL", "source_ds": "covidQA"},
        {"id": "h3", "passage": "Revenue was $5M.", "question": "Revenue?", "answer": "$7M", "label": "FAIL",
         "source_ds": "FinanceBench"},
    ]
    jl = tmp_path / "halubench.jsonl"
    jl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recs = load_dataset("halubench", path=jl)
    assert [r.hallucinated for r in recs] == [False, True, True]
    assert recs[0].group == recs[1].group != recs[2].group and recs[2].task == "FinanceBench"
    assert recs[0].context == "Water boils at 100 C." and recs[0].question == "When does water boil?"
    assert [r.id for r in load_dataset("halubench", path=jl, task="financebench")] == ["h3"]
    csv_path = tmp_path / "hb.csv"
    _write_csv(csv_path, list(rows[0]), [list(r.values()) for r in rows])
    assert [r.id for r in load_dataset("halubench", path=csv_path)] == ["h1", "h2", "h3"]
    jl.write_text(json.dumps({**rows[0], "label": "MAYBE"}) + "\n")
    with pytest.raises(InputError) as err:
        load_dataset("halubench", path=jl)
    assert err.value.record == "h1" and err.value.field == "label"


def test_parquet_without_pyarrow_says_how_to_fix(tmp_path: Path) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pyarrow is installed; the missing-dependency message cannot be shown")
    path = tmp_path / "test-00000-of-00001.parquet"
    path.write_bytes(b"PAR1")
    with pytest.raises(InputError, match="pyarrow"):
        load_dataset("halubench", path=path)
