"""Leave-one-task-out on RAGTruth **train** (issue 25, selection by cross-domain validation)::

    python3 -m rt4chart_training.verifier.loto --judge verifier --model-dir DIR [--per-task 300] [--seed 0] \\
        [--pool all|local-validation] [--bootstrap 1000] --out DIR [--resume]

``--judge`` is any name of ``rt4chart.judges.registry`` (``verifier``, ``local``, ``lexical``, ...), built by
``build_auditor`` with the command line's defaults, as ``rt4chart eval run`` builds it; ``--model-dir`` is passed to
it (a ``{task}`` in it names one folder per held-out task, e.g. a verifier trained without that task: the held-out
task's row then reads every answer's score from that folder's judge). The RAGTruth test split is never read.

Sample: for each task, ``--per-task`` answers of RAGTruth train taken source group by source group (groups in a
seeded order; the last group is cut to the count). ``--pool local-validation`` draws only from the shipped local
judge's validation slice (the groups its card's seed and ``val_frac`` held out of its training): the other train
answers are training data of the local judge (and of a verifier trained on RAGTruth train pairs), so their scores
are in-sample there.

For each held-out task, with the answer score of ``rt4chart eval`` (``prediction_from_result``: the highest claim
score where the judge scores its claims):

- the threshold is the F1-maximising one (``rt4chart.eval.baselines.choose_threshold``) on the other two tasks'
  answers, applied unchanged to the held-out task;
- AUROC of the judge's score against the uncovered-token fraction (``uncovered_token_risk``) on that task, and
  their difference;
- answer F1 at the chosen threshold against the always-flag F1 on that task, and their difference; the judge's own
  verdicts' F1 (its calibrated threshold, chosen on all of train) beside them;
- 95% group-bootstrap intervals over the held-out task's source groups (``rt4chart.eval.metrics``; the threshold
  is held fixed, so its own uncertainty is not in them); the differences are paired (the same resamples).

A row passes (issue 25, acceptance 3) when AUROC is above uncovered-token and F1 at the threshold is at least the
always-flag F1. Writes ``loto.json`` and ``loto.md`` into ``--out`` (with the audit results, resumable with
``--resume``) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from rt4chart.eval.baselines import choose_threshold, uncovered_token_risk
from rt4chart.eval.datasets import TASKS, EvalRecord, load_ragtruth
from rt4chart.eval.metrics import (answer_counts, answer_prf, auroc, auroc_weighted, bootstrap_weights,
                                   percentile_interval, prf_weighted)

from ..splits import data_dir, validation_groups

POOLS = ("all", "local-validation")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.loto",
                                description=__doc__.split("\n")[0])
    p.add_argument("--judge", default="verifier", help="a judge name of rt4chart.judges.registry [verifier]")
    p.add_argument("--model-dir", default=None, help="the judge's model folder; {task} = one per held-out task")
    p.add_argument("--per-task", type=int, default=300, help="RAGTruth train answers per task [300]")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and of the bootstrap [0]")
    p.add_argument("--pool", choices=POOLS, default="all",
                   help="all train answers, or the shipped local judge's validation slice only [all]")
    p.add_argument("--bootstrap", type=int, default=1000, help="group-bootstrap resamples; 0 = no intervals [1000]")
    p.add_argument("--out", required=True, help="output folder (audit results, loto.json, loto.md)")
    p.add_argument("--resume", action="store_true", help="keep audit results already in --out")
    return p


def local_validation_groups() -> set[str]:
    """The RAGTruth train groups of the validation slice (``splits.validation_groups``), which the local judge and
    the verifier's build held out of their training."""
    records = load_ragtruth("train", data_dir=data_dir())
    return set(validation_groups([r.group for r in records]))


def sample_records(records: Sequence[EvalRecord], per_task: int, seed: int,
                   groups: Optional[set[str]] = None) -> list[EvalRecord]:
    """``per_task`` records of each task (all when fewer), whole source groups in a seeded order, the last group
    cut; only records of ``groups`` when given. Tasks in ``TASKS`` order, records in file order within a group."""
    out: list[EvalRecord] = []
    for k, task in enumerate(TASKS):
        recs = [r for r in records if r.task == task and (groups is None or r.group in groups)]
        order = sorted({r.group for r in recs})
        random.Random(seed * 1009 + k).shuffle(order)
        rank = {g: i for i, g in enumerate(order)}
        out.extend(sorted(recs, key=lambda r: rank[r.group])[:per_task])  # sorted is stable: file order kept
    return out


def _interval(values: np.ndarray) -> Optional[list[float]]:
    lo, hi = percentile_interval(values)
    return None if np.isnan(lo) else [round(lo, 4), round(hi, 4)]


def _r(x: float) -> Optional[float]:
    return None if x is None or np.isnan(x) else round(float(x), 4)


def loto_rows(tasks: Sequence[str], y: Sequence[bool], scores: Mapping[str, Sequence[float]],
              baseline: Sequence[float], groups: Sequence[str], *, flags: Optional[Mapping[str, Sequence[bool]]] = None,
              n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """One row per held-out task (in ``TASKS`` order, those present): the threshold chosen on the other tasks and
    the measures on the held-out one (see the module docstring). ``scores[t]`` (and ``flags[t]``, the judge's own
    verdicts) are every answer's, from the judge used when ``t`` is held out."""
    task_arr, y_arr = np.asarray(tasks), np.asarray(y, dtype=bool)
    base = np.asarray(baseline, dtype=float)
    rows = []
    for t in [t for t in TASKS if t in set(tasks)]:
        s = np.asarray(scores[t], dtype=float)
        fit, held = task_arr != t, task_arr == t
        if not fit.any():
            raise ValueError("leave-one-task-out needs at least two tasks")
        thr = choose_threshold(y_arr[fit], s[fit])
        yh, sh, bh = y_arr[held], s[held], base[held]
        pred = sh >= thr
        at = answer_prf(yh, pred)
        always = answer_prf(yh, np.ones_like(yh))
        row: dict[str, Any] = {
            "task": t, "n": int(held.sum()), "hallucinated": int(yh.sum()), "threshold": round(float(thr), 6),
            "auroc": _r(auroc(yh, sh)), "auroc_uncovered": _r(auroc(yh, bh)),
            "precision": round(at.precision, 4), "recall": round(at.recall, 4), "f1": round(at.f1, 4),
            "f1_always": round(always.f1, 4), "flagged": round(float(pred.mean()), 4),
        }
        row["auroc_delta"] = _r(row["auroc"] - row["auroc_uncovered"]) if None not in (
            row["auroc"], row["auroc_uncovered"]) else None
        row["f1_delta"] = round(at.f1 - always.f1, 4)
        if flags is not None:
            own = answer_prf(yh, np.asarray(flags[t], dtype=bool)[held])
            row["f1_own"] = round(own.f1, 4)
        row["passes"] = bool(row["auroc_delta"] is not None and row["auroc_delta"] > 0 and row["f1_delta"] >= 0)
        if n_boot > 0:
            gh = [g for g, h in zip(groups, held) if h]
            w = bootstrap_weights(gh, n=n_boot, seed=seed)
            a_j, a_u = auroc_weighted(yh, sh, w), auroc_weighted(yh, bh, w)
            f_at = prf_weighted(answer_counts(yh, pred), w)["f1"]
            f_all = prf_weighted(answer_counts(yh, np.ones_like(yh)), w)["f1"]
            row["ci"] = {"auroc": _interval(a_j), "auroc_uncovered": _interval(a_u),
                         "auroc_delta": _interval(a_j - a_u), "f1": _interval(f_at),
                         "f1_always": _interval(f_all), "f1_delta": _interval(f_at - f_all)}
        rows.append(row)
    return rows


def _cell(row: Mapping[str, Any], key: str) -> str:
    v = row.get(key)
    if v is None:
        return "—"
    ci = (row.get("ci") or {}).get(key)
    return f"{v:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def render_markdown(report: Mapping[str, Any]) -> str:
    """The table of ``loto_rows`` with the run's judge, sample and command."""
    cfg = report["config"]
    own = any("f1_own" in r for r in report["rows"])
    head = ["held-out task", "n (halluc.)", "AUROC judge", "AUROC uncovered", "Δ AUROC", "threshold (other tasks)",
            "F1 at threshold (P / R)", "always-flag F1", "Δ F1"] + (["judge's own F1"] if own else []) + ["passes"]
    lines = [f"### Leave-one-task-out, RAGTruth train: judge {cfg['judge']}"
             + (f" (`{cfg['model_dir']}`)" if cfg.get("model_dir") else ""), "",
             f"{cfg['per_task']} answers per task (pool {cfg['pool']}, seed {cfg['seed']}); "
             f"`{cfg['command']}`", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in report["rows"]:
        cells = [r["task"], f"{r['n']} ({r['hallucinated']})", _cell(r, "auroc"), _cell(r, "auroc_uncovered"),
                 _cell(r, "auroc_delta"), f"{r['threshold']:.4g}",
                 f"{_cell(r, 'f1')} ({r['precision']:.3f} / {r['recall']:.3f})", _cell(r, "f1_always"),
                 _cell(r, "f1_delta")] + ([_cell(r, "f1_own")] if own else []) + ["yes" if r["passes"] else "no"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _model_dir(spec: Optional[str], task: str) -> Optional[str]:
    return spec.replace("{task}", task) if spec else None


def audit(records: Sequence[EvalRecord], judge: str, model_dir: Optional[str], out: Path, resume: bool
          ) -> tuple[dict[str, Any], float, int]:
    """Audit ``records`` into ``out/results.jsonl`` with the judge ``build_auditor`` makes; returns the predictions
    by id, the audit's seconds and the number of failed records."""
    from rt4chart.eval.predictions import read_predictions
    from rt4chart.eval.runner import run
    from rt4chart.judges.registry import build_auditor

    if (out / "results.jsonl").exists() and not resume:
        raise SystemExit(f"{out / 'results.jsonl'} exists; pass --resume to keep it or another --out")
    options = {"model_dir": model_dir} if model_dir else {}
    auditor = build_auditor(judge, **options)
    results, summary = run(records, auditor, out, resume=resume)
    preds, errors = read_predictions(results, audit_results=True)
    return preds, summary.seconds, len(errors)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.per_task < 1:
        raise SystemExit("--per-task must be at least 1")
    from rt4chart.errors import Rt4chartError

    started = time.perf_counter()
    out = Path(args.out)
    records = load_ragtruth("train", data_dir=data_dir())
    pool = local_validation_groups() if args.pool == "local-validation" else None
    sample = sample_records(records, args.per_task, args.seed, pool)
    per_model = bool(args.model_dir and "{task}" in args.model_dir)
    preds_by: dict[str, dict] = {}
    audits: dict[str, dict] = {}
    try:
        for t in (TASKS if per_model else ("all",)):
            folder = out / f"heldout-{t}" if per_model else out
            preds, seconds, failed = audit(sample, args.judge, _model_dir(args.model_dir, t), folder, args.resume)
            preds_by[t] = preds
            audits[t] = {"seconds": round(seconds, 1), "failed": failed, "model_dir": _model_dir(args.model_dir, t)}
            print(f"[loto] audited {len(sample)} answers ({t}) in {seconds:.0f}s, {failed} failed", flush=True)
    except Rt4chartError as exc:
        raise SystemExit(f"error: {exc}") from None
    kept = [r for r in sample if all(r.id in p and p[r.id].score is not None for p in preds_by.values())]

    def per_task(get):
        return {t: [get(preds_by[t if per_model else "all"][r.id]) for r in kept] for t in TASKS}

    rows = loto_rows([r.task for r in kept], [r.hallucinated for r in kept], per_task(lambda p: p.score),
                     [uncovered_token_risk(r.context, r.answer) for r in kept], [r.group for r in kept],
                     flags=per_task(lambda p: bool(p.hallucinated)), n_boot=args.bootstrap, seed=args.seed)
    command = "python3 -m rt4chart_training.verifier.loto " + shlex.join(sys.argv[1:] if argv is None else argv)
    pooled = None if per_model else choose_threshold([r.hallucinated for r in kept],
                                                     [preds_by["all"][r.id].score for r in kept])
    report = {
        "config": {"judge": args.judge, "model_dir": args.model_dir, "per_task": args.per_task, "seed": args.seed,
                   "pool": args.pool, "bootstrap": args.bootstrap, "split": "train", "command": command},
        "sample": {"answers": len(sample), "scored": len(kept), "groups": len({r.group for r in kept}),
                   "ids": [r.id for r in sample]},
        "audits": audits, "rows": rows, "seconds": round(time.perf_counter() - started, 1),
        # the F1-maximising answer threshold on every task of the sample together: the one a model ships with
        # (python3 -m rt4chart_training.verifier.threshold), once the rows show that a threshold chosen this way
        # on some tasks transfers to another
        "threshold_all_tasks": None if pooled is None else round(float(pooled), 6),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "loto.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    table = render_markdown(report)
    (out / "loto.md").write_text(table, encoding="utf-8")
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
