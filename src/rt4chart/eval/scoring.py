"""Score predictions against a dataset's gold labels: one code path for our runs and for external detectors.

A prediction (one JSON object per line) has ``id``, ``hallucinated`` (bool), and optionally ``score`` (float,
higher = more likely hallucinated), ``spans`` (``[[start, end], …]`` or ``[{"start", "end"}, …]`` answer
offsets), ``label`` (entailed / contradicted / baseless / unverified) and ``evidence`` (context offsets, for
grounding). Audit results (``AuditResult.to_json()``) are predictions too: see :func:`prediction_from_result`.

:func:`evaluate` scores several systems on the same records with paired group-bootstrap intervals (the same
resamples for every system), per task and overall, and returns a plain JSON-ready report;
:func:`render_markdown` turns it into tables.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from rt4chart.errors import InputError

from . import metrics as M
from .datasets import TASKS, EvalRecord

__all__ = [
    "Prediction",
    "read_predictions",
    "write_predictions",
    "prediction_from_result",
    "align",
    "evaluate",
    "render_markdown",
    "GOLD_TYPES",
]

PRED_LABELS = ("entailed", "contradicted", "baseless", "unverified")
#: Answer-level gold type from the gold span labels.
GOLD_TYPES = ("none", "contradicted", "baseless", "both")


@dataclass(frozen=True)
class Prediction:
    """A detector's output for one answer. ``spans``/``score``/``label``/``evidence`` are None when not produced;
    ``hallucinated`` is None only for score-only systems (no decision threshold)."""

    id: str
    hallucinated: Optional[bool]
    score: Optional[float] = None
    spans: Optional[tuple[tuple[int, int], ...]] = None
    label: Optional[str] = None
    evidence: Optional[tuple[tuple[int, int], ...]] = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"id": self.id, "hallucinated": self.hallucinated}
        if self.score is not None:
            out["score"] = self.score
        if self.spans is not None:
            out["spans"] = [list(s) for s in self.spans]
        if self.label is not None:
            out["label"] = self.label
        if self.evidence is not None:
            out["evidence"] = [list(s) for s in self.evidence]
        return out


def _pairs(value: Any, rid: Any, name: str) -> Optional[tuple[tuple[int, int], ...]]:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError("expected a list of [start, end] pairs", record=rid, field=name)
    out = []
    for i, item in enumerate(value):
        try:
            if isinstance(item, dict):
                s, e = item["start"], item["end"]
            elif isinstance(item, (list, tuple)) and len(item) >= 2:
                s, e = item[0], item[1]
            else:
                raise TypeError
            if isinstance(s, bool) or isinstance(e, bool) or int(s) != s or int(e) != e:
                raise TypeError
            s, e = int(s), int(e)
        except (KeyError, TypeError, ValueError):
            raise InputError(f"item {i} is not [start, end] or {{start, end}}", record=rid, field=name) from None
        if s < 0 or e < s:
            raise InputError(f"item {i} [{s}, {e}) is not a valid interval", record=rid, field=name)
        out.append((s, e))
    return tuple(out)


def parse_prediction(obj: Any, where: str) -> Prediction:
    """Validate one prediction object; InputError names the record (id or line) and the field."""
    if not isinstance(obj, dict):
        raise InputError("prediction is not a JSON object", record=where)
    rid = obj.get("id")
    if rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int)):
        raise InputError("missing or invalid id", record=where, field="id")
    rid = str(rid)
    if "error" in obj and "hallucinated" not in obj:
        err = obj["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise InputError(f"the detector failed on this record: {msg}", record=rid, field="error")
    hall = obj.get("hallucinated")
    if not isinstance(hall, bool):
        raise InputError("expected true or false", record=rid, field="hallucinated")
    score = obj.get("score")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise InputError("expected a finite number", record=rid, field="score")
        score = float(score)
    label = obj.get("label")
    if label is not None and label not in PRED_LABELS:
        raise InputError(f"expected one of {', '.join(PRED_LABELS)}", record=rid, field="label")
    return Prediction(id=rid, hallucinated=hall, score=score, spans=_pairs(obj.get("spans"), rid, "spans"),
                      label=label, evidence=_pairs(obj.get("evidence"), rid, "evidence"))


def prediction_from_result(result: Mapping[str, Any]) -> Prediction:
    """Map an audit result (``AuditResult.to_json()``) to a prediction.

    ``hallucinated`` and ``spans`` (merged non-entailed answer spans) are taken as is; ``label`` is the answer
    label; ``evidence`` collects the context evidence of contradicted claims. ``score`` is the highest claim score
    when the judge scored every claim it decided (the lexical and local judges give each claim a hallucination risk;
    unverified claims are left out); otherwise (LLM judges) it is the fraction of answer characters inside ``spans``
    (0.0 for an entailed answer), raised to at least 1/len(answer) when the answer is flagged without spans, so that
    flagged answers always rank above unflagged ones with no spans.
    """
    where = str(result.get("id", "?"))
    base = parse_prediction({k: result[k] for k in ("id", "hallucinated", "spans", "error") if k in result}, where)
    spans = base.spans or ()
    answer = result.get("answer")
    n = len(answer) if isinstance(answer, str) and answer else 0
    covered = sum(e - s for s, e in M.merge_spans(spans))
    score = covered / n if n else float(bool(base.hallucinated))
    if base.hallucinated and score == 0.0:
        score = 1.0 / max(n, 1)
    decided = [c for c in result.get("claims") or () if isinstance(c, dict) and c.get("label") != "unverified"]
    claim_scores = [c.get("score") for c in decided]
    if decided and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                       for x in claim_scores):
        score = float(max(claim_scores))
    label = result.get("label")
    label = label if label in PRED_LABELS else None
    evidence: list[tuple[int, int]] = []
    for claim in result.get("claims") or ():
        if isinstance(claim, dict) and claim.get("label") == "contradicted":
            for ev in claim.get("evidence") or ():
                if isinstance(ev, dict) and "start" in ev and "end" in ev:
                    evidence.append((int(ev["start"]), int(ev["end"])))
    return Prediction(id=base.id, hallucinated=base.hallucinated, score=min(score, 1.0), spans=tuple(spans),
                      label=label, evidence=tuple(evidence))


def read_predictions(path: "str | os.PathLike[str]", *, audit_results: Optional[bool] = None
                     ) -> tuple[dict[str, Prediction], list[InputError]]:
    """Read a predictions JSONL file (or audit results): ``({id: prediction}, [errors of bad rows])``.

    A bad row (not JSON, missing ``hallucinated``, a detector error line, a duplicate id) is reported and skipped;
    the other rows are kept. ``audit_results`` None = detect per row (a row with ``claims`` is an audit result).
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"predictions file {p} does not exist")
    preds: dict[str, Prediction] = {}
    errors: list[InputError] = []
    with open(p, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"line {lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(InputError(f"not valid JSON ({exc.msg})", record=where))
                continue
            try:
                is_result = audit_results if audit_results is not None else (isinstance(obj, dict)
                                                                             and "claims" in obj)
                pred = prediction_from_result(obj) if is_result else parse_prediction(obj, where)
            except InputError as exc:
                errors.append(exc)
                continue
            if pred.id in preds:
                errors.append(InputError("duplicate id (first one kept)", record=pred.id, field="id"))
                continue
            preds[pred.id] = pred
    return preds, errors


def write_predictions(path: "str | os.PathLike[str]", preds: Iterable[Prediction]) -> None:
    """Write predictions as JSONL (the format ``rt4chart eval score`` reads)."""
    with open(path, "w", encoding="utf-8") as fh:
        for pred in preds:
            fh.write(json.dumps(pred.to_json(), ensure_ascii=False) + "\n")


def align(records: Sequence[EvalRecord], preds: Mapping[str, Prediction], *, missing: str = "error"
          ) -> tuple[list[EvalRecord], list[Prediction], list[str], list[str]]:
    """Pair records with predictions by id: ``(records, predictions, missing_ids, unknown_ids)``.

    ``missing="error"`` raises InputError when a record has no prediction; ``"skip"`` scores the covered records
    only (the report says how many were left out).
    """
    if missing not in ("error", "skip"):
        raise ValueError("missing must be 'error' or 'skip'")
    ids = {r.id for r in records}
    missing_ids = [r.id for r in records if r.id not in preds]
    unknown = [pid for pid in preds if pid not in ids]
    if missing_ids and missing == "error":
        shown = ", ".join(missing_ids[:5]) + (" …" if len(missing_ids) > 5 else "")
        raise InputError(f"{len(missing_ids)} of {len(records)} records have no prediction (ids {shown}); "
                         "pass --allow-missing to score the covered records only", field="id")
    kept = [r for r in records if r.id in preds]
    return kept, [preds[r.id] for r in kept], missing_ids, unknown


# ---------------------------------------------------------------------------------------------------------------
# Evaluation


def gold_type(rec: EvalRecord) -> str:
    labels = rec.labels
    if not labels:
        return "none"
    if labels == {"contradicted", "baseless"}:
        return "both"
    return next(iter(labels))


def _interval_dict(values: dict[str, np.ndarray], confidence: float) -> dict[str, list[float]]:
    return {k: list(M.percentile_interval(v, confidence)) for k, v in values.items()}


def _nan_to_none(x: float) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _scopes(records: Sequence[EvalRecord]) -> list[tuple[str, np.ndarray]]:
    tasks = [t for t in TASKS if any(r.task == t for r in records)]
    tasks += sorted({r.task for r in records} - set(tasks))
    out = [("overall", np.arange(len(records)))]
    if len(tasks) > 1:
        out += [(t, np.array([i for i, r in enumerate(records) if r.task == t])) for t in tasks]
    return out


def evaluate(
    records: Sequence[EvalRecord],
    systems: Mapping[str, Sequence[Prediction]],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    notes: Optional[Mapping[str, Mapping[str, Any]]] = None,
) -> dict:
    """Score every system (predictions aligned with ``records``) per task and overall.

    Answer-level P/R/F1 (positive = hallucinated), span-level micro character-overlap P/R/F1 (systems with spans),
    AUROC/AP (systems with scores), per-label analysis and context-evidence grounding (where gold evidence
    exists), each with a ``confidence`` percentile interval from ``n_boot`` resamples of source-context groups.
    The resamples of a scope are drawn once and shared by all systems (paired comparison).
    """
    for name, preds in systems.items():
        if len(preds) != len(records):
            raise ValueError(f"system {name!r} has {len(preds)} predictions for {len(records)} records")
        for rec, pred in zip(records, preds):
            if rec.id != pred.id:
                raise ValueError(f"system {name!r}: prediction {pred.id!r} is not aligned with record {rec.id!r}")
    y = np.array([r.hallucinated for r in records], dtype=bool)
    gold_spans = [r.spans for r in records]
    report: dict[str, Any] = {
        "n": len(records),
        "positives": int(y.sum()),
        "groups": len({r.group for r in records}),
        "bootstrap": {"resamples": n_boot, "seed": seed, "confidence": confidence,
                      "unit": "source-context group", "method": "percentile"},
        "systems": {},
    }
    scopes = _scopes(records)
    weights = {scope: M.bootstrap_weights([records[i].group for i in idx], n=n_boot, seed=seed)
               for scope, idx in scopes}
    for name, preds in systems.items():
        out: dict[str, Any] = {}
        if notes and name in notes:
            out.update(notes[name])
        decided = all(p.hallucinated is not None for p in preds)
        has_spans = bool(preds) and all(p.spans is not None for p in preds)
        has_scores = bool(preds) and all(p.score is not None for p in preds)
        a_counts = M.answer_counts(y, [bool(p.hallucinated) for p in preds]) if decided else None
        s_counts = M.span_counts(gold_spans, [p.spans for p in preds]) if has_spans else None
        scores = np.array([p.score for p in preds], dtype=float) if has_scores else None
        answer, span, ranking = {}, {}, {}
        for scope, idx in scopes:
            w = weights[scope]
            if a_counts is not None:
                res = M.prf_from_counts(*a_counts[idx].sum(axis=0)).as_dict()
                res["n"] = int(idx.size)
                res["ci"] = _interval_dict(M.prf_weighted(a_counts[idx], w), confidence)
                answer[scope] = res
            if s_counts is not None:
                res = M.prf_from_counts(*s_counts[idx].sum(axis=0)).as_dict()
                res["ci"] = _interval_dict(M.prf_weighted(s_counts[idx], w), confidence)
                span[scope] = res
            if scores is not None:
                yy, ss = y[idx], scores[idx]
                boot_auc, boot_ap = M.ranking_weighted(yy, ss, w)
                ranking[scope] = {
                    "auroc": _nan_to_none(M.auroc(yy, ss)),
                    "ap": _nan_to_none(M.average_precision(yy, ss)),
                    "ci": {"auroc": list(M.percentile_interval(boot_auc, confidence)),
                           "ap": list(M.percentile_interval(boot_ap, confidence))},
                }
        out["answer"] = answer or None
        out["span"] = span or None
        out["ranking"] = ranking or None
        out["labels"] = _label_analysis(records, preds, s_counts is not None) if decided else None
        out["grounding"] = _grounding(records, preds)
        if any(p.label == "unverified" for p in preds):
            out["unverified"] = sum(p.label == "unverified" for p in preds)
        report["systems"][name] = out
    return report


def _label_analysis(records: Sequence[EvalRecord], preds: Sequence[Prediction], spans: bool) -> dict:
    """Contradicted vs baseless: gold answer type × predicted label, detection recall per gold type, and (with
    spans) the share of gold characters of each span label that the predicted spans cover."""
    gold = [gold_type(r) for r in records]
    pred = [p.label if p.label is not None else ("hallucinated" if p.hallucinated else "entailed") for p in preds]
    table = M.confusion(gold, pred, GOLD_TYPES, [c for c in (*PRED_LABELS, "hallucinated") if c in set(pred)])
    out: dict[str, Any] = {"confusion": table, "recall_by_gold_type": {}}
    for t in GOLD_TYPES[1:]:
        idx = [i for i, g in enumerate(gold) if g == t]
        if idx:
            out["recall_by_gold_type"][t] = {"n": len(idx),
                                             "recall": sum(bool(preds[i].hallucinated) for i in idx) / len(idx)}
    if spans:
        by_label: dict[str, Any] = {}
        for lab in ("contradicted", "baseless"):
            g = [[s for s in r.spans if s.label == lab] for r in records]
            if any(g):
                c = M.span_counts(g, [p.spans for p in preds]).sum(axis=0)
                by_label[lab] = {"gold_chars": int(c[0] + c[2]), "recall": float(M.prf_from_counts(*c).recall)}
        out["span_recall_by_label"] = by_label
    return out


def _grounding(records: Sequence[EvalRecord], preds: Sequence[Prediction]) -> Optional[dict]:
    """Context-evidence grounding (RT4CHART §4.2): character-overlap P/R/F1 of predicted vs gold refuting
    evidence, on correctly detected contradiction cases with gold evidence. None when no record has gold
    evidence."""
    eligible = [i for i, r in enumerate(records) if r.evidence and "contradicted" in r.labels]
    if not eligible:
        return None
    hit = [i for i in eligible if preds[i].label == "contradicted"]
    res = M.span_prf([records[i].evidence for i in hit], [preds[i].evidence or () for i in hit]).as_dict()
    res.update({"cases": len(eligible), "detected": len(hit)})
    return res


# ---------------------------------------------------------------------------------------------------------------
# Markdown


def _fmt(x: Optional[float]) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _cell(res: Mapping[str, Any], key: str) -> str:
    lo, hi = res["ci"][key]
    ci = "" if lo is None or math.isnan(lo) else f" [{lo:.3f}, {hi:.3f}]"
    return f"{_fmt(res[key])}{ci}"


def render_markdown(report: Mapping[str, Any], title: Optional[str] = None) -> str:
    """Markdown tables (answer level, span level, ranking, labels) of an :func:`evaluate` report."""
    conf = report["bootstrap"]["confidence"]
    lines: list[str] = []
    if title:
        lines += [f"### {title}", ""]
    meta = report.get("meta", {})
    if meta:
        lines += [", ".join(f"{k}: `{v}`" for k, v in meta.items()), ""]
    lines += [f"{report['n']} answers ({report['positives']} hallucinated) from {report['groups']} source "
              f"contexts. Intervals: {conf:.0%} percentile, {report['bootstrap']['resamples']} resamples of "
              f"source-context groups (seed {report['bootstrap']['seed']}).", ""]
    systems = report["systems"]

    def table(kind: str, heading: str, keys: Sequence[str], names: Sequence[str]) -> None:
        rows = [(n, scope, res) for n in systems for scope, res in (systems[n].get(kind) or {}).items()]
        if not rows:
            return
        lines.extend([f"**{heading}**", "", "| system | scope | " + " | ".join(names) + " |",
                      "|---|---|" + "---|" * len(names)])
        for n, scope, res in rows:
            lines.append(f"| {n} | {scope} | " + " | ".join(_cell(res, k) for k in keys) + " |")
        lines.append("")

    table("answer", "Answer level (positive = hallucinated)", ("precision", "recall", "f1"), ("P", "R", "F1"))
    table("span", "Span level (micro character overlap)", ("precision", "recall", "f1"), ("P", "R", "F1"))
    table("ranking", "Ranking by score", ("auroc", "ap"), ("AUROC", "AP"))
    label_rows = [(n, s["labels"]) for n, s in systems.items() if s.get("labels")]
    if label_rows:
        lines += ["**Detection recall by gold answer type** (overall)", "",
                  "| system | " + " | ".join(GOLD_TYPES[1:]) + " | span recall contradicted | span recall baseless |",
                  "|---|" + "---|" * (len(GOLD_TYPES) + 1)]
        for n, lab in label_rows:
            rec = lab["recall_by_gold_type"]
            cells = [f"{_fmt(rec[t]['recall'])} (n={rec[t]['n']})" if t in rec else "—" for t in GOLD_TYPES[1:]]
            sr = lab.get("span_recall_by_label") or {}
            cells += [_fmt(sr[k]["recall"]) if k in sr else "—" for k in ("contradicted", "baseless")]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    for n, lab in label_rows:
        conf_table = lab["confusion"]
        cols = next(iter(conf_table.values())).keys() if conf_table else ()
        if not set(cols) & {"contradicted", "baseless"}:
            continue  # no predicted labels: nothing to confuse
        lines += [f"**Gold answer type × predicted label**, {n}", "",
                  "| gold \\ predicted | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
        lines += [f"| {g} | " + " | ".join(str(row[c]) for c in cols) + " |" for g, row in conf_table.items()]
        lines.append("")
    for n, s in systems.items():
        if s.get("grounding"):
            g = s["grounding"]
            lines.append(f"Evidence grounding, {n}: P {_fmt(g['precision'])} R {_fmt(g['recall'])} "
                         f"F1 {_fmt(g['f1'])} on {g['detected']}/{g['cases']} detected contradictions.")
    notes = [(n, s["threshold"]) for n, s in systems.items() if s.get("threshold") is not None]
    for n, thr in notes:
        lines.append(f"- {n}: flags `score >= {thr:.4f}` (threshold maximising F1 on the train split).")
    return "\n".join(lines).rstrip() + "\n"
