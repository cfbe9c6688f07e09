"""Rebuild the shipped RAGScope-E gate: fit on the RAGTruth train split (15,090 answers, all three tasks).

    python scripts/fit_default_gate.py [--data-root DIR] [--out src/rt4chart/gate/models/ragscope_e.v1.npz]

Deterministic: the logistic regression uses lbfgs with random_state 13 and the TF-IDF vocabulary is fitted on the
training split's distinct contexts and answers, so a rerun writes the same coefficients. The test split is never read.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from rt4chart.eval.datasets import load_ragtruth
from rt4chart.gate import DEFAULT_GATE_FILE, RAGScopeE, save_gate

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "rt4chart" / "gate" / "models" / DEFAULT_GATE_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default=None, help="folder holding ragtruth/ (default: shared/data lookup)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()

    t0 = time.perf_counter()
    records = load_ragtruth("train", root=args.data_root)
    X = [r.to_record() for r in records]
    y = np.array([r.hallucinated for r in records])
    gate = RAGScopeE().fit(X, y)
    provenance = {
        "data": "RAGTruth train split (wandb/RAGTruth-processed layout), all tasks",
        "n_records": len(X),
        "positive_rate": round(float(y.mean()), 4),
        "script": "scripts/fit_default_gate.py",
    }
    path = save_gate(gate, args.out, provenance=provenance)
    print(
        f"fitted RAGScope-E on {len(X)} records (positive rate {y.mean():.3f}), "
        f"{gate.tfidf_.n_terms} TF-IDF terms, lbfgs iterations {gate.n_iter_}, "
        f"{time.perf_counter() - t0:.1f}s -> {path} ({path.stat().st_size / 1e6:.2f} MB)"
    )
    for name, w in zip(gate.feature_names, gate.coef_):
        print(f"  {name:26s} {w:+.3f}")


if __name__ == "__main__":
    main()
