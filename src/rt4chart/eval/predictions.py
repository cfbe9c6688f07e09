"""Predictions: one detector output per answer, read from and written to JSONL, and paired with records by id.

A prediction (one JSON object per line) has ``id``, ``hallucinated`` (bool), and optionally ``score`` (float,
higher = more likely hallucinated), ``spans`` (``[[start, end], …]`` or ``[{"start", "end"}, …]`` answer
offsets), ``label`` (entailed / contradicted / baseless / unverified) and ``evidence`` (context offsets, for
grounding). Audit results (``AuditResult.to_json()``) are predictions too: see :func:`prediction_from_result`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from rt4chart.audit.calibration import answer_score, scored_decision
from rt4chart.errors import InputError

from .datasets import EvalRecord

__all__ = [
    "PRED_LABELS",
    "Prediction",
    "parse_prediction",
    "prediction_from_result",
    "read_predictions",
    "write_predictions",
    "align",
]

#: The answer labels a prediction may carry.
PRED_LABELS = ("entailed", "contradicted", "baseless", "unverified")


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


def span_pairs(value: Any, rid: Any, name: str) -> Optional[tuple[tuple[int, int], ...]]:
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
    return Prediction(id=rid, hallucinated=hall, score=score, spans=span_pairs(obj.get("spans"), rid, "spans"),
                      label=label, evidence=span_pairs(obj.get("evidence"), rid, "evidence"))


def prediction_from_result(result: Mapping[str, Any]) -> Prediction:
    """Map an audit result (``AuditResult.to_json()``) to a prediction.

    ``hallucinated`` and ``spans`` (merged non-entailed answer spans) are taken as is, but for an unverified answer
    (``hallucinated`` None), which counts as not flagged (``scored_decision``); ``label`` is the answer
    label; ``evidence`` collects the context evidence of contradicted claims. ``score`` is the answer score
    (``rt4chart.audit.calibration.answer_score``: the highest claim score when the judge scored every claim it
    decided, else the fraction of answer characters inside ``spans``).
    """
    where = str(result.get("id", "?"))
    fields = {k: result[k] for k in ("id", "hallucinated", "spans", "error") if k in result}
    if "hallucinated" in fields and scored_decision(result) is not None:
        fields["hallucinated"] = scored_decision(result)  # an unverified answer is scored as not flagged
    base = parse_prediction(fields, where)
    spans = base.spans or ()
    score = answer_score({**result, "spans": spans})
    label = result.get("label")
    label = label if label in PRED_LABELS else None
    evidence: list[tuple[int, int]] = []
    for claim in result.get("claims") or ():
        if isinstance(claim, dict) and claim.get("label") == "contradicted":
            for ev in claim.get("evidence") or ():
                if isinstance(ev, dict) and "start" in ev and "end" in ev:
                    evidence.append((int(ev["start"]), int(ev["end"])))
    return Prediction(id=base.id, hallucinated=base.hallucinated, score=score, spans=tuple(spans),
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
