"""Loading audit results for the report and summarising them.

A results file holds one JSON object a line: an audit result (``AuditResult.to_json()``) or an error record
``{"id", "index", "error": {"field", "message", "kind"}}``. A line that is not JSON, or not one of these two
shapes, becomes an error record of kind ``"parse"`` naming the line, so a damaged file still yields a report; a
file with no such line at all is not results (an input file, say) and raises ``InputError`` saying what it looks
like (``rt4chart.io.results_mismatch``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from ..errors import InputError
from ..io import results_mismatch
from ..types import AuditResult

LABELS = ("contradicted", "baseless", "unverified", "entailed")
_DROP_CLAIM_FIELDS = ("raw",)  # raw model replies can be long; the report shows labels, reasons and evidence


def _parse_error(line_no: int, message: str) -> dict:
    return {"id": None, "index": line_no, "error": {"field": None, "message": message, "kind": "parse"}}


def normalize(item: Union[AuditResult, dict, Any], position: int = 0) -> dict:
    """One report entry: a result dict (without raw model output) or an error dict; never raises."""
    if isinstance(item, AuditResult):
        item = item.to_json()
    if not isinstance(item, dict):
        return _parse_error(position, f"expected a JSON object, got {type(item).__name__}")
    if "error" in item and "answer" not in item:
        err = item["error"] if isinstance(item["error"], dict) else {"message": str(item["error"])}
        return {"id": item.get("id"), "index": item.get("index", position),
                "error": {"field": err.get("field"), "message": str(err.get("message", "")),
                          "kind": err.get("kind", "input")}}
    if not isinstance(item.get("answer"), str) or not isinstance(item.get("claims"), list) \
            or not isinstance(item.get("label"), str):
        return _parse_error(position, "not an audit result: needs 'answer' and 'label' (strings) and 'claims' (list)")
    out = dict(item)
    out["claims"] = [
        {k: v for k, v in c.items() if k not in _DROP_CLAIM_FIELDS} if isinstance(c, dict) else c
        for c in item.get("claims", [])
    ]
    return out


def load_results(path: Union[str, Path]) -> list[dict]:
    """Read a results JSONL file into report entries (see the module docstring); blank lines are skipped."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read results file: {exc.strerror or exc}", record=str(p)) from exc
    entries: list[dict] = []
    first: Optional[str] = None
    for line_no, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        first = line if first is None else first
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            entries.append(_parse_error(line_no, f"line {line_no} is not valid JSON: {exc.msg}"))
            continue
        entries.append(normalize(obj, line_no))
    if first is not None and all(e.get("error", {}).get("kind") == "parse" for e in entries):
        raise InputError(results_mismatch(str(p), first) or f"{p} holds no audit result and no error line")
    return entries


def _task(entry: dict) -> Any:
    cfg = entry.get("config")
    task = cfg.get("task") if isinstance(cfg, dict) else None
    return task if isinstance(task, str) and task else None


def needs_review_of(entry: dict) -> bool:
    """A result no judge confirmed: ``hallucinated`` None, or (files written before it was) an unverified label."""
    return entry.get("hallucinated") is not True and (entry.get("hallucinated") is None
                                                      or entry.get("label") == "unverified")


def summarize(entries: Iterable[dict]) -> dict:
    """Counts for the report header: records, answer and claim labels, hallucinations, errors, tasks, usage."""
    labels: Counter = Counter()
    claim_labels: Counter = Counter()
    tasks: Counter = Counter()
    judges: Counter = Counter()
    usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "seconds": 0.0}
    n = results = errors = hallucinated = needs_review = 0
    for e in entries:
        n += 1
        if "error" in e and "answer" not in e:
            errors += 1
            continue
        results += 1
        labels[str(e.get("label"))] += 1
        hallucinated += e.get("hallucinated") is True
        needs_review += needs_review_of(e)
        for c in e.get("claims", []):
            if isinstance(c, dict):
                claim_labels[str(c.get("label"))] += 1
        if _task(e):
            tasks[_task(e)] += 1
        if e.get("judge"):
            judges[str(e["judge"])] += 1
        u = e.get("usage")
        if isinstance(u, dict):
            for k in usage:
                v = u.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    usage[k] += v
    return {
        "records": n, "results": results, "errors": errors, "hallucinated": hallucinated, "needs_review": needs_review,
        "labels": {k: labels.get(k, 0) for k in LABELS} | {k: v for k, v in labels.items() if k not in LABELS},
        "claim_labels": {k: claim_labels.get(k, 0) for k in LABELS},
        "claims": sum(claim_labels.values()),
        "tasks": sorted(tasks), "task_counts": dict(sorted(tasks.items())),
        "judges": sorted(judges), "usage": {k: round(v, 6) for k, v in usage.items()},
    }
