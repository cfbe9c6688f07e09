"""``rt4chart calibrate`` and ``--calibration``: labels in, a calibration file out, applied by audit, --baseline,
audit_frame and the server; bad labels, missing fields, one class and another judge's file are clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rt4chart.audit.calibration import answer_score
from rt4chart.cli import main
from rt4chart.judges.registry import build_auditor

FACTS = ["The museum opens at nine in the morning.", "Tickets cost twelve euros for adults.",
         "Children under ten enter free.", "The collection holds over four thousand paintings.",
         "Guided tours run every Saturday afternoon."]
EXTRA = ["The cafe serves vegan pastries from local bakers.", "Parking is available behind the north wing.",
         "Tickets cost twelve euros for students and pensioners.", "The museum closes early on public holidays."]


def _labelled(n: int = 32) -> list[dict]:
    rows = []
    for i in range(n):
        context = " ".join(f.replace("museum", f"museum of {name}") for f, name in
                           zip(FACTS, [f"Town{i // 2}"] * len(FACTS)))
        answer = " ".join(FACTS[(i + k) % 5] for k in range(2))
        hallucinated = i % 3 == 0
        if hallucinated:
            answer += " " + EXTRA[i % len(EXTRA)]
        rows.append({"id": f"r{i}", "context": context, "question": "What should visitors know?",
                     "answer": answer, "hallucinated": hallucinated})
    return rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(*args: str):
    return CliRunner().invoke(main, [*args])


@pytest.fixture
def labelled(tmp_path) -> Path:
    return _write(tmp_path / "labelled.jsonl", _labelled())


@pytest.fixture
def calibration(tmp_path, labelled) -> Path:
    out = tmp_path / "cal.json"
    res = _run("calibrate", str(labelled), "-o", str(out), "--judge", "lexical", "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    return out


def test_calibrate_writes_a_file_for_the_judge_and_prints_cross_validated_metrics(calibration) -> None:
    doc = json.loads(calibration.read_text())
    assert doc["judge"] == "lexical" and doc["judge_fingerprint"] == build_auditor("lexical").fingerprint
    assert doc["method"] == "platt" and doc["meta"]["labels"] == 32 and doc["meta"]["positives"] == 11
    cv = doc["meta"]["cross_validated"]
    for name in ("uncalibrated", "calibrated"):
        assert set(cv[name]["answer"]) >= {"precision", "recall", "f1", "ci"}


def test_calibrate_prints_labels_used_and_before_and_after(labelled, tmp_path) -> None:
    res = _run("calibrate", str(labelled), "-o", str(tmp_path / "c.json"), "--judge", "lexical",
               "--target", "recall:0.9", "--bootstrap", "100")
    assert res.exit_code == 0, res.output
    assert "32 labels used (11 hallucinated" in res.stdout
    assert "| before (the judge's decisions) |" in res.stdout and "| after (calibrated) |" in res.stdout
    assert "F1 after − before:" in res.stdout and "target recall:0.9" in res.stdout


def test_results_of_an_earlier_audit_give_the_same_calibration(labelled, calibration, tmp_path) -> None:
    results = tmp_path / "results.jsonl"
    assert _run("audit", str(labelled), "-o", str(results), "--judge", "lexical", "-q").exit_code == 0
    again = tmp_path / "again.json"
    res = _run("calibrate", str(labelled), "--results", str(results), "-o", str(again), "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    a, b = json.loads(calibration.read_text()), json.loads(again.read_text())
    assert {k: a[k] for k in ("judge", "judge_fingerprint", "threshold", "coef", "intercept")} == \
        {k: b[k] for k in ("judge", "judge_fingerprint", "threshold", "coef", "intercept")}

    res = _run("calibrate", str(labelled), "--results", str(results), "-o", str(tmp_path / "x.json"),
               "--judge", "local")
    assert res.exit_code == 2 and "audited by the lexical judge" in res.stderr
    _write(results, [json.loads(line) for line in results.read_text().splitlines()][1:])
    res = _run("calibrate", str(labelled), "--results", str(results), "-o", str(tmp_path / "x.json"))
    assert res.exit_code == 2 and "record 'r0'" in res.stderr and "no result" in res.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("value, message", [("maybe", "label 'maybe' is not true or false"),
                                            (2, "label 2 is not true or false"),
                                            (None, "missing label")])
def test_bad_label_values_are_named_and_nothing_is_written(tmp_path, value, message) -> None:
    rows = _labelled()
    rows[4]["hallucinated"] = value
    out = tmp_path / "cal.json"
    res = _run("calibrate", str(_write(tmp_path / "l.jsonl", rows)), "-o", str(out), "--judge", "lexical")
    assert res.exit_code == 2
    assert "record 'r4', field 'hallucinated'" in res.stderr and message in res.stderr
    assert not out.exists()


@pytest.mark.parametrize("field, fix, message", [
    ("answer", None, "field 'answer'"), ("context", None, "field 'context'"),
    ("spans", [{"start": 5, "end": 9999}], "outside the answer"), ("spans", "nope", "spans is not a JSON list"),
])
def test_missing_or_bad_fields_are_named_and_nothing_is_written(tmp_path, field, fix, message) -> None:
    rows = _labelled()
    if fix is None:
        del rows[3][field]
    else:
        rows[3][field] = fix
    out = tmp_path / "cal.json"
    res = _run("calibrate", str(_write(tmp_path / "l.jsonl", rows)), "-o", str(out), "--judge", "lexical")
    assert res.exit_code == 2 and "record 'r3'" in res.stderr and message in res.stderr
    assert not out.exists()


def test_spans_of_a_hallucinated_answer_are_accepted(tmp_path) -> None:
    rows = _labelled()
    rows[3]["spans"] = [{"start": 0, "end": 5}]
    out = tmp_path / "cal.json"
    res = _run("calibrate", str(_write(tmp_path / "l.jsonl", rows)), "-o", str(out), "--judge", "lexical",
               "--bootstrap", "50")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("rows, message", [
    ([{**r, "hallucinated": False} for r in _labelled()], "a calibration needs answers of both classes"),
    (_labelled(19), "at least 20 labelled answers, got 19"),
])
def test_one_class_or_too_few_labels_are_refused(tmp_path, rows, message) -> None:
    out = tmp_path / "cal.json"
    res = _run("calibrate", str(_write(tmp_path / "l.jsonl", rows)), "-o", str(out), "--judge", "lexical")
    assert res.exit_code == 2 and message in res.stderr
    assert not out.exists()


def test_csv_labels_as_text_are_read(tmp_path) -> None:
    import csv

    path = tmp_path / "l.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "context", "question", "answer", "hallucinated"])
        writer.writeheader()
        writer.writerows([{**r, "hallucinated": str(r["hallucinated"]).lower()} for r in _labelled()])
    res = _run("calibrate", str(path), "-o", str(tmp_path / "c.json"), "--judge", "lexical", "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "c.json").read_text())["meta"]["positives"] == 11


def test_audit_refuses_a_calibration_of_another_judge_or_configuration(labelled, calibration, tmp_path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(calibration.read_text()), "judge": "local"}))
    res = _run("audit", str(labelled), "-o", str(tmp_path / "o.jsonl"), "--judge", "lexical", "--calibration",
               str(other))
    assert res.exit_code == 2 and "fitted on the scores of the local judge" in res.stderr
    res = _run("audit", str(labelled), "-o", str(tmp_path / "o.jsonl"), "--judge", "lexical", "-W", "10", "-O", "5",
               "--calibration", str(calibration))
    assert res.exit_code == 2 and "fingerprint" in res.stderr
    assert not (tmp_path / "o.jsonl").exists()


def _audited(stderr: str) -> int:
    line = next(x for x in stderr.splitlines() if "│ audited " in x)
    return int(line.split("│")[2])


def test_baseline_reuses_results_only_under_the_same_calibration(labelled, calibration, tmp_path) -> None:
    first = tmp_path / "first.jsonl"
    res = _run("audit", str(labelled), "-o", str(first), "--judge", "lexical", "--calibration", str(calibration))
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    assert all(r["config"]["calibration"]["threshold"] == json.loads(calibration.read_text())["threshold"]
               for r in rows)
    assert all(r["risk"] is not None for r in rows)

    same = _run("audit", str(labelled), "-o", str(tmp_path / "same.jsonl"), "--judge", "lexical", "--calibration",
                str(calibration), "--baseline", str(first))
    assert same.exit_code == 0 and _audited(same.stderr) == 0
    assert (tmp_path / "same.jsonl").read_bytes() == first.read_bytes()

    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps({**json.loads(calibration.read_text()), "threshold": 0.9}))
    changed = _run("audit", str(labelled), "-o", str(tmp_path / "changed.jsonl"), "--judge", "lexical",
                   "--calibration", str(moved), "--baseline", str(first))
    assert changed.exit_code == 0 and _audited(changed.stderr) == 32
    without = _run("audit", str(labelled), "-o", str(tmp_path / "without.jsonl"), "--judge", "lexical",
                   "--baseline", str(first))
    assert without.exit_code == 0 and _audited(without.stderr) == 32


def test_calibrating_results_that_were_calibrated_is_refused(labelled, calibration, tmp_path) -> None:
    first = tmp_path / "first.jsonl"
    assert _run("audit", str(labelled), "-o", str(first), "--judge", "lexical", "--calibration", str(calibration),
                "-q").exit_code == 0
    res = _run("calibrate", str(labelled), "--results", str(first), "-o", str(tmp_path / "c.json"))
    assert res.exit_code == 2 and "audited with a calibration" in res.stderr


def test_audit_frame_and_the_server_apply_the_calibration(labelled, calibration, tmp_path) -> None:
    import pandas as pd

    from rt4chart import audit_frame
    from rt4chart.server._app import build_auditor as server_auditor
    from rt4chart.server._settings import ServerSettings

    first = tmp_path / "first.jsonl"
    assert _run("audit", str(labelled), "-o", str(first), "--judge", "lexical", "--calibration", str(calibration),
                "-q").exit_code == 0
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    threshold = json.loads(calibration.read_text())["threshold"]
    assert [r["hallucinated"] for r in rows] == [answer_score(r) >= threshold for r in rows]
    df = pd.DataFrame(_labelled()).drop(columns="hallucinated")
    framed = audit_frame(df, judge="lexical", calibration=str(calibration))
    assert list(framed["hallucinated"]) == [r["hallucinated"] for r in rows]

    auditor = server_auditor(ServerSettings(judge="lexical", calibration=str(calibration)))
    assert auditor.calibration is not None and auditor.calibration.judge == "lexical"


def test_calibrate_card_refits_the_hybrid_card_for_the_model_in_use_from_cached_replies(serve, tmp_path,
                                                                                         monkeypatch) -> None:
    """``calibrate --judge hybrid --card``: every claim of the labelled answers is asked of the (scripted) model, a
    card is fitted on them for that model and written; it loads, names the model, is used by --combination, and a
    second refit takes every reply from the response cache."""
    from rt4chart.judges.combine import Combination
    from rt4chart.testing.openai_server import Reply

    rows = _labelled(24)
    for row in rows:  # the hallucinated sentence's span: the claims it covers are hallucinated, the others not
        extra = next((e for e in EXTRA if e in row["answer"]), None)
        if extra:
            start = row["answer"].index(extra)
            row["spans"] = [{"start": start, "end": start + len(extra)}]
    labelled = _write(tmp_path / "labelled.jsonl", rows)
    server = serve(lambda req: Reply.yes_no(0.1 if any(e in req.user for e in EXTRA) else 0.9),
                   model_path="/models/My-Model-7B-Q5_K_M.gguf")
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "card.json"
    args = ("calibrate", str(labelled), "-o", str(out), "--judge", "hybrid", "--card", "--no-tagger",
            "--base-url", server.base_url, "--model", "judge")
    res = _run(*args)
    assert res.exit_code == 0, res.output
    asked = len(server.requests)
    assert asked > len(rows)  # every claim, none routed
    card = Combination.load(out)
    assert card.fitted_for == {"name": "My-Model-7B-Q5_K_M.gguf", "gguf": "My-Model-7B-Q5_K_M.gguf",
                               "model": "judge"}
    assert card.version.startswith("refit-") and "contradicted_kept" in card.card["metrics"]
    assert card.card["fitted_on"]["rows"] > 0 and "combination card for My-Model-7B-Q5_K_M.gguf" in res.output
    assert _run(*args).exit_code == 0 and len(server.requests) == asked  # cached replies: no call
    audit = build_auditor("hybrid", base_url=server.base_url, model="judge", combination=str(out))
    assert audit.judge.combination.fitted_for["gguf"] == "My-Model-7B-Q5_K_M.gguf"
    assert audit.judge.model_warning() is None  # the refitted card is this model's


def test_calibrate_card_needs_the_hybrid_judge_and_no_results(labelled, tmp_path) -> None:
    res = _run("calibrate", str(labelled), "-o", str(tmp_path / "c.json"), "--judge", "lexical", "--card")
    assert res.exit_code == 2 and "--card refits the hybrid judge's combination card" in res.output
    res = _run("calibrate", str(labelled), "-o", str(tmp_path / "c.json"), "--judge", "hybrid", "--card",
               "--results", str(labelled))
    assert res.exit_code == 2 and "--results" in res.output


def test_calibrate_dash_o_dash_writes_the_calibration_to_stdout_and_the_report_to_stderr(tmp_path, labelled) -> None:
    res = CliRunner().invoke(main, ["calibrate", str(labelled), "-o", "-", "--judge", "lexical", "--bootstrap", "50"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)  # stdout holds the calibration alone
    assert doc["judge"] == "lexical" and not (Path.cwd() / "-").exists()
    assert "cross-validated" in res.stderr.lower() or "f1" in res.stderr.lower()
