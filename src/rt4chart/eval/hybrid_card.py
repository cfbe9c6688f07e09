"""Fitting the hybrid judge's combination card (``rt4chart.judges.combine``): the one fitting code, used by the
training script that fitted the shipped card (``python -m training.hybrid_combination fit``) and by
``rt4chart calibrate LABELLED --judge hybrid --card -o CARD.json``, which refits it for a user's model.

A row is one claim: its features (``rt4chart.judges.combine.features``), its gold label (``entailed``,
``contradicted``, ``baseless``, or ``hallucinated`` when the kind is not known), its record, source and context
group. ``fit_card`` fits ``hallucinated`` on every row and ``contradicted`` on the hallucinated rows of a known kind,
each threshold chosen on out-of-fold predictions (grouped by context, up to ``FOLDS`` folds): rows scored by answer
(RAGTruth's, a user's labelled answers: ``by_answer``) count by answer F1 (an answer is hallucinated when one of its
claims is), NLI pairs by accuracy, and the threshold maximises their mean. Rows with no kind of hallucination (a
user's labels say only whether an answer is hallucinated) keep the ``contradicted`` model of the card refitted.

``labelled_rows`` makes the rows of labelled answers from their audit by the hybrid judge in collecting mode
(``collecting``: every claim asked, none left to the local judge), so that a cached reply of an earlier audit costs
nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Mapping, Optional, Sequence

from ..errors import InputError
from ..judges.combine import FEATURES, Combination, Logistic
from ..judges.hybrid import HYBRID_PROMPT_VERSION, HybridJudge

__all__ = ["FOLDS", "by_answer", "claim_is_hallucinated", "collecting", "fit_card", "labelled_rows", "usable_rows"]

FOLDS = 5
#: the thresholds tried
GRID = tuple(round(0.05 + 0.01 * k, 2) for k in range(91))


def covered(start: int, end: int, spans: Sequence[Any]) -> int:
    """Characters of ``[start, end)`` that the gold ``spans`` (with ``start``/``end``) cover (summed)."""
    return sum(max(0, min(end, g.end) - max(start, g.start)) for g in spans)


def claim_is_hallucinated(start: int, end: int, spans: Sequence[Any]) -> bool:
    """A claim's label from gold answer spans: they cover a quarter of the claim's answer span, or 12 characters."""
    cov = covered(start, end, spans)
    return cov >= min(12, end - start) or cov >= 0.25 * (end - start)


def by_answer(row: Mapping[str, Any]) -> bool:
    """Whether a row counts by its answer (answer F1) rather than as one NLI pair (accuracy)."""
    return row.get("unit") == "answer" or str(row["source"]).startswith("ragtruth")


def usable_rows(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows with a gold label; an NLI pair only when the rule decomposer kept it one claim (its label is the
    claim's)."""
    return [r for r in rows if r["gold"] and (by_answer(r) or r["claims"] == 1)]


def weights(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Each source (a RAGTruth task, an NLI set) weighs the same in all, whatever its number of rows."""
    import numpy as np

    count: dict[str, int] = defaultdict(int)
    for r in rows:
        count[r["source"]] += 1
    return np.array([len(rows) / (len(count) * count[r["source"]]) for r in rows])


def _model() -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, max_iter=2000)


def oof(X: Any, y: Any, w: Any, groups: list[str]) -> Any:
    """Out-of-fold P(hallucinated), folds grouped by context (as many as ``FOLDS``, at most one per group)."""
    import numpy as np
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for train, test in GroupKFold(min(FOLDS, len(set(groups)))).split(X, y, groups):
        out[test] = _model().fit(X[train], y[train], sample_weight=w[train]).predict_proba(X[test])[:, 1]
    return out


def objective(rows: Sequence[Mapping[str, Any]], p: Any, t: float) -> dict[str, float]:
    """At threshold ``t``: answer F1 of the rows scored by answer, NLI accuracy of entailed vs not (the mean over
    sets), and their mean (or the one there is), which the threshold maximises."""
    import numpy as np
    from sklearn.metrics import f1_score

    answers: dict[str, list[bool]] = defaultdict(lambda: [False, False])
    nli: dict[str, list[bool]] = defaultdict(list)
    for r, pi in zip(rows, p):
        flagged, gold = bool(pi >= t), r["gold"] != "entailed"
        if by_answer(r):
            a = answers[r["record"]]
            a[0] |= gold
            a[1] |= flagged
        else:
            nli[r["source"]].append(flagged == gold)
    gold_a = [a[0] for a in answers.values()]
    pred_a = [a[1] for a in answers.values()]
    f1 = float(f1_score(gold_a, pred_a, zero_division=0.0)) if answers else 0.0
    acc = float(np.mean([np.mean(v) for v in nli.values()])) if nli else 0.0
    return {"ragtruth_answer_f1": f1, "nli_accuracy": acc, "objective": (f1 + acc) / 2 if answers and nli
            else f1 or acc}


def _part(model: Any, threshold: float) -> dict[str, Any]:
    return {"coef": {n: round(float(c), 6) for n, c in zip(FEATURES, model.coef_[0])},
            "intercept": round(float(model.intercept_[0]), 6), "threshold": float(threshold)}


def fit_card(rows: Sequence[Mapping[str, Any]], *, version: str, fitted_for: Mapping[str, Any], rows_file: str,
             data: str, base: Optional[Combination] = None) -> dict[str, Any]:
    """The combination card fitted on ``rows`` (module docstring), for the model ``fitted_for`` (``name``, ``gguf``,
    ``model``); ``data`` says in words what the rows are; ``base``: the card whose ``contradicted`` model is kept
    when the rows hold too few of a known kind (None: the shipped card). ``InputError`` when the rows cannot fit
    ``hallucinated`` (one class, or fewer than two contexts)."""
    import numpy as np
    from sklearn.metrics import roc_auc_score

    rows = usable_rows(rows)
    X = np.array([r["features"] for r in rows], dtype=float).reshape(len(rows), len(FEATURES))
    y = np.array([r["gold"] != "entailed" for r in rows], dtype=int)
    groups = [str(r["group"]) for r in rows]
    if len(set(y.tolist())) < 2 or len(set(groups)) < 2:
        raise InputError(f"the combination needs claims of both kinds (hallucinated and not) from at least two "
                         f"contexts; the labelled answers gave {len(rows)} claims, {int(y.sum())} hallucinated, from "
                         f"{len(set(groups))} contexts")
    w = weights(rows)
    try:
        p = oof(X, y, w, groups)
    except ValueError as exc:  # a training fold of one class
        raise InputError(f"too few labelled answers to fit the combination out of fold ({exc})") from None
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
    hallucinated = _part(_model().fit(X, y, sample_weight=w), t_best)

    bad = [i for i, r in enumerate(rows) if r["gold"] in ("contradicted", "baseless")]
    yc = np.array([rows[i]["gold"] == "contradicted" for i in bad], dtype=int)
    if len(set(yc.tolist())) == 2 and len({groups[i] for i in bad}) >= 2:
        Xc, wc, gc = X[bad], weights([rows[i] for i in bad]), [groups[i] for i in bad]
        pc = oof(Xc, yc, wc, gc)
        acc = {float(t): float(np.average((pc >= t) == yc, weights=wc)) for t in GRID}
        tc = max(acc, key=lambda t: acc[t])
        metrics["contradicted_out_of_fold"] = {"accuracy": round(acc[tc], 4), "auroc": round(float(
            roc_auc_score(yc, pc, sample_weight=wc)), 4), "always_majority": round(float(max(
                np.average(yc, weights=wc), 1 - np.average(yc, weights=wc))), 4)}
        contradicted = _part(_model().fit(Xc, yc, sample_weight=wc), tc)
    else:
        kept = base or Combination.load()
        contradicted = dict(kept.card["contradicted"])
        metrics["contradicted_kept"] = (f"too few claims labelled contradicted and baseless ({len(bad)}): the "
                                        f"contradicted model of card {kept.version} is kept")
    answers = any(by_answer(r) for r in rows)
    pairs = any(not by_answer(r) for r in rows)
    return {
        "version": version, "fitted_for": dict(fitted_for), "features": list(FEATURES),
        "hallucinated": hallucinated, "contradicted": contradicted,
        "fitted_on": {"rows": len(rows), "sources": {s: v["rows"] for s, v in by_source.items()},
                      "rows_file": rows_file, "llm": str(fitted_for.get("name") or ""),
                      "prompt": f"hybrid_supports.{HYBRID_PROMPT_VERSION}", "data": data},
        "threshold_rule": ("maximises the mean of answer F1 and NLI entailed-vs-not accuracy, out of fold"
                           if answers and pairs else "maximises answer F1, out of fold" if answers else
                           "maximises NLI entailed-vs-not accuracy (the mean over sets), out of fold"),
        "metrics": metrics,
    }


def collecting(judge: HybridJudge) -> Combination:
    """Set ``judge`` to collect rows: every claim asked, none left to the local judge alone (who decides is the
    judge's choice, not the data's), under a combination of zeros (which names no model). Returns the combination it
    had."""
    zero = Logistic(coef=tuple(0.0 for _ in FEATURES), intercept=0.0, threshold=0.5)
    had = judge.combination
    judge.combination = Combination(zero, zero, "collect", {})
    judge.ask_max_words, judge.rules_decide = None, False
    return had


class _Span:
    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


def labelled_rows(result: Mapping[str, Any], hallucinated: bool, spans: Sequence[tuple[int, int]], *, group: str,
                  source: str = "labelled") -> list[dict[str, Any]]:
    """The rows of one labelled answer from its audit by a collecting hybrid judge: a claim is entailed in an
    answer labelled not hallucinated; in a hallucinated one, hallucinated where the gold ``spans`` cover it
    (``claim_is_hallucinated``) and entailed elsewhere, or, without spans, hallucinated when it is the answer's only
    claim (else its label is unknown and it gives no row). A claim the model was not asked about gives none.
    ``group``: the answer's context (answers on one context stay in one fold)."""
    claims = result.get("claims") or []
    gold_spans = [_Span(s, e) for s, e in spans]
    out = []
    for c in claims:
        raw = c.get("raw")
        found = json.loads(raw) if isinstance(raw, str) and raw.startswith("{") else None
        if not found or "features" not in found:
            continue
        if not hallucinated:
            gold: Optional[str] = "entailed"
        elif gold_spans and c.get("answer_spans"):
            start, end = c["answer_spans"][0]["start"], c["answer_spans"][-1]["end"]
            gold = "hallucinated" if claim_is_hallucinated(start, end, gold_spans) else "entailed"
        else:
            gold = "hallucinated" if len(claims) == 1 else None
        out.append({"record": str(result.get("id")), "source": source, "unit": "answer",
                    "group": group, "claims": len(claims),
                    "claim": c.get("text"), "gold": gold, "p_supported": found.get("p_supported"),
                    "features": found["features"]})
    return out
