"""Labelled answers (a file of records with a gold label and optional spans) and what a calibration fitted on them
reports: the reader ``rt4chart calibrate`` uses (``read_labelled``), the earlier audit results of those answers
(``results_of``, ``judge_of``, ``judge_pool``) and the cross-validated precision, recall and F1 before and after a
calibration (``cv_report``, ``render_report``). Usable from Python as from the command line."""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple, Optional, Sequence

from ..audit.calibration import scored_decision
from ..errors import ConfigError, InputError
from ..io import FieldMap, checked_rows, id_key, json_objects, read_rows
from ..types import Record
from .datasets import EvalRecord, group_key
from .predictions import Prediction, span_pairs
from .scoring import evaluate

__all__ = ["Labelled", "cv_report", "judge_of", "judge_pool", "read_labelled", "render_report", "results_of"]


class Labelled(NamedTuple):
    """A labelled answer: its record, whether it is hallucinated and its gold spans (``(start, end)`` in the answer;
    empty when none are given)."""

    record: Record
    hallucinated: bool
    spans: tuple[tuple[int, int], ...]


_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")


def _label(value: Any, rid: Any, field: str) -> bool:
    """A gold label: true/false (or, as CSV writes them, the strings true/false/1/0/yes/no)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    if value is None:
        raise InputError("missing label (true if the answer is hallucinated, else false)", record=rid, field=field)
    raise InputError(f"label {value!r} is not true or false", record=rid, field=field)


def _spans(value: Any, rid: Any, answer: str, hallucinated: bool) -> tuple[tuple[int, int], ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError("spans is not a JSON list of {start, end}", record=rid, field="spans") from None
    pairs = span_pairs(value, rid, "spans") or ()
    for s, e in pairs:
        if e > len(answer) or s == e:
            raise InputError(f"span [{s}, {e}) is empty or outside the answer ({len(answer)} characters)",
                             record=rid, field="spans")
    if pairs and not hallucinated:
        raise InputError("spans are given for an answer labelled not hallucinated", record=rid, field="spans")
    return pairs


def read_labelled(path: "str | os.PathLike[str]", fmt: Optional[str] = None, fields: FieldMap = FieldMap(),
                  label_field: str = "hallucinated") -> list[Labelled]:
    """A ``Labelled`` for every row of ``path`` (JSONL, JSON, CSV or Parquet; ``fmt`` None: from the extension or
    content): its record (``fields`` maps the input's field names), its gold label ``label_field`` (true if the
    answer is hallucinated; CSV's true/false/1/0/yes/no too) and its optional ``spans`` (``[{start, end}]`` in the
    answer, JSON text in a CSV). ``InputError`` naming every bad row."""
    rows = list(read_rows(path, fmt))
    out, errors = [], []
    for row, (_, rec, rid) in zip(rows, checked_rows(rows, fields)):
        try:
            if isinstance(rec, InputError):
                raise rec
            data = row.data or {}
            label = _label(data.get(label_field), rec.id, label_field)
            out.append(Labelled(rec, label, _spans(data.get("spans"), rec.id, rec.answer, label)))
        except InputError as exc:
            errors.append(exc)
    if errors:
        shown = "; ".join(str(e) for e in errors[:10]) + (f"; … and {len(errors) - 10} more" if len(errors) > 10
                                                          else "")
        raise InputError(f"{len(errors)} of {len(rows)} labelled rows are invalid: {shown}")
    return out


def results_of(labelled: Sequence[Labelled], results_path: str) -> list[dict]:
    """The audit result of each labelled record from an earlier audit of them, checked to be one judge's results
    of these very answers, without a calibration."""
    by_id: dict[str, dict] = {}
    for obj in json_objects(results_path):
        by_id.setdefault(id_key(obj.get("id")), obj)
    out = []
    for rec, _, _ in labelled:
        line = by_id.get(id_key(rec.id))
        if line is None:
            raise InputError(f"{results_path} has no result for this record", record=rec.id, field="id")
        if "claims" not in line:
            raise InputError(f"{results_path} holds an error for this record, not a result", record=rec.id)
        if line.get("answer") != rec.answer:
            raise InputError(f"the answer in {results_path} differs from the labelled one", record=rec.id,
                             field="answer")
        if (line.get("config") or {}).get("calibration"):
            raise InputError(f"{results_path} was audited with a calibration; calibrate on results audited without "
                             "one", record=rec.id)
        out.append(line)
    return out


def judge_pool(results_path: str, judge: str, fingerprint: Optional[str]) -> list[dict]:
    """Every result of this judge and configuration in ``results_path``, labelled or not: its decisions give the
    judge's own threshold, toward which a calibration from few labels is shrunk (``rt4chart.eval.calibrate``)."""
    return [obj for obj in json_objects(results_path) if "claims" in obj and scored_decision(obj) is not None
            and str(obj.get("judge")) == judge and (obj.get("config") or {}).get("judge_fingerprint") == fingerprint]


def judge_of(results: Sequence[dict], wanted: str = "auto") -> tuple[str, Optional[str]]:
    """The judge and the configuration fingerprint of ``results``: ``InputError`` when they are more than one,
    ``ConfigError`` when ``wanted`` names another judge ("auto": any)."""
    judges = {str(r.get("judge")) for r in results}
    prints = {(r.get("config") or {}).get("judge_fingerprint") for r in results}
    if len(judges) != 1 or len(prints) != 1:
        raise InputError(f"the results come from more than one judge or configuration (judges {sorted(judges)}, "
                         f"{len(prints)} fingerprints): calibrate one judge at a time")
    judge = judges.pop()
    if wanted not in ("auto", judge):
        raise ConfigError(f"--judge {wanted} was asked for, but the results were audited by the {judge} judge")
    return judge, prints.pop()


def cv_report(data: Sequence[Labelled], results: Sequence[dict], scores: Sequence[float], decided: Any, *,
              n_boot: int = 1000, seed: int = 0) -> dict:
    """Answer precision, recall and F1 of the judge's own decisions and of the cross-validated calibrated ones, with
    paired group-bootstrap intervals (answers sharing a context resample together)."""
    records = [EvalRecord(id=str(rec.id), context=rec.context, question=rec.question, answer=rec.answer,
                          task=rec.task or "all", group=group_key(rec.task or "", rec.context), hallucinated=label)
               for rec, label, _ in data]
    before = [Prediction(r.id, bool(res["hallucinated"]), s) for r, res, s in zip(records, results, scores)]
    after = [Prediction(r.id, bool(d) if d >= 0 else bool(res["hallucinated"]), s)
             for r, res, s, d in zip(records, results, scores, decided)]
    full = evaluate(records, {"uncalibrated": before, "calibrated": after}, n_boot=n_boot, seed=seed,
                    reference="uncalibrated")
    out: dict[str, Any] = {"n": full["n"], "positives": full["positives"], "groups": full["groups"]}
    for name in ("uncalibrated", "calibrated"):
        system = full["systems"][name]
        out[name] = {"answer": system["answer"]["overall"], "ranking": (system["ranking"] or {}).get("overall")}
    out["delta_f1"] = full["systems"]["calibrated"]["deltas"]["overall"]["answer_f1"]
    return out


def render_report(cal: Any, report: dict, failed: int) -> str:
    """The calibration ``cal`` and its ``cv_report`` in words and a Markdown table (``failed``: folds that kept the
    judge's decisions)."""
    def prf(name: str) -> str:
        a = report[name]["answer"]
        ci = a["ci"]
        return " | ".join(f"{a[k]:.3f} [{ci[k][0]:.3f}, {ci[k][1]:.3f}]" for k in ("precision", "recall", "f1"))

    d = report["delta_f1"]
    lines = [
        f"calibration of the {cal.judge} judge ({cal.method}, target {cal.meta['target']}): "
        f"{report['n']} labels used ({report['positives']} hallucinated, {report['groups']} contexts)",
        f"threshold: answer score >= {cal.threshold:.4f} (calibrated probability {cal.probability_threshold:.3f})"
        + (f"; fitted {cal.meta['fitted_threshold']:.4f}, shrunk toward the judge's own "
           f"{cal.meta['judge_threshold']:.4f} with the weight of {cal.meta['prior_labels']:g} labels"
           if "fitted_threshold" in cal.meta else ""),
        "",
        f"{cal.meta['folds']}-fold cross-validated, 95% group-bootstrap intervals:",
        "| | precision | recall | F1 |", "|---|---|---|---|",
        f"| before (the judge's decisions) | {prf('uncalibrated')} |",
        f"| after (calibrated) | {prf('calibrated')} |",
        f"F1 after − before: {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]",
    ]
    if failed:
        lines.append(f"({failed} folds had too few labels or one class: their answers keep the judge's decision)")
    return "\n".join(lines)


