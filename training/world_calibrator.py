"""Fit the local judge's short-context calibrators (trees alone, trees with the tagger) on the NLI sets that may
train a model we ship, chosen by leave-one-source-out, on the rows of ``python -m training.world_rows``::

    python3 -m training.world_calibrator select [--rows runs/world-rows]   # the leave-one-source-out table
    python3 -m training.world_calibrator fit [--features NAME] [--rows ...] [--out-dir runs/world-models] [--every]

The trees and their calibrators learned from RAGTruth, whose contexts are passages, articles and records of
hundreds of words; a claim against a context shorter than almost all of them (``SHORT_QUANTILE`` of RAGTruth train's
context lengths, ``short_chars``) is out of what they saw. For such contexts the judge turns the claim model's
probability into a risk with a **short-context calibrator**: the claim probability beside the claim's lexical
coverage (``COVER``) and the record's shape, fitted on each NLI pair's riskiest claim with the pair's label (not
entailed = 1), every source weighing the same. ``select`` fits each candidate feature set (``CANDIDATES``) on all
sources but one and ranks the one left out, composing both calibrators as the judge does (the tagger's when
``rules.needs_tagger`` reads the trees-alone risk as not clearly supported). ``fit`` fits the chosen set on all
sources, exports both to ONNX into a model folder of its own (a copy of the shipped one; ``rt4chart audit --model-dir``
runs it) and names them, their features and the length cut in its model cards. Feature sets named ``...verifier`` also
read the claim verifier's probabilities (``python -m training.train_nli_verifier``; rows from ``world_rows
--verifier-dir``), and ``fit`` copies it (``--verifier-dir``) into the model folder. Longer contexts, RAGTruth's among
them, keep the calibrators of ``training.train_local_judge``. The shipped judge's short-context calibrators are
``checks+verifier`` fitted on the NLI sources (docs/results/claim_verifier.md, which also lists the sets tried).
Needs scikit-learn and onnx.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from rt4chart.eval.metrics import auroc
from rt4chart.judges.local import (CALIBRATOR, CALIBRATOR_FEATURES, CALIBRATOR_SHORT, CALIBRATOR_SHORT_T, CALIBRATOR_T,
                                   CARD, CLAIM_MODEL, CLAIM_MODEL_T, SPAN_MODEL_T, TAGGER_CARD, WORD_MODEL,
                                   WORD_MODEL_T, model_dir)
from rt4chart.judges.local import features as F
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import tagger as T
from rt4chart.judges.local import verifier as V
from rt4chart.judges.local.models import blend_short, reads_verifier

from .local_judge_onnx import export
from .world_rows import RAGTRUTH, SOURCES, WRITTEN

#: the claim-model matrix's columns (the tagged pair's adds the tagger's claim columns)
COLUMNS = F.CLAIM_MODEL_FEATURES
COLUMNS_T = F.CLAIM_MODEL_FEATURES + T.CLAIM_COLUMNS
COVER = ("c_uncovered", "c_cover1", "c_cover_a", "c_found_frac", "c_bigram_frac", "c_content", "c_words")
CHECKS = ("c_missing_numbers", "c_missing_names", "c_negation_match", "c_negated", "c_rival_cover")
SHAPE = ("r_ev_sentences", "a_claims")
WORDS = ("p_max", "p_mean")
#: candidate feature sets after the claim probability: (trees alone, with the tagger)
CANDIDATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "card-features": (CALIBRATOR_FEATURES[1:], CALIBRATOR_FEATURES[1:]),
    "cover": (CALIBRATOR_FEATURES[1:] + COVER, CALIBRATOR_FEATURES[1:] + COVER),
    "cover+checks": (CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE,
                     CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE),
    "all": (CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE + WORDS,
            CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE + WORDS + ("t_max", "t_mean")),
    "verifier": (CALIBRATOR_FEATURES[1:] + V.COLUMNS, CALIBRATOR_FEATURES[1:] + V.COLUMNS),
    "cover+verifier": (CALIBRATOR_FEATURES[1:] + COVER + V.COLUMNS, CALIBRATOR_FEATURES[1:] + COVER + V.COLUMNS),
    "checks+verifier": (CALIBRATOR_FEATURES[1:] + CHECKS + V.COLUMNS, CALIBRATOR_FEATURES[1:] + CHECKS + V.COLUMNS),
    "cover+checks+verifier": (CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE + V.COLUMNS,
                              CALIBRATOR_FEATURES[1:] + COVER + CHECKS + SHAPE + V.COLUMNS),
}
#: a context shorter than this share of RAGTruth train's contexts is read by the short-context calibrators
SHORT_QUANTILE = 0.005
#: a source's weight beside the others' (breaking_nli is nearly all contradictions written by one word swap)
SOURCE_WEIGHT = {"breaking_nli": 0.5}


def load(rows_dir: str) -> dict[str, dict]:
    """The rows of every source under ``rows_dir``, but the written corpus' selection domains (never fitted on)."""
    return {s: dict(np.load(Path(rows_dir) / f"{s}.npz")) for s in SOURCES
            if s not in WRITTEN[1:] and (Path(rows_dir) / f"{s}.npz").exists()}


def design(d: dict, names: tuple[str, ...], tagged: bool) -> np.ndarray:
    """Every claim's calibrator row: its raw claim probability, then ``names`` from its claim-model matrix or the
    claim verifier's probabilities (``verified``, ``V.COLUMNS``)."""
    cols = COLUMNS_T if tagged else COLUMNS
    m = d["matrix_t" if tagged else "matrix"]
    return np.column_stack([d["raw_t" if tagged else "raw"]] + [
        d["verified"][:, V.COLUMNS.index(n)] if n in V.COLUMNS else m[:, cols.index(n)] for n in names])


def riskiest(d: dict, tagged: bool) -> np.ndarray:
    """The row index of each record's riskiest claim by the raw claim probability."""
    raw, rec = d["raw_t" if tagged else "raw"], d["record"]
    out = []
    for r in np.unique(rec):
        idx = np.flatnonzero(rec == r)
        out.append(idx[int(np.argmax(raw[idx]))])
    return np.array(out)


#: the direction a calibrator's risk must move with a feature (1 up, -1 down) where it has one: more of the claim's
#: words found, or a likelier entailment, never raise it; more unfound words, numbers or names never lower it (so no
#: fit can learn that a claim with words the context never has is safe because the verifier entails it)
MONOTONE = {"c_uncovered": 1, "c_missing_numbers": 1, "c_missing_names": 1, "c_found_frac": -1, "c_cover1": -1,
            "c_cover_a": -1, "v_entailment": -1, "v_contradiction": 1}


def model(iters: int = 200, leaves: int = 15, min_leaf: int = 100, n_features: int = 1, seed: int = 13,
          names: tuple[str, ...] = ()):
    """The calibrator: gradient-boosted trees, increasing in the claim probability (the first column) and monotone
    in ``names`` (the other columns) as ``MONOTONE`` says."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    cst = [1] + [MONOTONE.get(n, 0) for n in names] + [0] * (n_features - 1 - len(names))
    return HistGradientBoostingClassifier(max_iter=iters, learning_rate=0.05, max_leaf_nodes=leaves,
                                          min_samples_leaf=min_leaf, l2_regularization=1.0, early_stopping=False,
                                          random_state=seed, monotonic_cst=cst)


def fit_pair(data: dict[str, dict], sources, names: tuple[tuple[str, ...], tuple[str, ...]]) -> list:
    """Both calibrators fitted on the riskiest claims of ``sources``, every source weighing the same."""
    out = []
    for tagged, feat in ((False, names[0]), (True, names[1])):
        X, y, w = [], [], []
        for s in sources:
            d = data[s]
            i = riskiest(d, tagged)
            X.append(design(d, feat, tagged)[i])
            y.append(d["y"][i])
            w.append(np.full(len(i), SOURCE_WEIGHT.get(s, 1.0) / len(i)))
        X, y, w = np.concatenate(X), np.concatenate(y), np.concatenate(w)
        m = model(n_features=X.shape[1], names=feat)
        m.fit(X, y, sample_weight=w * len(w) / w.sum())
        out.append(m)
    return out


def answer_scores(d: dict, pair: list, names, skip_below: float = R.SKIP_TAGGER_BELOW) -> np.ndarray:
    """Each record's answer score as the judge composes it: the trees-alone calibrator's riskiest claim, or, when
    that is not clearly supported (a rule fired, a short unmatched claim, or a risk at ``skip_below``), the tagged
    calibrator's."""
    q0 = pair[0].predict_proba(design(d, names[0], False))[:, 1]
    q1 = pair[1].predict_proba(design(d, names[1], True))[:, 1]
    rec = d["record"]
    out = []
    for r in np.unique(rec):
        idx = rec == r
        needs = d["short"][idx].any() or d["by_rule"][idx].any() or q0[idx].max() >= skip_below
        out.append((q1 if needs else q0)[idx].max())
    return np.array(out)


def labels(d: dict) -> np.ndarray:
    rec = d["record"]
    return np.array([d["y"][rec == r][0] for r in np.unique(rec)])


def shipped_scores(d: dict) -> np.ndarray:
    rec = d["record"]
    return np.array([(d["cal_t"] if d["needs"][rec == r].any() else d["cal"])[rec == r].max()
                     for r in np.unique(rec)])


def uncovered(d: dict) -> np.ndarray:
    """A word-overlap baseline on the same rows: the riskiest claim's share of content words not found."""
    rec, m = d["record"], d["matrix"]
    share = 1.0 - m[:, COLUMNS.index("c_found_frac")]
    return np.array([share[rec == r].max() for r in np.unique(rec)])


def unverified(d: dict) -> np.ndarray:
    """The claim verifier alone on the same rows: the riskiest claim's 1 - P(entailment)."""
    rec, risk = d["record"], 1.0 - d["verified"][:, V.COLUMNS.index("v_entailment")]
    return np.array([risk[rec == r].max() for r in np.unique(rec)])


def short_only(data: dict[str, dict], below: int) -> dict[str, dict]:
    """The NLI sources' claims whose context is shorter than ``below`` characters (the ones the short-context
    calibrators read)."""
    cut, col = np.log1p(below), COLUMNS.index("r_ev_chars")
    return {s: {k: v[d["matrix"][:, col] < cut] for k, v in d.items()} for s, d in data.items() if s not in RAGTRUTH}


def short_chars(quantile: float = SHORT_QUANTILE) -> int:
    """The context length (characters) below which a context is shorter than all but ``quantile`` of RAGTruth
    train's."""
    from rt4chart.eval.datasets import load_ragtruth

    from .splits import data_dir

    lengths = [len(r.context) for r in load_ragtruth("train", data_dir=data_dir())]
    return int(np.quantile(lengths, quantile))


#: ``--every``: the calibrators read every claim, whatever its context's length (``below_chars``)
EVERY_LENGTH = 10 ** 9


def rows_read(args) -> tuple[dict[str, dict], int]:
    """The sources' rows the calibrators are fitted on, and the context length they read below: the NLI sources'
    short contexts, or with ``--every`` every source (the RAGTruth validation slice's tasks too) at every length."""
    if args.every:
        return load(args.rows), EVERY_LENGTH
    below = short_chars()
    return short_only(load(args.rows), below), below


def select(args) -> None:
    data, _ = rows_read(args)
    sources = list(data)
    candidates = {k: v for k, v in CANDIDATES.items()
                  if not reads_verifier(v[0]) or all("verified" in d for d in data.values())}
    print("| held-out source | n | shipped | word overlap | verifier alone | " + " | ".join(candidates) + " |")
    print("|---|---|---|---|---|" + "---|" * len(candidates))
    means: dict[str, list] = {k: [] for k in ("shipped calibrators", "overlap", "verifier alone", *candidates)}
    for s in sources:
        y = labels(data[s])
        row = {"shipped calibrators": auroc(y, shipped_scores(data[s])), "overlap": auroc(y, uncovered(data[s])),
               "verifier alone": auroc(y, unverified(data[s])) if "verified" in data[s] else float("nan")}
        for name, feat in candidates.items():
            pair = fit_pair(data, [t for t in sources if t != s], feat)
            row[name] = auroc(y, answer_scores(data[s], pair, feat))
        for k, v in row.items():
            means[k].append(v)
        print(f"| {s} | {len(y)} | " + " | ".join(f"{row[k]:.3f}" for k in means) + " |", flush=True)
    print("| mean | | " + " | ".join(f"{np.mean(v):.3f}" for v in means.values()) + " |")


def _folds(d: dict, k: int = 5) -> list[tuple[dict, dict]]:
    """A source's rows split by record into ``k`` (fit, held-out) pairs."""
    fold = d["record"] % k
    return [({n: v[fold != i] for n, v in d.items()}, {n: v[fold == i] for n, v in d.items()}) for i in range(k)]


def shift(data: dict[str, dict], sources, feat, threshold: float) -> tuple[float, float, float, float]:
    """The logit shift that puts the short-context risk's balanced cut at the judge's ``threshold``: the cut of
    highest Youden's J (recall of the not-entailed pairs minus the share of entailed pairs flagged) over every
    source's out-of-source risks (scored by the pair fitted on the other sources). The NLI sets' share of
    not-entailed pairs (about two thirds) is theirs, not a user's: the balanced cut reads no prior."""
    risk, gold = [], []
    if len(sources) == 1:  # one source: out of fold, by record
        (s,) = sources
        for fitted, held in _folds(data[s]):
            pair = fit_pair({s: fitted}, [s], feat)
            risk.append(answer_scores(held, pair, feat))
            gold.append(labels(held))
    for s in sources if len(sources) > 1 else ():
        pair = fit_pair(data, [t for t in sources if t != s], feat)
        risk.append(answer_scores(data[s], pair, feat))
        gold.append(labels(data[s]))
    r, y = np.concatenate(risk), np.concatenate(gold)
    grid = np.round(np.arange(0.05, 0.95, 0.005), 3)
    j = [(r[y == 1] >= t).mean() - (r[y == 0] >= t).mean() for t in grid]
    cut = float(grid[int(np.argmax(j))])
    logit = lambda p: float(np.log(p / (1.0 - p)))  # noqa: E731
    return logit(threshold) - logit(cut), cut, float((r[y == 1] >= cut).mean()), float((r[y == 0] >= cut).mean())


def blended_scores(d: dict, pair: list, names, blend: float, offset: float,
                   skip_below: float = R.SKIP_TAGGER_BELOW) -> np.ndarray:
    """Each record's answer risk as the judge composes a blended short calibrator's (``Short.blend``): per claim,
    ``blend`` times the short calibrator's risk (its logit moved by ``offset``) plus the rest times the trees'
    calibrated risk (``cal``, or ``cal_t`` where the record reads the tagger), the higher of the two where the claim
    has a number the evidence lacks; the answer's risk is its riskiest claim's."""
    q0 = pair[0].predict_proba(design(d, names[0], False))[:, 1]
    q1 = pair[1].predict_proba(design(d, names[1], True))[:, 1]
    lacks = d["matrix"][:, COLUMNS.index("c_missing_numbers")] > 0
    rec = d["record"]
    out = []
    for r in np.unique(rec):
        idx = rec == r
        needs = d["short"][idx].any() or d["by_rule"][idx].any() or q0[idx].max() >= skip_below
        q = np.clip((q1 if needs else q0)[idx], 1e-6, 1 - 1e-6)
        short = 1.0 / (1.0 + np.exp(-(np.log(q / (1 - q)) + offset)))
        trees = (d["cal_t"] if d["needs"][idx].any() else d["cal"])[idx]
        out.append(blend_short(short, trees, blend, lacks[idx]).max())
    return np.array(out)


def f1_at(risk: np.ndarray, y: np.ndarray, threshold: float) -> float:
    flagged = risk >= threshold
    tp = float((flagged & (y == 1)).sum())
    return 2 * tp / max(1.0, float(flagged.sum() + (y == 1).sum()))


def shift_for_f1(data: dict[str, dict], sources, targets, feat, blend: float, threshold: float
                 ) -> tuple[float, dict[str, float]]:
    """The logit shift of the short calibrator that makes the judge's blended answer risk, cut at its ``threshold``,
    best on ``targets``: the highest mean answer F1 (hallucinated = positive) over the target sources, each weighing
    the same. A target among the fitted ``sources`` is scored out of fold (by record); the others by the pair fitted
    on ``sources``."""
    pair = fit_pair(data, sources, feat)
    parts: dict[str, list] = {}
    for t in targets:
        if t in sources:
            parts[t] = [(held, fit_pair({**data, t: fitted}, sources, feat)) for fitted, held in _folds(data[t])]
        else:
            parts[t] = [(data[t], pair)]
    grid = np.round(np.arange(-4.0, 4.0001, 0.1), 2)
    best, best_f1 = 0.0, {}
    for offset in grid:
        f1 = {}
        for t, pieces in parts.items():
            r = np.concatenate([blended_scores(h, p, feat, blend, offset) for h, p in pieces])
            y = np.concatenate([labels(h) for h, _ in pieces])
            f1[t] = f1_at(r, y, threshold)
        if not best_f1 or np.mean(list(f1.values())) > np.mean(list(best_f1.values())) + 1e-9:
            best, best_f1 = float(offset), f1
    return best, best_f1


def fit(args) -> None:
    data, below = rows_read(args)
    feat = CANDIDATES[args.features]
    sources = [s for s in data if args.sources is None or s in args.sources.split(",")]
    out = Path(args.out_dir)
    if not (out / CARD).exists():  # a model folder of its own: the shipped models, then the short calibrators
        shutil.copytree(model_dir(), out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    if reads_verifier(feat[0] + feat[1]):
        for name in (V.VERIFIER_MODEL, V.VERIFIER_CARD):
            shutil.copy(Path(args.verifier_dir) / name, out / name)
    threshold = json.loads((out / CARD).read_text())["threshold"]
    if args.logit_shift is not None:
        offset = args.logit_shift
        shifted_so = f"the short calibrator's logit moved by {offset:+.2f} (given: --logit-shift)"
        print(f"[shift] {shifted_so}")
    elif args.shift_on:
        targets = args.shift_on.split(",")
        offset, f1 = shift_for_f1(data, sources, targets, feat, args.blend, threshold)
        shifted_so = (f"the blended answer risk cut at the judge's threshold has the highest mean answer F1 over "
                      f"{', '.join(targets)}: " + ", ".join(f"{t} {v:.3f}" for t, v in f1.items()))
        print(f"[shift] logit shift {offset:+.2f}: {shifted_so}")
    else:
        offset, cut, recall, flagged = shift(data, sources, feat, threshold)
        print(f"[shift] balanced cut {cut:.3f} (out of source: {recall:.3f} of the not-entailed pairs flagged, "
              f"{flagged:.3f} of the entailed): logit shift {offset:+.3f} puts it at the judge's threshold {threshold}")
        shifted_so = (f"the judge's threshold is the balanced cut (highest Youden's J) of the out-of-source "
                      f"risks: {recall:.3f} of the not-entailed NLI pairs flagged, {flagged:.3f} of the entailed")
    pair = fit_pair(data, sources, feat)
    export(pair[0], 1 + len(feat[0]), out / CALIBRATOR_SHORT, offset)
    export(pair[1], 1 + len(feat[1]), out / CALIBRATOR_SHORT_T, offset)
    fitted_on = {s: int(len(np.unique(data[s]["record"]))) for s in sources}
    card = json.loads((out / CARD).read_text())
    tcard = json.loads((out / TAGGER_CARD).read_text())
    for c, names in ((card, feat[0]), (tcard["trees"], feat[1])):
        c["short_calibrator"] = {
            "features": ["claim_p", *names], "below_chars": below, "blend": args.blend,
            "monotonic": {"claim_p": 1, **{n: MONOTONE[n] for n in names if n in MONOTONE}},
            "below": "every length (--every)" if args.every else
                     f"the {SHORT_QUANTILE:.3%} quantile of RAGTruth train's context lengths",
            "trees": 200, "leaves": 15, "learning_rate": 0.05, "min_samples_leaf": 100,
            "logit_shift": round(offset, 4),
            "shifted_so": shifted_so,
            "fitted_on": "each record's riskiest claim, label not entailed / hallucinated = 1, every source weighing "
                         "the same (breaking_nli half): python -m training.world_rows, then python -m "
                         f"training.world_calibrator fit --features {args.features}"
                         + (" --every" if args.every else "")
                         + (f" --sources {args.sources}" if args.sources else "")
                         + (f" --blend {args.blend}" if args.blend != 1.0 else "")
                         + (f" --shift-on {args.shift_on}" if args.shift_on and args.logit_shift is None else "")
                         + (f" --logit-shift {args.logit_shift}" if args.logit_shift is not None else ""),
            "sources": fitted_on, "selected_by": "leave-one-source-out: python -m training.world_calibrator select"}
    # the versions name the files that decide (as training.train_local_judge writes them), the short ones too
    files = (WORD_MODEL, CLAIM_MODEL, CALIBRATOR, CALIBRATOR_SHORT)
    card["version"] = "2." + hashlib.sha256(b"".join((out / f).read_bytes() for f in files)).hexdigest()[:12]
    files_t = (WORD_MODEL_T, CLAIM_MODEL_T, CALIBRATOR_T, SPAN_MODEL_T, CALIBRATOR_SHORT_T)
    tcard["trees"]["version"] = hashlib.sha256(b"".join((out / f).read_bytes() for f in files_t)).hexdigest()[:12]
    (out / CARD).write_text(json.dumps(card, indent=2) + "\n")
    (out / TAGGER_CARD).write_text(json.dumps(tcard, indent=2) + "\n")
    print(f"[fit] contexts under {below} characters: wrote {CALIBRATOR_SHORT}, {CALIBRATOR_SHORT_T} and the cards "
          f"to {out}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stage", choices=("select", "fit"))
    ap.add_argument("--rows", default="runs/world-rows")
    ap.add_argument("--features", default="cover", choices=tuple(CANDIDATES))
    ap.add_argument("--verifier-dir", default="runs/verifier",
                    help="the claim verifier's folder, copied into the model folder when the features read it")
    ap.add_argument("--out-dir", default="runs/world-models",
                    help="the model folder to write (a copy of the shipped one, then the short-context calibrators; "
                    "run it with rt4chart audit --model-dir DIR); default: %(default)s")
    ap.add_argument("--every", action="store_true",
                    help="fit on every source (the RAGTruth validation slice too) and read every claim, whatever "
                    "its context's length, instead of the NLI sources' short contexts")
    ap.add_argument("--sources", default=None,
                    help="fit on these sources only (comma-separated; e.g. written: the written corpus' calibration "
                    "domains)")
    ap.add_argument("--blend", type=float, default=1.0,
                    help="the calibrator's weight beside the trees' calibrator in the judge's risk (1: its risk alone)")
    ap.add_argument("--shift-on", default=None,
                    help="choose the short calibrator's logit shift for the best mean answer F1 of the blended risk "
                    "at the judge's threshold over these sources (comma-separated; e.g. ragtruth-qa,"
                    "ragtruth-summary,ragtruth-data2txt,written) instead of the balanced cut of the fitted sources")
    ap.add_argument("--logit-shift", type=float, default=None,
                    help="move the short calibrator's logit by this much instead of choosing the shift")
    args = ap.parse_args(argv)
    (select if args.stage == "select" else fit)(args)


if __name__ == "__main__":
    main()
