"""The evaluation pipeline behind ``rt4chart eval run`` and ``rt4chart eval score``.

``run``: load a dataset → audit every record with an Auditor (resumable JSONL of audit results) → predictions
JSONL → :func:`score` → metrics JSON + markdown table. ``score``: any predictions file, same scorer.

Baselines scored in the same table (RAGScope §II.B-C): *always hallucinated* (every answer flagged, whole answer
as span), *uncovered-token* and *ROUGE-L risk* (each flags ``risk >= t`` with ``t`` the F1-maximising threshold on
the RAGTruth train split, all tasks pooled; cached in the user cache folder, keyed by the train files' size and
mtime).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from rt4chart.errors import InputError
from rt4chart.io import json_objects

from .baselines import choose_threshold, rougel_risk, uncovered_token_risk
from .datasets import EvalRecord, load_ragtruth, ragtruth_dir
from .predictions import Prediction, align, read_predictions, write_predictions
from .scoring import evaluate, render_markdown

__all__ = ["BASELINES", "baseline_systems", "train_thresholds", "limit_records", "score", "run"]

#: name → risk function(context, answer); bump _BASELINE_VERSION when a function changes.
BASELINES: dict[str, Callable[[str, str], float]] = {
    "uncovered-token": uncovered_token_risk,
    "rouge-l": rougel_risk,
}
_BASELINE_VERSION = "1"


def _thresholds_dir(cache_dir: "str | os.PathLike[str] | None") -> Path:
    from platformdirs import user_cache_dir

    return Path(cache_dir or user_cache_dir("rt4chart")) / "eval"


def train_thresholds(
    root: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
    cache_dir: "str | os.PathLike[str] | None" = None,
    use_cache: bool = True,
) -> dict[str, float]:
    """F1-maximising thresholds of each risk baseline on the RAGTruth train split (all tasks pooled).

    ``root``/``data_dir`` locate RAGTruth as for ``load_ragtruth``. The thresholds are cached in
    ``<cache_dir>/eval/`` (default: the user cache folder; the command line passes ``$RT4CHART_CACHE_DIR``).
    """
    jdir = ragtruth_dir(root, data_dir=data_dir)
    stamp = [(f.name, f.stat().st_size, int(f.stat().st_mtime)) for f in sorted(jdir.glob("train_*.jsonl*"))]
    key = hashlib.sha1(json.dumps([_BASELINE_VERSION, stamp]).encode()).hexdigest()[:16]
    cache = _thresholds_dir(cache_dir) / f"thresholds-{key}.json"
    if use_cache and cache.exists():
        try:
            data = json.loads(cache.read_text())
            if set(data) == set(BASELINES):
                return {k: float(v) for k, v in data.items()}
        except (OSError, ValueError):
            pass
    train = load_ragtruth("train", root=jdir)
    y = [r.hallucinated for r in train]
    out = {name: choose_threshold(y, [fn(r.context, r.answer) for r in train]) for name, fn in BASELINES.items()}
    if use_cache:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(out))
        except OSError:
            pass
    return out


def baseline_systems(records: Sequence[EvalRecord], thresholds: Optional[Mapping[str, float]] = None
                     ) -> tuple[dict[str, list[Prediction]], dict[str, dict]]:
    """Baseline predictions for ``records`` and their notes (thresholds). Without a threshold a risk baseline is
    score-only (ranking metrics, no P/R/F1)."""
    systems: dict[str, list[Prediction]] = {
        "always-hallucinated": [Prediction(r.id, True, 1.0, ((0, len(r.answer)),) if r.answer else ())
                                for r in records],
    }
    notes: dict[str, dict] = {}
    for name, fn in BASELINES.items():
        thr = None if thresholds is None else thresholds.get(name)
        preds = []
        for r in records:
            s = fn(r.context, r.answer)
            preds.append(Prediction(r.id, None if thr is None else s >= thr, s))
        systems[name] = preds
        notes[name] = {"threshold": thr}
    return systems, notes


def limit_records(records: Sequence[EvalRecord], limit: Optional[int]) -> list[EvalRecord]:
    """The first ``limit`` records taken group by group, tasks interleaved (so a small limit covers every task and
    keeps source-context groups whole where it can)."""
    if limit is None or limit >= len(records):
        return list(records)
    by_task: dict[str, list[list[EvalRecord]]] = {}
    for r in records:
        groups = by_task.setdefault(r.task, [])
        if groups and groups[-1][0].group == r.group:
            groups[-1].append(r)
        else:
            groups.append([r])
    out: list[EvalRecord] = []
    queues = list(by_task.values())
    k = 0
    while len(out) < limit and any(k < len(q) for q in queues):
        for q in queues:
            if k < len(q):
                out.extend(q[k])
        k += 1
    return out[:limit]


def run_meta(dataset: str, split: str, task: Optional[str], **extra: Any) -> dict:
    meta = {"dataset": dataset, "split": split, "task": task or "all",
            "date": _dt.date.today().isoformat()}
    meta.update({k: v for k, v in extra.items() if v is not None})
    return meta


def score(
    records: Sequence[EvalRecord],
    preds: Mapping[str, Prediction],
    *,
    name: str = "predictions",
    baselines: bool = True,
    thresholds: Optional[Mapping[str, float]] = None,
    missing: str = "error",
    n_boot: int = 1000,
    seed: int = 0,
    meta: Optional[Mapping[str, Any]] = None,
) -> dict:
    """Score ``preds`` (by id) on ``records`` next to the baselines; returns the report (see ``evaluate``)."""
    kept, aligned, missing_ids, unknown = align(records, preds, missing=missing)
    if not kept:
        raise InputError("no prediction matches a record id of the dataset", field="id")
    systems: dict[str, Sequence[Prediction]] = {name: aligned}
    notes: dict[str, dict] = {}
    if baselines:
        base, notes = baseline_systems(kept, thresholds)
        systems.update(base)
    report = evaluate(kept, systems, n_boot=n_boot, seed=seed, notes=notes)
    report["meta"] = dict(meta or {})
    report["coverage"] = {"records": len(records), "scored": len(kept), "missing": len(missing_ids),
                          "missing_ids": missing_ids[:20], "unknown_ids": unknown[:20], "unknown": len(unknown)}
    return report


def write_outputs(report: Mapping[str, Any], out_dir: Path, title: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    metrics_path, table_path = out_dir / "metrics.json", out_dir / "table.md"
    metrics_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    table_path.write_text(render_markdown(report, title), encoding="utf-8")
    return metrics_path, table_path


def cascade_summary(records: Sequence[EvalRecord], cascade: Any) -> dict:
    """What the gate cascade (``rt4chart.gate.Cascade``, over ``records`` by position: every one of them, since a
    benchmark's records are all valid) saved and what it gave up: judge calls avoided, gold hallucinations accepted
    unjudged."""
    accept = cascade.accept
    accepted = sorted(cascade.accepted)
    positives = sum(r.hallucinated for r in records)
    missed = sum(records[i].hallucinated for i in accepted)
    return {
        "accept_fraction": accept,
        "records": len(records),
        "accepted_without_judge": len(accepted),
        "judge_records_saved": round(len(accepted) / max(len(records), 1), 4),
        "gold_hallucinated_accepted": missed,
        "recall_ceiling": round(1 - missed / positives, 4) if positives else None,
    }


def claim_labels(results_path: Path, records: Sequence[EvalRecord]) -> dict:
    """How the audit results' claims were labelled, overall and per task: claims, answers, the count of each label,
    ``unverified_rate`` (unverified claims over all claims) and ``answers_without_claims`` (answers the decomposer
    found nothing to check in). Rows that are not audit results (error rows) are left out."""
    task_of = {r.id: r.task or "all" for r in records}
    counts: dict[str, dict[str, int]] = {}
    for row in json_objects(results_path):
        if not isinstance(row.get("claims"), list):
            continue
        for scope in dict.fromkeys(("all", task_of.get(str(row.get("id")), "all"))):
            c = counts.setdefault(scope, {"answers": 0, "answers_without_claims": 0, "claims": 0})
            c["answers"] += 1
            c["answers_without_claims"] += not row["claims"]
            for claim in row["claims"]:
                label = claim.get("label") if isinstance(claim, dict) else None
                c["claims"] += 1
                c[str(label)] = c.get(str(label), 0) + 1
    for c in counts.values():
        c["unverified_rate"] = round(c.get("unverified", 0) / c["claims"], 4) if c["claims"] else None
    return counts


def results_to_predictions(results_path: Path, predictions_path: Path) -> tuple[int, list[InputError]]:
    """Convert audit results JSONL to predictions JSONL; returns (count, errors of failed/bad rows)."""
    preds, errors = read_predictions(results_path, audit_results=True)
    write_predictions(predictions_path, preds.values())
    return len(preds), errors


def run(
    records: Sequence[EvalRecord],
    auditor: Any,
    out_dir: "str | os.PathLike[str]",
    *,
    resume: bool = False,
    progress: bool = False,
    console: Any = None,
    gate_accept: Optional[float] = None,
) -> tuple[Path, Any]:
    """Audit ``records`` into ``out_dir/results.jsonl`` (resumable) with the lead's batch runner.

    ``gate_accept`` runs the gate cascade: the lowest-risk fraction is not judged (``summary.cascade``)."""
    from rt4chart.jobs.batch import run_batch

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    summary = run_batch([r.to_record() for r in records], auditor, results, resume=resume, progress=progress,
                        console=console, gate_accept=gate_accept)
    return results, summary
