"""rt4chart_training.verifier.loto: the leave-one-task-out threshold logic on hand-made scores, the grouped sample,
and the command end to end with the lexical judge on RAGTruth train (when ../shared/data is present)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rt4chart.eval.datasets import EvalRecord, load_ragtruth
from rt4chart_training.verifier import loto

TASKS = ["qa"] * 4 + ["summary"] * 4 + ["data2txt"] * 4
Y = [True, True, False, False, True, False, False, False, True, True, True, False]
S = np.array([0.9, 0.6, 0.4, 0.1, 0.8, 0.7, 0.2, 0.1, 0.55, 0.45, 0.3, 0.2])
BASE = [0.1, 0.9, 0.5, 0.2, 0.5, 0.6, 0.1, 0.0, 0.9, 0.1, 0.5, 0.2]
GROUPS = [f"{t}:{i // 2}" for i, t in enumerate(TASKS)]


def _rows(scores=None, **kw):
    scores = scores or {t: S for t in ("qa", "summary", "data2txt")}
    return {r["task"]: r for r in loto.loto_rows(TASKS, Y, scores, BASE, GROUPS, **kw)}


def test_threshold_is_chosen_on_the_other_tasks() -> None:
    rows = _rows(n_boot=0)
    assert list(rows) == ["qa", "summary", "data2txt"]
    qa = rows["qa"]  # summary + data2txt pooled: F1 0.889 at 0.3 (4 of 4 positives, 1 false alarm)
    assert qa["threshold"] == pytest.approx(0.3)
    assert (qa["precision"], qa["recall"], qa["f1"]) == (pytest.approx(2 / 3, abs=1e-4), 1.0, 0.8)
    assert qa["f1_always"] == pytest.approx(0.6667) and qa["f1_delta"] == pytest.approx(0.1333)
    assert qa["auroc"] == 1.0 and qa["auroc_uncovered"] == 0.5 and qa["passes"]
    assert qa["flagged"] == 0.75 and (qa["n"], qa["hallucinated"]) == (4, 2) and "ci" not in qa
    summ = rows["summary"]  # qa + data2txt pooled: F1 0.909 at 0.3
    assert summ["threshold"] == pytest.approx(0.3) and summ["f1"] == pytest.approx(0.6667)
    assert summ["f1_always"] == pytest.approx(0.4) and summ["auroc"] == 1.0
    d2t = rows["data2txt"]  # qa + summary pooled: F1 0.857 at 0.6
    assert d2t["threshold"] == pytest.approx(0.6) and d2t["f1"] == 0.0 and not d2t["passes"]


def test_each_held_out_task_reads_its_own_scores() -> None:
    rows = _rows({"qa": S, "summary": S, "data2txt": S * 0.5}, n_boot=0)
    assert rows["data2txt"]["threshold"] == pytest.approx(0.3)  # half of the 0.6 chosen on S
    assert rows["data2txt"]["f1"] == 0.0 and rows["data2txt"]["f1_always"] == pytest.approx(0.8571)
    assert rows["qa"]["threshold"] == pytest.approx(0.3)


def test_own_verdicts_and_paired_intervals() -> None:
    flags = {t: [s >= 0.5 for s in S] for t in ("qa", "summary", "data2txt")}
    rows = _rows(flags=flags, n_boot=200, seed=3)
    assert rows["qa"]["f1_own"] == 1.0 and rows["summary"]["f1_own"] == pytest.approx(0.6667)
    ci = rows["qa"]["ci"]
    assert set(ci) == {"auroc", "auroc_uncovered", "auroc_delta", "f1", "f1_always", "f1_delta"}
    lo, hi = ci["f1"]
    assert lo <= rows["qa"]["f1"] <= hi
    assert rows == _rows(flags=flags, n_boot=200, seed=3)  # seeded


def test_one_task_is_not_enough() -> None:
    with pytest.raises(ValueError, match="two tasks"):
        loto.loto_rows(["qa"] * 4, Y[:4], {"qa": S[:4]}, BASE[:4], GROUPS[:4], n_boot=0)


def _rec(rid: int, task: str, group: int) -> EvalRecord:
    return EvalRecord(id=str(rid), context="c", question=None, answer="a", task=task, group=f"{task}:{group}",
                      hallucinated=False)


def test_sample_takes_whole_groups_and_cuts_the_last() -> None:
    recs = [_rec(i, t, i // 6) for t in ("qa", "summary", "data2txt") for i in range(60)]
    sample = loto.sample_records(recs, 15, seed=1)
    assert [r.task for r in sample] == ["qa"] * 15 + ["summary"] * 15 + ["data2txt"] * 15
    for t in ("qa", "summary", "data2txt"):
        sizes = {}
        for r in sample:
            if r.task == t:
                sizes[r.group] = sizes.get(r.group, 0) + 1
        assert sorted(sizes.values()) == [3, 6, 6]
        chosen = [r for r in sample if r.task == t]
        assert [r.group for r in chosen] == sorted((r.group for r in chosen), key=[r.group for r in chosen].index)
    assert sample == loto.sample_records(recs, 15, seed=1) and sample != loto.sample_records(recs, 15, seed=2)
    pool = {"qa:1", "summary:2", "data2txt:3"}
    assert {r.group for r in loto.sample_records(recs, 100, seed=0, groups=pool)} == pool
    assert len(loto.sample_records(recs[:8], 100, seed=0)) == 8


def test_render_markdown() -> None:
    report = {"config": {"judge": "lexical", "model_dir": None, "per_task": 4, "pool": "all", "seed": 0,
                         "command": "python3 -m rt4chart_training.verifier.loto --judge lexical"},
              "rows": loto.loto_rows(TASKS, Y, {t: S for t in ("qa", "summary", "data2txt")}, BASE, GROUPS,
                                     n_boot=50)}
    md = loto.render_markdown(report)
    assert md.startswith("### Leave-one-task-out, RAGTruth train: judge lexical")
    assert "| qa | 4 (2) | 1.000 [" in md and md.count("| yes |") == 2 and md.count("| no |") == 1


@pytest.fixture
def ragtruth(ragtruth_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(ragtruth_root))
    return ragtruth_root


def test_lexical_per_task_10_end_to_end(ragtruth: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "loto"
    args = ["--judge", "lexical", "--per-task", "10", "--bootstrap", "50", "--out", str(out)]
    assert loto.main(args) == 0
    report = json.loads((out / "loto.json").read_text())
    assert [r["task"] for r in report["rows"]] == ["qa", "summary", "data2txt"]
    assert all(r["n"] == 10 for r in report["rows"]) and report["sample"]["scored"] == 30
    train_ids = {r.id for r in load_ragtruth("train", root=ragtruth)}
    assert set(report["sample"]["ids"]) <= train_ids  # never the test split
    assert report["config"]["command"].endswith("--judge lexical --per-task 10 --bootstrap 50 --out " + str(out))
    assert (out / "loto.md").read_text() in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--resume"):
        loto.main(args)
    assert loto.main(args + ["--resume"]) == 0
    assert json.loads((out / "loto.json").read_text())["rows"] == report["rows"]


def test_a_model_per_held_out_task(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A ``{task}`` in --model-dir: each held-out task's row reads the scores of its own folder's judge."""
    from rt4chart.eval.predictions import Prediction

    recs = [EvalRecord(id=str(i), context="ctx", question=None, answer="ans", task=t, group=f"{t}:{i // 2}",
                       hallucinated=y) for i, (t, y) in enumerate(zip(TASKS, Y))]
    monkeypatch.setattr(loto, "load_ragtruth", lambda split, data_dir=None: recs)
    seen = []

    def fake_audit(records, judge, model_dir, out, resume):
        seen.append((judge, model_dir, out.name))
        scale = 0.5 if model_dir.endswith("data2txt") else 1.0
        return {r.id: Prediction(r.id, bool(S[int(r.id)] >= 0.5), float(S[int(r.id)]) * scale)
                for r in records}, 0.0, 0

    monkeypatch.setattr(loto, "audit", fake_audit)
    out = tmp_path / "o"
    assert loto.main(["--judge", "verifier", "--model-dir", "m-{task}", "--per-task", "4", "--bootstrap", "0",
                      "--out", str(out)]) == 0
    assert seen == [("verifier", f"m-{t}", f"heldout-{t}") for t in ("qa", "summary", "data2txt")]
    rows = {r["task"]: r for r in json.loads((out / "loto.json").read_text())["rows"]}
    assert rows["data2txt"]["threshold"] == pytest.approx(0.3) and rows["qa"]["threshold"] == pytest.approx(0.3)
