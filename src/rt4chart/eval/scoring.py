"""Score predictions against a dataset's gold labels: one code path for our runs and for external detectors.

Predictions are read and paired with records by :mod:`rt4chart.eval.predictions`. :func:`evaluate` scores several
systems on the same records with paired group-bootstrap intervals (the same resamples for every system), per task
and overall, optionally with each system's paired deltas against a reference system, and returns a plain JSON-ready
report; :func:`render_markdown` turns it into tables.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from . import metrics as M
from .datasets import TASKS, EvalRecord
from .predictions import PRED_LABELS, Prediction

__all__ = ["evaluate", "render_markdown", "gold_type", "GOLD_TYPES"]

#: Answer-level gold type from the gold span labels.
GOLD_TYPES = ("none", "contradicted", "baseless", "both")


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
    reference: Optional[str] = None,
) -> dict:
    """Score every system (predictions aligned with ``records``) per task and overall.

    Answer-level P/R/F1 (positive = hallucinated), span-level micro character-overlap P/R/F1 (systems with spans),
    AUROC/AP (systems with scores), per-label analysis and context-evidence grounding (where gold evidence
    exists), each with a ``confidence`` percentile interval from ``n_boot`` resamples of source-context groups.
    The resamples of a scope are drawn once and shared by all systems (paired comparison).

    ``reference`` (a system name): every other system also gets ``deltas`` ``{scope: {metric: [delta, lo, hi]}}``,
    its metric minus the reference's (``answer_precision`` ... ``span_f1``, ``auroc``, ``ap``), the interval taken
    over the differences of the same resamples (a paired group bootstrap).
    """
    if reference is not None and reference not in systems:
        raise ValueError(f"reference system {reference!r} is not among the systems scored")
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
    draws: dict[str, dict[str, dict[str, tuple[float, np.ndarray]]]] = {}  # system -> scope -> metric -> values
    for name, preds in systems.items():
        out: dict[str, Any] = {}
        mine = draws.setdefault(name, {})
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
            values = mine.setdefault(scope, {})
            if a_counts is not None:
                res = M.prf_from_counts(*a_counts[idx].sum(axis=0)).as_dict()
                res["n"] = int(idx.size)
                boot = M.prf_weighted(a_counts[idx], w)
                res["ci"] = _interval_dict(boot, confidence)
                answer[scope] = res
                values.update({f"answer_{k}": (res[k], boot[k]) for k in boot})
            if s_counts is not None:
                res = M.prf_from_counts(*s_counts[idx].sum(axis=0)).as_dict()
                boot = M.prf_weighted(s_counts[idx], w)
                res["ci"] = _interval_dict(boot, confidence)
                span[scope] = res
                values.update({f"span_{k}": (res[k], boot[k]) for k in boot})
            if scores is not None:
                yy, ss = y[idx], scores[idx]
                boot_auc, boot_ap = M.ranking_weighted(yy, ss, w)
                values["auroc"] = (M.auroc(yy, ss), boot_auc)
                values["ap"] = (M.average_precision(yy, ss), boot_ap)
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
    if reference is not None:
        for name in systems:
            if name != reference:
                report["systems"][name]["deltas"] = _paired_deltas(draws[name], draws[reference], confidence)
    return report


def _paired_deltas(system: Mapping[str, Mapping[str, tuple[float, np.ndarray]]],
                   reference: Mapping[str, Mapping[str, tuple[float, np.ndarray]]], confidence: float) -> dict:
    """``{scope: {metric: [delta, lo, hi]}}`` for the metrics both systems have: point minus point, and the
    percentile interval of the per-resample differences (both systems' values come from the same resamples)."""
    out: dict[str, dict[str, list[Optional[float]]]] = {}
    for scope, metrics in system.items():
        ref = reference.get(scope, {})
        rows = {}
        for metric, (point, boot) in metrics.items():
            if metric not in ref:
                continue
            ref_point, ref_boot = ref[metric]
            lo, hi = M.percentile_interval(boot - ref_boot, confidence)
            rows[metric] = [_nan_to_none(float(point) - float(ref_point)), _nan_to_none(lo), _nan_to_none(hi)]
        if rows:
            out[scope] = rows
    return out


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
    claims = report.get("claims") or {}
    if claims.get("all"):
        per = ", ".join(f"{scope} {_fmt(c['unverified_rate'])}" for scope, c in claims.items() if scope != "all")
        a = claims["all"]
        lines.append(f"Claims: {a['claims']} in {a['answers']} answers; unverified rate {_fmt(a['unverified_rate'])}"
                     + (f" ({per})" if per else "") + f"; {a['answers_without_claims']} answers with no claim.")
    notes = [(n, s["threshold"]) for n, s in systems.items() if s.get("threshold") is not None]
    for n, thr in notes:
        lines.append(f"- {n}: flags `score >= {thr:.4f}` (threshold maximising F1 on the train split).")
    return "\n".join(lines).rstrip() + "\n"
