"""``python -m training.hybrid_combination fit ROWS``: the two logistic models of the hybrid judge's
combination card, their thresholds chosen on out-of-fold predictions, and the card written with its metrics."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.model_selection import GroupKFold

from rt4chart.judges.combine import CARD, FEATURES

FOLDS = 5
GRID = np.round(np.arange(0.05, 0.96, 0.01), 2)


def load_rows(path: Path) -> list[dict[str, Any]]:
    """Rows with a gold label; an NLI pair only when the rule decomposer kept it one claim (its label is the
    claim's)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["gold"] and (r["source"].startswith("ragtruth") or r["claims"] == 1)]


def weights(rows: list[dict[str, Any]]) -> np.ndarray:
    """Each source (a RAGTruth task, an NLI set) weighs the same in all, whatever its number of rows."""
    count: dict[str, int] = defaultdict(int)
    for r in rows:
        count[r["source"]] += 1
    return np.array([len(rows) / (len(count) * count[r["source"]]) for r in rows])


def oof(X: np.ndarray, y: np.ndarray, w: np.ndarray, groups: list[str]) -> np.ndarray:
    out = np.zeros(len(y))
    for train, test in GroupKFold(FOLDS).split(X, y, groups):
        model = LogisticRegression(C=1.0, max_iter=2000).fit(X[train], y[train], sample_weight=w[train])
        out[test] = model.predict_proba(X[test])[:, 1]
    return out


def objective(rows: list[dict[str, Any]], p: np.ndarray, t: float) -> dict[str, float]:
    """At threshold ``t``: RAGTruth answer F1 (an answer is hallucinated when one of its claims is), NLI accuracy
    of entailed vs not (the mean over sets), and their mean, which the threshold maximises."""
    answers: dict[str, list[bool]] = defaultdict(lambda: [False, False])
    nli: dict[str, list[bool]] = defaultdict(list)
    for r, pi in zip(rows, p):
        flagged, gold = bool(pi >= t), r["gold"] != "entailed"
        if r["source"].startswith("ragtruth"):
            a = answers[r["record"]]
            a[0] |= gold
            a[1] |= flagged
        else:
            nli[r["source"]].append(flagged == gold)
    gold_a = [a[0] for a in answers.values()]
    pred_a = [a[1] for a in answers.values()]
    f1 = float(f1_score(gold_a, pred_a)) if answers else 0.0
    acc = float(np.mean([np.mean(v) for v in nli.values()])) if nli else 0.0
    return {"ragtruth_answer_f1": f1, "nli_accuracy": acc, "objective": (f1 + acc) / 2 if answers and nli
            else f1 or acc}


def _part(model: LogisticRegression, threshold: float) -> dict[str, Any]:
    return {"coef": {n: round(float(c), 6) for n, c in zip(FEATURES, model.coef_[0])},
            "intercept": round(float(model.intercept_[0]), 6), "threshold": float(threshold)}


def fit(path: Path, card_path: Optional[Path], *, version: str) -> dict[str, Any]:
    rows = load_rows(path)
    X = np.array([r["features"] for r in rows])
    y = np.array([r["gold"] != "entailed" for r in rows], dtype=int)
    w = weights(rows)
    groups = [r["group"] for r in rows]
    p = oof(X, y, w, groups)
    scores = {float(t): objective(rows, p, float(t)) for t in GRID}
    t_best = max(scores, key=lambda t: scores[t]["objective"])
    llm_only = -X[:, FEATURES.index("llm")]
    local_only = X[:, FEATURES.index("local")]
    metrics: dict[str, Any] = {"out_of_fold": scores[t_best], "auroc_out_of_fold": round(float(
        roc_auc_score(y, p, sample_weight=w)), 4), "auroc_llm_alone": round(float(roc_auc_score(
            y, -llm_only, sample_weight=w)), 4), "auroc_local_alone": round(float(roc_auc_score(
                y, local_only, sample_weight=w)), 4)}
    by_source: dict[str, Any] = {}
    for source in sorted({r["source"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["source"] == source]
        ys = y[idx]
        if 0 < ys.sum() < len(ys):
            by_source[source] = {"rows": len(idx), "auroc": round(float(roc_auc_score(ys, p[idx])), 4),
                                 "auroc_llm": round(float(roc_auc_score(ys, -llm_only[idx])), 4),
                                 "auroc_local": round(float(roc_auc_score(ys, local_only[idx])), 4)}
        else:
            by_source[source] = {"rows": len(idx)}
    metrics["by_source"] = by_source
    hallucinated = LogisticRegression(C=1.0, max_iter=2000).fit(X, y, sample_weight=w)

    bad = [i for i, r in enumerate(rows) if r["gold"] in ("contradicted", "baseless")]
    Xc, yc = X[bad], np.array([rows[i]["gold"] == "contradicted" for i in bad], dtype=int)
    wc, gc = weights([rows[i] for i in bad]), [groups[i] for i in bad]
    pc = oof(Xc, yc, wc, gc)
    acc = {float(t): float(np.average((pc >= t) == yc, weights=wc)) for t in GRID}
    tc = max(acc, key=lambda t: acc[t])
    metrics["contradicted_out_of_fold"] = {"accuracy": round(acc[tc], 4), "auroc": round(float(
        roc_auc_score(yc, pc, sample_weight=wc)), 4), "always_majority": round(float(max(
            np.average(yc, weights=wc), 1 - np.average(yc, weights=wc))), 4)}
    contradicted = LogisticRegression(C=1.0, max_iter=2000).fit(Xc, yc, sample_weight=wc)
    card = {
        "version": version, "features": list(FEATURES),
        "hallucinated": _part(hallucinated, t_best), "contradicted": _part(contradicted, tc),
        "fitted_on": {"rows": len(rows), "sources": {s: v["rows"] for s, v in by_source.items()},
                      "rows_file": path.name, "llm": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (llama.cpp server)",
                      "prompt": "hybrid_supports.v4",
                      "data": "; ".join(
                          (["RAGTruth train, validation slice (splits.validation_records)"]
                           if any(s.startswith("ragtruth") for s in by_source) else [])
                          + (["NLI sets allowed for training (snli dev, cad_snli, conjnli, taxinli mnli_train, "
                              "fever_nli_dev)"] if any(not s.startswith("ragtruth") for s in by_source) else []))},
        "threshold_rule": ("maximises the mean of RAGTruth answer F1 and NLI entailed-vs-not accuracy, out of fold"
                           if any(s.startswith("ragtruth") for s in by_source) else
                           "maximises NLI entailed-vs-not accuracy (the mean over sets), out of fold"),
        "metrics": metrics,
    }
    if card_path is None:
        from rt4chart.judges.local import model_dir

        card_path = Path(model_dir()) / CARD
    card_path.write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps({k: card[k] for k in ("hallucinated", "contradicted", "metrics")}, indent=2))
    return card
