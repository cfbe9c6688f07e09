"""``rt4chart eval run --shape``: clean is today's records, the other shapes do what they say, bad shapes are usage
errors; on hand-made RAGTruth rows and, when ../shared/data is present, on real test records."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.eval.datasets import load_ragtruth
from rt4chart.eval.studies.shapes import parse_shape, raw_data2txt, reshape, shape_name, shape_records

_QUERY = {"QA": "when did the museum open?", "Summary": "Summarize the following news within 50 words:",
          "Data2txt": "Instruction:\nWrite an objective overview about the following local business. "}


def _rows(split: str, task_type: str, start: int) -> list[dict]:
    rows = []
    for src in range(2):
        ctx = f"The museum opened in 1990. It has {src + 3} floors and a cafe."
        if task_type == "Data2txt":
            ctx = "\n{'name': 'Museum', 'opened': 1990, 'floors': %d, 'note': \"it's big\"}\nOverview:" % (src + 3)
        for k, (out, spans) in enumerate(((f"The museum opened in 1990 and has {src + 3} floors.", []),
                                          ("The museum opened in 1990. It was designed by Zaha Hadid.",
                                           [(27, 57, "Evident Baseless Info")]))):
            labels = [{"start": s, "end": e, "text": out[s:e], "label_type": t} for s, e, t in spans]
            rows.append({"id": str(start + 2 * src + k), "query": _QUERY[task_type], "context": ctx, "output": out,
                         "task_type": task_type, "quality": "good", "model": "m",
                         "hallucination_labels": json.dumps(labels), "dataset": split})
    return rows


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two sources per task, two answers each (one faithful, one baseless), train and test."""
    jdir = tmp_path / "data" / "ragtruth" / "jsonl"
    jdir.mkdir(parents=True)
    n = 0
    for split in ("train", "test"):
        for task_type, fname in (("QA", "qa"), ("Summary", "summary"), ("Data2txt", "data2txt")):
            with gzip.open(jdir / f"{split}_{fname}.jsonl.gz", "wt", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in _rows(split, task_type, n))
            n += 4
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "data"


def test_parse_shape() -> None:
    assert parse_shape("clean") == parse_shape(None) == ()
    assert parse_shape("raw-data2txt,instruction-question") == ("instruction-question", "raw-data2txt")
    assert parse_shape(" Instruction-Question ") == ("instruction-question",)
    assert shape_name(()) == "clean" and shape_name(parse_shape("raw-data2txt")) == "raw-data2txt"
    for bad in ("raw", "clean,raw-data2txt", "", ","):
        with pytest.raises(ConfigError):
            parse_shape(bad)


def test_raw_data2txt_drops_the_suffix_only() -> None:
    assert raw_data2txt("\n{'a': 1}\nOverview:") == "{'a': 1}"
    assert raw_data2txt("{'a': 1}") == "{'a': 1}"
    assert raw_data2txt("{'a': 'Overview: x'}\n") == "{'a': 'Overview: x'}"


def test_clean_is_the_loaded_records(data_dir: Path) -> None:
    recs = load_ragtruth("test", root=data_dir)
    assert shape_records(recs, "clean", root=data_dir) == recs == load_ragtruth("test", root=data_dir)


def test_instruction_question_and_raw_data2txt(data_dir: Path) -> None:
    recs = load_ragtruth("test", root=data_dir)
    iq = shape_records(recs, "instruction-question", root=data_dir)
    raw = shape_records(recs, "raw-data2txt", root=data_dir)
    both = shape_records(recs, "instruction-question,raw-data2txt", split="test", root=data_dir)
    by_task = {"qa": "QA", "summary": "Summary", "data2txt": "Data2txt"}
    for r, a, b, c in zip(recs, iq, raw, both):
        # what is scored is untouched
        for x in (a, b, c):
            assert (x.id, x.answer, x.spans, x.group, x.task, x.hallucinated) == \
                   (r.id, r.answer, r.spans, r.group, r.task, r.hallucinated)
        assert a.question == c.question == _QUERY[by_task[r.task]] and a.context == r.context
        assert b.question == r.question
        if r.task == "data2txt":
            assert r.question is None and r.context.startswith("{\n  \"name\": \"Museum\"")
            assert b.context == c.context and b.context.startswith("{'name': 'Museum'") and b.context.endswith("}")
            assert json.loads(r.context) == ast.literal_eval(b.context)
        else:
            assert b == r and c.context == r.context
    assert [r.question for r in recs if r.task == "qa"] == [a.question for a in iq if a.task == "qa"]


def test_reshape_refuses_another_row(data_dir: Path) -> None:
    rec = load_ragtruth("test", root=data_dir)[0]
    with pytest.raises(Exception, match="does not match"):
        reshape(rec, {"id": rec.id, "output": rec.answer + " more", "query": "q"}, ("instruction-question",))


def test_shapes_need_ragtruth(data_dir: Path) -> None:
    recs = load_ragtruth("test", root=data_dir)
    assert shape_records(recs, "clean", dataset="halubench") == recs
    with pytest.raises(ConfigError, match="--dataset ragtruth"):
        shape_records(recs, "raw-data2txt", dataset="ragtruth-faithjudge")


def _run(tmp_path: Path, name: str, *extra: str):
    out = tmp_path / name
    res = CliRunner().invoke(main, ["eval", "run", "--judge", "lexical", "--bootstrap", "10", "-q", "-o", str(out),
                                    *extra])
    return res, out


def _untimed(obj):
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in ("seconds", "elapsed", "ms", "timing")}
    return [_untimed(x) for x in obj] if isinstance(obj, list) else obj


def _strip_seconds(path: Path) -> list[dict]:
    return [_untimed(json.loads(line)) for line in path.read_text().splitlines()]


def test_cli_clean_is_today_and_shapes_are_recorded(data_dir: Path, tmp_path: Path) -> None:
    plain, out_plain = _run(tmp_path, "plain")
    clean, out_clean = _run(tmp_path, "clean", "--shape", "clean")
    assert plain.exit_code == clean.exit_code == 0, plain.output + clean.output
    assert (out_plain / "predictions.jsonl").read_bytes() == (out_clean / "predictions.jsonl").read_bytes()
    assert _strip_seconds(out_plain / "results.jsonl") == _strip_seconds(out_clean / "results.jsonl")
    assert json.loads((out_clean / "metrics.json").read_text())["meta"]["shape"] == "clean"
    both, out_both = _run(tmp_path, "both", "--shape", "raw-data2txt,instruction-question")
    assert both.exit_code == 0, both.output
    report = json.loads((out_both / "metrics.json").read_text())
    assert report["meta"]["shape"] == "instruction-question,raw-data2txt" and report["coverage"]["scored"] == 12
    assert "shape instruction-question,raw-data2txt" in (out_both / "table.md").read_text()


def test_cli_bad_shape_is_a_usage_error(data_dir: Path, tmp_path: Path) -> None:
    res, out = _run(tmp_path, "bad", "--shape", "raw-json")
    assert res.exit_code == 2 and "unknown shape 'raw-json'" in res.output and not out.exists()
    res, _ = _run(tmp_path, "jsonl", "--shape", "raw-data2txt", "--dataset", "jsonl", "--path",
                  str(tmp_path / "none.jsonl"))
    assert res.exit_code == 2


def test_real_records(ragtruth_root: Path) -> None:
    recs = load_ragtruth("test", root=ragtruth_root)
    sample = [r for t in ("qa", "summary", "data2txt") for r in [x for x in recs if x.task == t][:6]]
    both = shape_records(sample, "instruction-question,raw-data2txt", root=ragtruth_root)
    for r, s in zip(sample, both):
        assert (s.id, s.answer, s.spans, s.group) == (r.id, r.answer, r.spans, r.group)
        if r.task == "qa":
            assert s == r
        elif r.task == "summary":
            assert r.question is None and s.question.startswith("Summarize the following news")
            assert s.context == r.context
        else:
            assert r.question is None and s.question.startswith("Instruction:\nWrite an objective overview")
            assert s.context.startswith("{'name': ") and s.context.endswith("}")
            assert ast.literal_eval(s.context) == json.loads(r.context)
