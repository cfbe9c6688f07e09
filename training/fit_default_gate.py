"""Rebuild the shipped RAGScope-E gate: fit on the RAGTruth train split (15,090 answers, all three tasks).

    python3 -m training.fit_default_gate [--data-root DIR] [--out FILE]

``--out`` defaults to the shipped gate in the installed package (``rt4chart/gate/models/ragscope_e.v1.npz``, the
repository's ``src/rt4chart/gate/models`` with an editable install).

Deterministic: the logistic regression uses lbfgs with random_state 13 and the TF-IDF vocabulary is fitted on the
training split's distinct contexts and answers, so a rerun writes the same coefficients. The test split is never read.
"""

from __future__ import annotations

import argparse
import time
from importlib import resources
from pathlib import Path

import numpy as np

from rt4chart.eval.datasets import load_ragtruth
from rt4chart.gate import DEFAULT_GATE_FILE, RAGScopeE, save_gate


def shipped_gate_file() -> Path:
    """Where the installed package keeps the shipped gate (package data)."""
    return Path(str(resources.files("rt4chart.gate") / "models")) / DEFAULT_GATE_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default=None, help="folder holding ragtruth/ (default: shared/data lookup)")
    parser.add_argument("--out", type=Path, default=None, help="the gate file to write (default: the shipped one)")
    args = parser.parse_args()
    args.out = args.out or shipped_gate_file()

    t0 = time.perf_counter()
    records = load_ragtruth("train", root=args.data_root)
    X = [r.to_record() for r in records]
    y = np.array([r.hallucinated for r in records])
    gate = RAGScopeE().fit(X, y)
    provenance = {
        "data": "RAGTruth train split (wandb/RAGTruth-processed layout), all tasks",
        "n_records": len(X),
        "positive_rate": round(float(y.mean()), 4),
        "script": "python3 -m training.fit_default_gate",
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
