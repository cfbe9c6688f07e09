"""``rt4chart eval score|run`` end to end on a hand-written RAGTruth folder, plus the acceptance reference values
on the real test split when ../shared/data is present."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.cli import main
from rt4chart.eval.baselines import uncovered_token_risk
from rt4chart.eval.datasets import load_ragtruth


def _row(rid: str, task_type: str, context: str, output: str, spans: list[tuple[int, int, str]], split: str) -> dict:
    labels = [{"start": s, "end": e, "text": output[s:e], "label_type": t} for s, e, t in spans]
    return {"id": rid, "query": "what is said?", "context": context, "output": output, "task_type": task_type,
            "quality": "good", "model": "m", "temperature": 0.7, "hallucination_labels": json.dumps(labels),
            "dataset": split}


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two sources per task, three answers each (one faithful, one baseless, one contradicted)."""
    jdir = tmp_path / "data" / "ragtruth" / "jsonl"
    n = 0
    for split in ("train", "test"):
        for task_type, fname in (("QA", "qa"), ("Summary", "summary"), ("Data2txt", "data2txt")):
            rows = []
            for src in range(2):
                ctx = f"The museum opened in 1990. It has {src + 3} floors and a cafe."
                if task_type == "Data2txt":
                    ctx = "{'name': 'Museum', 'opened': 1990, 'floors': %d}\nOverview:" % (src + 3)
                faithful = f"The museum opened in 1990 and has {src + 3} floors."
                baseless = "The museum opened in 1990. It was designed by Zaha Hadid."
                contra = f"The museum opened in 1990. It has {src + 9} floors."
                rows.append(_row(str(n), task_type, ctx, faithful, [], split))
                rows.append(_row(str(n + 1), task_type, ctx, baseless, [(27, 57, "Evident Baseless Info")], split))
                rows.append(_row(str(n + 2), task_type, ctx, contra, [(27, len(contra), "Evident Conflict")], split))
                n += 3
            _write(jdir / f"{split}_{fname}.jsonl.gz", rows)
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "data"


def test_score_always_hallucinated(data_dir: Path, tmp_path: Path) -> None:
    pred = tmp_path / "always.jsonl"
    recs = load_ragtruth("test", root=data_dir)
    pred.write_text("".join(json.dumps({"id": r.id, "hallucinated": True}) + "\n" for r in recs))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["eval", "score", "--dataset", "ragtruth", "--split", "test", "--predictions",
                                    str(pred), "-o", str(out), "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "metrics.json").read_text())
    overall = report["systems"]["always"]["answer"]["overall"]
    assert overall["precision"] == pytest.approx(2 / 3) and overall["recall"] == 1.0
    assert overall["f1"] == pytest.approx(0.8)
    assert report["groups"] == 6 and report["n"] == 18
    assert "| always | overall | 0.667" in res.output
    assert (out / "table.md").read_text().startswith("### ragtruth test")


def test_score_reports_bad_rows_and_missing(data_dir: Path, tmp_path: Path) -> None:
    recs = load_ragtruth("test", root=data_dir)
    pred = tmp_path / "p.jsonl"
    lines = [json.dumps({"id": r.id, "hallucinated": False, "score": 0.1}) for r in recs[1:]]
    lines.append(json.dumps({"id": recs[0].id, "hallucinated": "maybe"}))
    pred.write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    res = runner.invoke(main, ["eval", "score", "--predictions", str(pred), "--no-baselines"])
    assert res.exit_code == 2 and "have no prediction" in res.output
    res = runner.invoke(main, ["eval", "score", "--predictions", str(pred), "--no-baselines", "--allow-missing",
                               "--bootstrap", "20"])
    assert res.exit_code == 1, res.output
    assert "hallucinated" in res.output and "| p | overall |" in res.output


def test_score_unknown_dataset_and_missing_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pred = tmp_path / "p.jsonl"
    pred.write_text("")
    res = CliRunner().invoke(main, ["eval", "score", "--dataset", "nope", "--predictions", str(pred)])
    assert res.exit_code == 2 and "unknown dataset" in res.output
    res = CliRunner().invoke(main, ["eval", "score", "--path", str(tmp_path / "absent"), "--predictions", str(pred)])
    assert res.exit_code == 2 and "does not exist" in res.output


def test_run_lexical_then_resume(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["eval", "run", "--dataset", "ragtruth", "--split", "test", "--task", "qa", "--judge", "lexical",
            "-o", str(out), "--bootstrap", "20", "-q"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 6 and all(isinstance(p["hallucinated"], bool) for p in preds)
    report = json.loads((out / "metrics.json").read_text())
    assert report["meta"]["judge"] == "lexical" and report["coverage"]["scored"] == 6
    assert "rt4chart (lexical)" in (out / "table.md").read_text()
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 2 and "--resume" in again.output
    resumed = CliRunner().invoke(main, args + ["--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 6
    # the run's predictions are scored by the same `score` command
    res = CliRunner().invoke(main, ["eval", "score", "--task", "qa", "--predictions", str(out / "predictions.jsonl"),
                                    "--bootstrap", "20", "--no-baselines", "-o", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    rescored = json.loads((tmp_path / "s" / "metrics.json").read_text())["systems"]["predictions"]["answer"]
    assert rescored == report["systems"]["rt4chart (lexical)"]["answer"]


# ---------------------------------------------------------------------------------------------------------------
# Acceptance reference values on the real RAGTruth test split (issue 4, criterion 1)


@pytest.mark.slow
def test_real_reference_values(tmp_path: Path, ragtruth_root: Path) -> None:
    root = ragtruth_root
    recs = load_ragtruth("test", root=root)
    always = tmp_path / "always.jsonl"
    always.write_text("".join(json.dumps({"id": r.id, "hallucinated": True}) + "\n" for r in recs))
    uncov = tmp_path / "uncovered.jsonl"
    uncov.write_text("".join(json.dumps({"id": r.id, "hallucinated": False,
                                         "score": uncovered_token_risk(r.context, r.answer)}) + "\n" for r in recs))
    runner = CliRunner()
    for path in (always, uncov):
        res = runner.invoke(main, ["eval", "score", "--path", str(root), "--predictions", str(path),
                                   "--no-baselines", "--bootstrap", "50", "-o", str(tmp_path / path.stem)])
        assert res.exit_code == 0, res.output
    a = json.loads((tmp_path / "always" / "metrics.json").read_text())["systems"]["always"]["answer"]["overall"]
    assert (round(a["precision"], 3), round(a["recall"], 3), round(a["f1"], 3)) == (0.349, 1.0, 0.518)
    r = json.loads((tmp_path / "uncovered" / "metrics.json").read_text())["systems"]["uncovered"]["ranking"]
    assert 0.76 <= r["overall"]["auroc"] <= 0.80
    assert 0.56 <= r["overall"]["ap"] <= 0.61


def test_baseline_command_dash_o_dash_writes_the_predictions_to_stdout(data_dir: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["eval", "baseline", "--name", "always-hallucinated", "-o", "-"])
    assert res.exit_code == 0, res.output
    preds = [json.loads(line) for line in res.stdout.splitlines()]
    assert [p["id"] for p in preds] == [r.id for r in load_ragtruth("test", root=data_dir)]
    assert all(p["hallucinated"] for p in preds)


def test_baseline_command_writes_scorable_predictions(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "uncov.jsonl"
    res = CliRunner().invoke(main, ["eval", "baseline", "--name", "uncovered-token", "-o", str(out)])
    assert res.exit_code == 0, res.output
    # the command read RT4CHART_DATA_DIR and RT4CHART_CACHE_DIR and passed them on: thresholds cached there
    assert list((tmp_path / "cache" / "eval").glob("thresholds-*.json"))
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    recs = load_ragtruth("test", root=data_dir)
    assert [p["id"] for p in preds] == [r.id for r in recs]
    assert [p["score"] for p in preds] == pytest.approx([uncovered_token_risk(r.context, r.answer) for r in recs])
    res = CliRunner().invoke(main, ["eval", "score", "-p", str(out), "--bootstrap", "20", "-o", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    systems = json.loads((tmp_path / "s" / "metrics.json").read_text())["systems"]
    # our predictions file and the built-in baseline row are the same system, scored by the same code
    assert systems["uncov"]["answer"] == systems["uncovered-token"]["answer"]
    assert systems["uncov"]["ranking"] == systems["uncovered-token"]["ranking"]
