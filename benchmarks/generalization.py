"""Generalization: the offline default judge against the lexical judge and the uncovered-word share, on RAGTruth
validation per task and on the eval-only claim-verification sets of ``../shared/data/nli`` (issue 53, item 1)::

    python3 -m benchmarks.generalization [--judges local,lexical] [--per-set 500] [--seed 0]
        [--sets ragtruth-qa,...,rte] [-o runs/generalization]

Every record is audited as a user sends it, through ``rt4chart.eval.runner.run`` (the ``eval run`` batch runner,
results resumable per judge and set under ``-o``): RAGTruth records as ``load_ragtruth`` builds them (the validation
slice of train that every training stage holds out, ``training.splits.validation_records``), NLI pairs as
``rt4chart.eval.datasets.load_nli`` builds them (evidence / premise the context, claim / hypothesis the answer, no
question; positive = not supported: refuted, not enough info, not entailed, WiCE's partially supported). Each set is
a seeded uniform sample of at most ``--per-set`` records (identical pairs once).

Scores and decisions are the eval scorer's: a judge's answer score is ``prediction_from_result``'s (the riskiest
claim's score), its F1 is at its own default decision; the uncovered-word share is the eval baseline
``uncovered-token`` (``rt4chart.eval.baselines.uncovered_token_risk``, flagged at its F1-best RAGTruth-train threshold,
``runner.train_thresholds``); always-flag is the F1 floor. Δ is the default's AUROC minus the lexical judge's, measured
in the same run, with a 95% interval from 1,000 resamples of context groups. Prints the markdown table and writes it
with a JSON file (``generalization.md``, ``generalization.json``) to ``-o``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from rt4chart.eval.datasets import EvalRecord, load_nli
from rt4chart.eval.metrics import answer_prf, auroc, auroc_weighted, bootstrap_weights, percentile_interval
from rt4chart.eval.predictions import read_predictions
from rt4chart.eval.runner import baseline_systems, run, train_thresholds
from rt4chart.judges.registry import build_auditor

#: benchmark set name -> (NLI folder, split files pooled); the eval-only sets of nli/README.md
NLI_SETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "climate_fever": ("climate_fever", ("test",)),
    "healthver": ("healthver", ("test",)),
    "covidfact": ("covidfact", ("dev", "train")),
    "scifact": ("scifact", ("dev", "train")),
    "wice": ("wice", ("dev", "test")),
    "fever_symmetric": ("fever_symmetric", ("v0.2_test",)),
    "anli": ("anli", ("r1_test", "r2_test", "r3_test")),
    "rte": ("rte_glue_binary", ("val_part", "train_part")),
}
RAGTRUTH_SETS = ("ragtruth-qa", "ragtruth-summary", "ragtruth-data2txt")
SETS = (*RAGTRUTH_SETS, *NLI_SETS)
UNCOVERED = "uncovered-token"


def load_set(name: str, per_set: Optional[int], seed: int) -> list[EvalRecord]:
    """The seeded sample of one benchmark set."""
    if name in RAGTRUTH_SETS:
        from training.splits import validation_records

        task = name.split("-", 1)[1]
        records = [r for r in validation_records() if r.task == task]
    else:
        folder, splits = NLI_SETS[name]
        records = load_nli(folder, splits)
    if per_set is None or per_set >= len(records):
        return records
    keep = sorted(random.Random(f"{seed}:{name}").sample(range(len(records)), per_set))
    return [records[i] for i in keep]


#: the model server of the llm and hybrid judges (``--base-url``, ``--model``)
MODEL: dict = {}
#: the local and hybrid judges' model folder (``--model-dir``; empty: the shipped one)
LOCAL: dict = {}


def judge_scores(judge: str, name: str, records: Sequence[EvalRecord], out: Path) -> dict:
    """Audit ``records`` with ``judge`` (resuming ``out/<judge>/<name>/results.jsonl``): scores, decisions, time."""
    folder = out / judge / name
    t0 = time.perf_counter()
    options = {**(MODEL if judge in ("llm", "hybrid") else {}), **(LOCAL if judge in ("local", "hybrid") else {})}
    results, _ = run(records, build_auditor(judge, concurrency=1, **options), folder, resume=True)
    seconds = time.perf_counter() - t0
    preds, errors = read_predictions(results, audit_results=True)
    missing = [r.id for r in records if r.id not in preds]
    if missing:
        raise SystemExit(f"{judge} on {name}: {len(missing)} records without a result ({errors[:3]}); rerun to resume")
    return {"score": np.array([preds[r.id].score for r in records], dtype=float),
            "flag": np.array([bool(preds[r.id].hallucinated) for r in records]),
            "seconds": seconds}


def score_set(name: str, records: Sequence[EvalRecord], judges: Sequence[str], out: Path,
              thresholds: dict) -> dict:
    y = np.array([r.hallucinated for r in records])
    systems = {j: judge_scores(j, name, records, out) for j in judges}
    base, _ = baseline_systems(records, thresholds)
    systems[UNCOVERED] = {"score": np.array([p.score for p in base[UNCOVERED]], dtype=float),
                          "flag": np.array([bool(p.hallucinated) for p in base[UNCOVERED]])}
    row: dict = {"set": name, "n": len(records), "positive_rate": round(float(y.mean()), 4), "systems": {}}
    for sname, s in systems.items():
        m = answer_prf(y, s["flag"])
        row["systems"][sname] = {"auroc": round(auroc(y, s["score"]), 4), "precision": round(m.precision, 4),
                                 "recall": round(m.recall, 4), "f1": round(m.f1, 4),
                                 **({"seconds": round(s["seconds"], 1)} if "seconds" in s else {})}
    row["always_flag_f1"] = round(answer_prf(y, np.ones_like(y)).f1, 4)
    if "local" in systems and "lexical" in systems:
        w = bootstrap_weights([r.group for r in records], n=1000, seed=0)
        delta = auroc_weighted(y, systems["local"]["score"], w) - auroc_weighted(y, systems["lexical"]["score"], w)
        row["delta_auroc_local_lexical"] = round(row["systems"]["local"]["auroc"] - row["systems"]["lexical"]["auroc"],
                                                 4)
        row["delta_interval"] = [round(v, 4) for v in percentile_interval(delta)]
    return row


def _f(x: Optional[float]) -> str:
    return "–" if x is None or x != x else f"{x:.3f}"


def render(rows: Sequence[dict], judges: Sequence[str], per_set: Optional[int]) -> str:
    names = [*judges, UNCOVERED]
    cap = f"seeded sample of at most {per_set} records per set" if per_set else "every record"
    head = (["set", "n", "pos"] + [f"{j} AUROC" for j in names] + ["Δ local−lexical [95%]"]
            + [f"{j} F1" for j in names] + ["always-flag F1"])
    lines = [f"Answer-level AUROC and F1 (positive = not supported / hallucinated; {cap}; F1 at each system's own "
             "default decision)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        s = r["systems"]
        delta = r.get("delta_auroc_local_lexical")
        iv = r.get("delta_interval", [None, None])
        cells = ([r["set"], str(r["n"]), f"{r['positive_rate']:.2f}"] + [_f(s[j]["auroc"]) for j in names]
                 + [f"{delta:+.3f} [{iv[0]:+.3f}, {iv[1]:+.3f}]" if delta is not None else "–"]
                 + [_f(s[j]["f1"]) for j in names] + [_f(r["always_flag_f1"])])
        lines.append("| " + " | ".join(cells) + " |")
    nli = [r for r in rows if r["set"] in NLI_SETS and "delta_auroc_local_lexical" in r]
    if nli:
        mean = {j: float(np.mean([r["systems"][j]["auroc"] for r in nli])) for j in names}
        lines.append("| mean of the NLI sets | | | " + " | ".join(_f(mean[j]) for j in names) + " | "
                     f"{mean.get('local', 0) - mean.get('lexical', 0):+.3f} |" + " |" * (len(names) + 1))
        at_least = sum(r["delta_auroc_local_lexical"] >= 0 for r in nli)
        by_002 = sum(r["delta_auroc_local_lexical"] >= 0.02 for r in nli)
        lines += ["", f"Issue 53's acceptance on the {len(nli)} eval-only sets: local AUROC ≥ lexical on {at_least}, "
                      f"higher by 0.02 or more on {by_002} (wanted: all {len(nli)}, and 6)."]
    return "\n".join(lines) + "\n"


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judges", default="local,lexical", help="comma-separated judge names")
    ap.add_argument("--base-url", default=None, help="the model server of the llm and hybrid judges")
    ap.add_argument("--model", default=None, help="the model name of the llm and hybrid judges")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    ap.add_argument("--per-set", type=int, default=500, help="seeded sample size per set (0: every record)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-dir", default=None, help="the local and hybrid judges' model folder (default: shipped)")
    ap.add_argument("-o", "--out", default="runs/generalization", help="results (resumable), table and JSON")
    args = ap.parse_args(argv)
    if args.base_url:
        MODEL.update(base_url=args.base_url, model=args.model, cache=False)
    if args.model_dir:
        LOCAL.update(model_dir=args.model_dir)
    judges = [j for j in args.judges.split(",") if j]
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)}; expected {', '.join(SETS)}")
    per_set = args.per_set or None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    commit, started = _commit(), time.perf_counter()  # the code that runs, read before the run
    thresholds = train_thresholds()
    rows = []
    for name in sets:
        records = load_set(name, per_set, args.seed)
        rows.append(score_set(name, records, judges, out, thresholds))
        s = rows[-1]["systems"]
        print(f"[{name}] n={len(records)} " + " ".join(f"{j} AUROC {v['auroc']:.3f} F1 {v['f1']:.3f}"
                                                          for j, v in s.items()), file=sys.stderr, flush=True)
    table = render(rows, judges, per_set)
    meta = {"command": "python3 -m benchmarks.generalization " + " ".join(argv if argv is not None else sys.argv[1:]),
            "date": dt.date.today().isoformat(), "commit": commit,
            "seconds": round(time.perf_counter() - started), "judges": judges, "per_set": per_set,
            "seed": args.seed, "uncovered_threshold": thresholds[UNCOVERED],
            "nli_splits": {k: list(v[1]) for k, v in NLI_SETS.items()}}
    (out / "generalization.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    (out / "generalization.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
