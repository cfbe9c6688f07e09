"""Predictions (parsing, alignment, audit-result mapping) and the scorer (the report, markdown)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import precision_recall_fscore_support, roc_auc_score

from rt4chart.errors import InputError
from rt4chart.eval import metrics as M
from rt4chart.eval.datasets import EvalRecord, GoldSpan, group_key
from rt4chart.eval.runner import baseline_systems, limit_records, score
from rt4chart.eval.predictions import Prediction, align, prediction_from_result, read_predictions, write_predictions
from rt4chart.eval.scoring import evaluate, render_markdown


def _records() -> list[EvalRecord]:
    recs = []
    rng = np.random.default_rng(0)
    for g in range(12):
        task = ("qa", "summary", "data2txt")[g % 3]
        ctx = f"context number {g} about apples and pears"
        for k in range(4):
            answer = f"answer {g}-{k} mentions apples and maybe bananas"
            hall = bool(rng.random() < 0.4)
            spans = (GoldSpan(len(answer) - 7, len(answer), "baseless" if k % 2 else "contradicted"),) if hall else ()
            recs.append(EvalRecord(id=f"{g}-{k}", context=ctx, question=None, answer=answer, task=task,
                                   group=group_key(task, ctx), hallucinated=hall, spans=spans))
    return recs


def test_read_predictions_keeps_good_rows_and_reports_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    lines = [
        json.dumps({"id": "a", "hallucinated": True, "score": 0.9, "spans": [[0, 3]], "label": "baseless"}),
        "{not json",
        json.dumps({"id": "b", "hallucinated": "yes"}),
        json.dumps({"id": "c", "hallucinated": False, "spans": [{"start": 4, "end": 2}]}),
        json.dumps({"id": "d", "hallucinated": False, "score": None}),
        json.dumps({"id": "a", "hallucinated": False}),
        json.dumps({"id": "e", "index": 4, "error": {"message": "boom"}}),
        json.dumps({"id": 7, "hallucinated": False, "score": 0.1}),
    ]
    path.write_text("\n".join(lines) + "\n")
    preds, errors = read_predictions(path)
    assert sorted(preds) == ["7", "a", "d"]
    assert preds["a"] == Prediction("a", True, 0.9, ((0, 3),), "baseless")
    assert len(errors) == 5
    fields = {(str(e.record), e.field) for e in errors}
    assert ("b", "hallucinated") in fields and ("c", "spans") in fields and ("a", "id") in fields
    assert ("e", "error") in fields and ("line 2", None) in fields


def test_write_then_read_roundtrip(tmp_path: Path) -> None:
    preds = [Prediction("x", True, 0.5, ((1, 2),), "contradicted", ((0, 4),)), Prediction("y", False)]
    write_predictions(tmp_path / "p.jsonl", preds)
    back, errors = read_predictions(tmp_path / "p.jsonl")
    assert not errors and list(back.values()) == preds


def test_align_missing_and_unknown() -> None:
    recs = _records()[:3]
    preds = {"0-0": Prediction("0-0", True), "0-1": Prediction("0-1", False), "zz": Prediction("zz", True)}
    with pytest.raises(InputError, match="1 of 3 records have no prediction"):
        align(recs, preds)
    kept, aligned, missing, unknown = align(recs, preds, missing="skip")
    assert [r.id for r in kept] == ["0-0", "0-1"] and missing == ["0-2"] and unknown == ["zz"]


def test_evaluate_matches_sklearn_per_scope() -> None:
    recs = _records()
    rng = np.random.default_rng(1)
    preds = []
    for r in recs:
        s = float(rng.random() * 0.6 + 0.4 * r.hallucinated)
        preds.append(Prediction(r.id, s > 0.5, s, ((0, 5),) if s > 0.5 else (), "baseless" if s > 0.5 else "entailed"))
    rep = evaluate(recs, {"sys": preds}, n_boot=200, seed=3)
    sysrep = rep["systems"]["sys"]
    assert list(sysrep["answer"]) == ["overall", "qa", "summary", "data2txt"]
    y = [r.hallucinated for r in recs]
    for scope in ("overall", "qa"):
        idx = [i for i, r in enumerate(recs) if scope == "overall" or r.task == scope]
        p, rc, f, _ = precision_recall_fscore_support([y[i] for i in idx], [preds[i].hallucinated for i in idx],
                                                      average="binary", zero_division=0)
        res = sysrep["answer"][scope]
        assert (res["precision"], res["recall"], res["f1"]) == pytest.approx((p, rc, f))
        lo, hi = res["ci"]["f1"]
        assert lo <= res["f1"] <= hi
        auc = roc_auc_score([y[i] for i in idx], [preds[i].score for i in idx])
        assert sysrep["ranking"][scope]["auroc"] == pytest.approx(auc)
    assert sysrep["span"]["overall"]["tp"] >= 0
    conf = sysrep["labels"]["confusion"]
    assert sum(sum(row.values()) for row in conf.values()) == len(recs)
    assert sysrep["grounding"] is None  # no gold evidence in these records
    # intervals are reproducible for a seed and change with it
    assert evaluate(recs, {"sys": preds}, n_boot=200, seed=3) == rep
    assert evaluate(recs, {"sys": preds}, n_boot=200, seed=4)["systems"]["sys"]["answer"]["overall"]["ci"] != \
        sysrep["answer"]["overall"]["ci"]


def test_paired_deltas_use_the_same_resamples_for_both_systems() -> None:
    recs = _records()
    rng = np.random.default_rng(5)
    ref, other = [], []
    for r in recs:
        s = float(rng.random() * 0.6 + 0.4 * r.hallucinated)
        t = float(np.clip(s + rng.normal(0, 0.2), 0, 1))
        ref.append(Prediction(r.id, s > 0.5, s, ((0, 5),) if s > 0.5 else ()))
        other.append(Prediction(r.id, t > 0.45, t, ((0, 9),) if t > 0.45 else ()))
    rep = evaluate(recs, {"default": ref, "variant": other}, n_boot=300, seed=2, reference="default")
    assert "deltas" not in rep["systems"]["default"]
    deltas = rep["systems"]["variant"]["deltas"]
    assert set(deltas) == {"overall", "qa", "summary", "data2txt"}
    for metric, kind, key in (("answer_f1", "answer", "f1"), ("span_recall", "span", "recall")):
        d, lo, hi = deltas["overall"][metric]
        assert d == pytest.approx(rep["systems"]["variant"][kind]["overall"][key]
                                  - rep["systems"]["default"][kind]["overall"][key])
        assert lo <= d <= hi
    assert deltas["overall"]["auroc"][0] == pytest.approx(rep["systems"]["variant"]["ranking"]["overall"]["auroc"]
                                                          - rep["systems"]["default"]["ranking"]["overall"]["auroc"])

    # the interval is that of the per-resample differences (one resample, both systems), recomputed on the generic
    # index path; unpaired resamples (another seed for the reference) give another, wider interval here
    y = np.array([r.hallucinated for r in recs])
    groups = [r.group for r in recs]
    a_ref, a_var = (M.answer_counts(y, [p.hallucinated for p in ps]) for ps in (ref, other))

    def f1_delta(idx: np.ndarray) -> float:
        return M.prf_from_counts(*a_var[idx].sum(axis=0)).f1 - M.prf_from_counts(*a_ref[idx].sum(axis=0)).f1

    paired = M.group_bootstrap(f1_delta, groups, n=300, seed=2)
    assert deltas["overall"]["answer_f1"][1:] == pytest.approx(list(paired), abs=1e-9)
    w_ref, w_var = M.bootstrap_weights(groups, 300, seed=99), M.bootstrap_weights(groups, 300, seed=2)
    unpaired = M.percentile_interval(M.prf_weighted(a_var, w_var)["f1"] - M.prf_weighted(a_ref, w_ref)["f1"])
    assert unpaired[1] - unpaired[0] > paired[1] - paired[0]
    with pytest.raises(ValueError, match="reference system 'nope'"):
        evaluate(recs, {"default": ref}, n_boot=10, reference="nope")


def test_evaluate_rejects_misaligned_predictions() -> None:
    recs = _records()[:2]
    with pytest.raises(ValueError, match="not aligned"):
        evaluate(recs, {"s": [Prediction("1-0", True), Prediction("0-0", True)]})


def test_grounding_on_detected_contradictions() -> None:
    ctx = "The sky is green. Water is dry."
    base = dict(context=ctx, question=None, task="qa", group="g")
    recs = [
        EvalRecord(id="1", answer="sky is blue", hallucinated=True, spans=(GoldSpan(0, 11, "contradicted"),),
                   evidence=(GoldSpan(0, 17, "contradicted"),), **base),
        EvalRecord(id="2", answer="water is wet", hallucinated=True, spans=(GoldSpan(0, 12, "contradicted"),),
                   evidence=(GoldSpan(18, 31, "contradicted"),), **base),
    ]
    preds = [Prediction("1", True, 1.0, ((0, 11),), "contradicted", ((4, 17),)),
             Prediction("2", True, 1.0, ((0, 12),), "baseless", ())]
    g = evaluate(recs, {"s": preds}, n_boot=10)["systems"]["s"]["grounding"]
    assert g["cases"] == 2 and g["detected"] == 1
    assert (g["tp"], g["fp"], g["fn"]) == (13, 0, 4)


def test_prediction_from_audit_result() -> None:
    result = {
        "id": "r1", "label": "contradicted", "hallucinated": True, "answer": "0123456789",
        "spans": [{"start": 0, "end": 4}, {"start": 2, "end": 6}],
        "claims": [{"label": "contradicted", "evidence": [{"start": 3, "end": 9, "text": "x", "sentence_ids": [0]}]},
                   {"label": "entailed", "evidence": [{"start": 0, "end": 2, "text": "y", "sentence_ids": [0]}]}],
    }
    pred = prediction_from_result(result)
    assert pred.hallucinated and pred.label == "contradicted"
    assert pred.score == pytest.approx(0.6) and pred.evidence == ((3, 9),)
    flagged_no_spans = prediction_from_result({"id": "r2", "hallucinated": True, "answer": "abcd", "spans": [],
                                               "claims": [], "label": "baseless"})
    assert flagged_no_spans.score > 0
    clean = prediction_from_result({"id": "r3", "hallucinated": False, "answer": "abcd", "spans": [], "claims": [],
                                    "label": "entailed"})
    assert clean.score == 0.0 and not clean.hallucinated
    # a judge that scores every claim it decides ranks answers by their riskiest claim
    scored = {"id": "r4", "hallucinated": False, "answer": "abcd", "spans": [], "label": "entailed",
              "claims": [{"label": "entailed", "score": 0.3}, {"label": "entailed", "score": 0.12},
                         {"label": "unverified", "score": None}]}
    assert prediction_from_result(scored).score == pytest.approx(0.3)
    scored["claims"][1]["score"] = None  # one decided claim without a score: back to the span fraction
    assert prediction_from_result(scored).score == 0.0


def test_score_with_baselines_and_markdown() -> None:
    recs = _records()
    preds = {r.id: Prediction(r.id, True) for r in recs}
    rep = score(recs, preds, name="always", thresholds={"uncovered-token": 0.5, "rouge-l": 0.5}, n_boot=50)
    assert set(rep["systems"]) == {"always", "always-hallucinated", "uncovered-token", "rouge-l"}
    ours, base = rep["systems"]["always"]["answer"], rep["systems"]["always-hallucinated"]["answer"]
    assert ours["overall"]["precision"] == base["overall"]["precision"] == pytest.approx(
        sum(r.hallucinated for r in recs) / len(recs))
    assert rep["systems"]["always-hallucinated"]["span"]["overall"]["recall"] == 1.0
    md = render_markdown(rep, "demo")
    assert "| always | overall |" in md and "AUROC" in md and "score >= 0.5000" in md
    no_thr = score(recs, preds, thresholds=None, n_boot=20)["systems"]["uncovered-token"]
    assert no_thr["answer"] is None and no_thr["ranking"] is not None


def test_baseline_systems_scores() -> None:
    recs = _records()[:4]
    systems, notes = baseline_systems(recs, {"uncovered-token": 0.0, "rouge-l": 2.0})
    assert all(p.hallucinated for p in systems["uncovered-token"])  # risk >= 0 always
    assert not any(p.hallucinated for p in systems["rouge-l"])
    assert notes["rouge-l"]["threshold"] == 2.0


def test_limit_records_interleaves_tasks_and_keeps_groups() -> None:
    recs = _records()
    sub = limit_records(recs, 12)
    assert [r.task for r in sub[::4]] == ["qa", "summary", "data2txt"]
    assert len({r.group for r in sub}) == 3
    assert limit_records(recs, None) == recs
