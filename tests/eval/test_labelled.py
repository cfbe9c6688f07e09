"""Labelled answers read from Python as ``rt4chart calibrate`` reads them (``rt4chart.eval.labelled``): records with
a gold label and spans, every bad row named; the cross-validated report of a calibration fitted on them."""

from __future__ import annotations

import csv
import json

import pytest

from rt4chart.errors import InputError
from rt4chart.eval import labelled as L, read_labelled
from rt4chart.eval.calibrate import cross_validate
from rt4chart.io import FieldMap
from rt4chart.judges.registry import build_auditor

CONTEXT = "The museum opens at nine. Tickets cost twelve euros. Children under ten enter free."


def test_read_labelled_gives_records_labels_and_spans(tmp_path):
    path = tmp_path / "labelled.jsonl"
    path.write_text(json.dumps({"id": "a", "context": CONTEXT, "answer": "It opens at ten.", "hallucinated": True,
                                "spans": [{"start": 12, "end": 15}]}) + "\n"
                    + json.dumps({"id": "b", "context": CONTEXT, "answer": "It opens at nine.",
                                  "hallucinated": False}) + "\n")
    rows = read_labelled(path)  # what rt4chart.eval offers
    assert [(r.record.id, r.hallucinated, r.spans) for r in rows] == [("a", True, ((12, 15),)), ("b", False, ())]
    assert rows[0].record.context == CONTEXT


def test_read_labelled_reads_csv_labels_and_mapped_fields(tmp_path):
    path = tmp_path / "labelled.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["key", "passage", "reply", "bad"])
        w.writerow(["a", CONTEXT, "It opens at nine.", "no"])
        w.writerow(["b", CONTEXT, "It opens at ten.", "yes"])
    rows = L.read_labelled(path, fields=FieldMap(id="key", context="passage", answer="reply"), label_field="bad")
    assert [(r.record.id, r.hallucinated) for r in rows] == [("a", False), ("b", True)]


def test_every_bad_row_is_named_with_its_field(tmp_path):
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "context": CONTEXT, "answer": "It opens at nine.", "hallucinated": "maybe"},
        {"id": "b", "context": CONTEXT, "answer": "It opens at nine.", "hallucinated": False,
         "spans": [{"start": 0, "end": 2}]},
        {"id": "c", "context": CONTEXT, "answer": "Short.", "hallucinated": True, "spans": [{"start": 0, "end": 40}]},
        {"id": "d", "context": CONTEXT, "answer": "It opens at nine.", "hallucinated": True},
    ]) + "\n")
    with pytest.raises(InputError) as err:
        L.read_labelled(path)
    message = str(err.value)
    assert message.startswith("3 of 4 labelled rows are invalid")
    assert "record 'a', field 'hallucinated': label 'maybe' is not true or false" in message
    assert "spans are given for an answer labelled not hallucinated" in message
    assert "outside the answer" in message


def test_results_of_a_labelled_file_and_their_cross_validated_report(tmp_path):
    from rt4chart.audit.calibration import answer_score
    from rt4chart.jobs.batch import audit_lines, run_sync
    from rt4chart.io import Row

    answers = ["It opens at nine.", "Tickets cost twelve euros.", "It opens at noon on Sundays.",
               "Children under ten enter free.", "Tickets cost forty euros.", "Dogs are welcome in the cafe."]
    rows = [{"id": f"r{k}-{i}", "context": f"{CONTEXT} The hall is room {k}.", "answer": a,
             "hallucinated": i in (2, 4, 5)} for k in range(4) for i, a in enumerate(answers)]
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = L.read_labelled(path)
    lines = run_sync(audit_lines([Row(i, dict(d.record)) for i, d in enumerate(data)], build_auditor("lexical")))
    results_path = tmp_path / "results.jsonl"
    results_path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    results = L.results_of(data, str(results_path))
    assert [r["id"] for r in results] == [d.record.id for d in data]
    judge, fingerprint = L.judge_of(results)
    assert judge == "lexical" and fingerprint
    scores = [answer_score(r) for r in results]
    y = [d.hallucinated for d in data]
    decided, _, failed = cross_validate(scores, y, [d.record.context for d in data], judge=judge, target="f1",
                                        method="platt", folds=2, seed=0)
    report = L.cv_report(data, results, scores, decided, n_boot=50)
    assert report["n"] == len(rows) and report["positives"] == 12 and report["groups"] == 4
    assert 0.0 <= report["calibrated"]["answer"]["f1"] <= 1.0

    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({**lines[0], "answer": "changed"}) + "\n")
    with pytest.raises(InputError, match="differs from the labelled one"):
        L.results_of(data[:1], str(other))
