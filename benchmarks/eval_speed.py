"""Evaluation harness speed (issue 4, criterion 3): loading RAGTruth and scoring 2,700 predictions.

Prints a table (median wall-clock and CPU time; on a shared machine compare CPU time); not a test.
Targets: full test split loads in < 5 s; scoring 2,700 predictions (answer + span
P/R/F1 and AUROC/AP, per task and overall, each with 1,000 group-bootstrap resamples) in < 2 s.
The baseline measured in the same run is the straightforward way to get the same intervals: resample record
indices per bootstrap round and call scikit-learn's metrics (timed on 100 rounds, scaled to 1,000).

    python3 -m benchmarks.eval_speed [--repeat 3]      # RAGTruth from $RT4CHART_DATA_DIR, else shared/data
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time is what to compare on a shared, busy machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def _fmt(t: tuple[float, float], scale: float = 1.0) -> str:
    return f"{t[0] * scale:.2f} s / {t[1] * scale:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from rt4chart.eval import metrics as M
    from rt4chart.eval.baselines import uncovered_token_risk
    from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
    from rt4chart.eval.predictions import Prediction, read_predictions, write_predictions
    from rt4chart.eval.scoring import evaluate

    data_dir = os.environ.get(ENV_DATA_DIR)

    rows: list[tuple[str, str, str]] = []
    t_test = _time(lambda: load_ragtruth("test", data_dir=data_dir), args.repeat)
    rows.append(("load RAGTruth test (2,700)", _fmt(t_test), "< 5 s"))
    t_train = _time(lambda: load_ragtruth("train", data_dir=data_dir), 1)
    rows.append(("load RAGTruth train (15,090)", _fmt(t_train), "—"))

    recs = load_ragtruth("test", data_dir=data_dir)
    rng = np.random.default_rng(0)
    preds = []
    for r in recs:  # a synthetic detector: noisy scores, one span on flagged answers
        s = float(np.clip(0.35 * r.hallucinated + rng.random() * 0.8, 0, 1))
        flagged = s > 0.5
        span = ((0, min(len(r.answer), 80)),) if flagged and r.answer else ()
        preds.append(Prediction(r.id, flagged, s, span, "baseless" if flagged else "entailed"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        write_predictions(path, preds)

        def score_file() -> dict:
            loaded, errors = read_predictions(path)
            assert not errors
            return evaluate(recs, {"p": [loaded[r.id] for r in recs]}, n_boot=1000, seed=0)

        t_score = _time(score_file, args.repeat)
    rows.append(("score 2,700 predictions (read + all metrics + 1,000 bootstrap)", _fmt(t_score), "< 2 s"))

    # Baseline: per-round index resampling with scikit-learn metrics, overall scope only.
    from sklearn.metrics import average_precision_score, precision_recall_fscore_support, roc_auc_score

    y = np.array([r.hallucinated for r in recs])
    p = np.array([x.hallucinated for x in preds])
    s = np.array([x.score for x in preds])
    weights = M.bootstrap_weights([r.group for r in recs], n=100, seed=0).astype(int)
    base = np.arange(len(recs))

    def naive() -> None:
        for row in weights:
            idx = np.repeat(base, row)
            precision_recall_fscore_support(y[idx], p[idx], average="binary", zero_division=0)
            roc_auc_score(y[idx], s[idx])
            average_precision_score(y[idx], s[idx])

    t_naive = _time(naive, 1)
    rows.append(("baseline: sklearn per resample, overall only, 1,000 rounds (scaled from 100)",
                 _fmt(t_naive, 10.0), "—"))
    t_uncov = _time(lambda: [uncovered_token_risk(r.context, r.answer) for r in recs], 1)
    rows.append(("uncovered-token risk, 2,700 answers", _fmt(t_uncov) + f" ({1000 * t_uncov[1] / len(recs):.2f} ms/ex)",
                 "—"))

    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  {'wall / CPU (median)':>30}  target")
    print("-" * (width + 42))
    for name, t, target in rows:
        print(f"{name:<{width}}  {t:>30}  {target}")
    print(json.dumps({"load_test_wall_s": round(t_test[0], 3), "load_test_cpu_s": round(t_test[1], 3),
                      "score_wall_s": round(t_score[0], 3), "score_cpu_s": round(t_score[1], 3),
                      "naive_score_cpu_s": round(10 * t_naive[1], 3)}))


if __name__ == "__main__":
    main()
