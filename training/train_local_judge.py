"""Train the offline judge (rt4chart.judges.local) on the RAGTruth train split only and export it to ONNX.

    python3 -m training.train_local_judge             # prepare -> word, claim, calibrator models
                                                               # -> thresholds -> export
    python3 -m training.train_local_judge --semantic  # the same, for the pair that also reads the tagger

Run from the repository root: the caches default to ``.cache/local_judge`` and ``.cache/local_tagger`` there, and
the models are written into the shipped models folder (``rt4chart.judges.local.model_dir()``) unless ``--out-dir``
names another.

Data: ``../shared/data/ragtruth`` train split (15,090 responses); the test split is never read here. Each answer is
cut into claims by the auditor's rule decomposer, and every word of every claim gets the feature row of
``rt4chart.judges.local.features.claim_rows`` read against the full context, labelled 1 when a gold span covers it.

Gradient-boosted tree ensembles (scikit-learn ``HistGradientBoostingClassifier``, deterministic, no early
stopping):

1. the **word model** gives P(word is inside a hallucinated span);
2. the **claim model** reads the word probabilities aggregated per claim and over the answer, with the claim and
   record features (``claim_matrix``), and gives P(claim is hallucinated). A claim is labelled hallucinated when
   gold spans cover a quarter of it or 12 characters (``splits.claim_is_hallucinated``). Its word inputs on train
   are out-of-fold (``--folds`` context-grouped folds), so it learns from word probabilities as noisy as those it
   will see at run time.

3. the **calibrator**, a small ensemble, maps a claim probability to P(answer is hallucinated), given the record's
   shape and size (``rt4chart.judges.local.CALIBRATOR_FEATURES``, monotone in the claim probability). It is fitted on
   each train answer's riskiest claim, with claim probabilities from ``--folds`` out-of-fold claim models, so that it
   learns from probabilities it did not fit;
4. with ``--semantic``, the **span model** gives P(word is inside a hallucinated span) again, from the word model's
   probabilities of the word and its neighbours and the claim's probability (``SPAN_FEATURES``), fitted on the words
   of the train claims whose out-of-fold claim probability reaches ``SPAN_MODEL_MIN_RISK``.

A context-grouped ``--val-frac`` of train is held out: validation metrics are printed every ``--report-every``
trees, and the two thresholds are calibrated there (claim threshold, on the calibrator's scale: best answer-level
F1; word threshold, on the span model's scale with ``--semantic``: best character span F1). The ensembles are
written as ONNX ``TreeEnsembleRegressor`` graphs (``ai.onnx.ml``; onnxruntime runs them, no scikit-learn at run time)
next to a model card with the thresholds and validation metrics.
Needs scikit-learn and onnx (``pip install onnx``) for training; 2 CPU threads take about 10 minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

import numpy as np

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import load_ragtruth
from rt4chart.judges.local import features as F
from rt4chart.judges.local import tagger as T
from rt4chart.judges.local import (
    CALIBRATOR, CALIBRATOR_FEATURES, CALIBRATOR_T, CARD, CLAIM_MODEL, CLAIM_MODEL_T, SPAN_FEATURES, SPAN_MODEL_MIN_RISK,
    SPAN_MODEL_T, TAGGER_CARD, WORD_MODEL, WORD_MODEL_T, calibrator_rows, decided_by_rule, model_dir,
    shares_something)

from .local_judge_onnx import export
from .local_judge_rows import (
    claim_record_of, claim_rows_from, claim_texts, evaluate, riskiest_rows, span_rows_from)
from .splits import claim_is_hallucinated, covered, data_dir, split_groups


def prepare(args) -> dict:
    """Feature rows of every word of every train claim (cached per feature version and seed)."""
    cache = Path(args.cache_dir) / f"rows-v{F.VERSION}-{args.seed}.npz"
    if cache.exists():
        print(f"[prepare] cached: {cache}", flush=True)
        return dict(np.load(cache))
    t0 = time.time()
    records = load_ragtruth("train", data_dir=data_dir())
    fold_of = split_groups([r.group for r in records], args.seed, args.val_frac, args.folds)
    dec = RuleDecomposer()
    mats, y, record, claim, start, end, claim_y = [], [], [], [], [], [], []
    for ri, r in enumerate(records):
        evidence = F.FeatureEvidence(r.context)  # read once per answer, for all its claims
        for c in dec.decompose_sync(r.answer):
            sp = c.answer_spans[0]
            rows = F.claim_rows(c.text, evidence, r.question, index=c.index, sentence=c.sentence_index,
                                start=sp.start)
            if not rows.spans:
                continue
            claim_y.append(claim_is_hallucinated(sp.start, sp.end, r.spans))
            for s, e in rows.spans:
                y.append(covered(sp.start + s, sp.start + e, r.spans) > 0)
                start.append(sp.start + s)
                end.append(sp.start + e)
            mats.append(rows.matrix)
            record += [ri] * len(rows.spans)
            claim += [len(claim_y) - 1] * len(rows.spans)
        if ri % 2000 == 0:
            print(f"[prepare] {ri}/{len(records)} responses, {time.time() - t0:.0f}s", flush=True)
    data = {
        "X": np.concatenate(mats), "y": np.array(y), "record": np.array(record), "claim": np.array(claim),
        "start": np.array(start), "end": np.array(end), "claim_y": np.array(claim_y),
        "fold": np.array([fold_of[r.group] for r in records]),
    }
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, **data)
    print(f"[prepare] {len(records)} responses, {len(claim_y)} claims, {len(y)} words, {time.time() - t0:.0f}s",
          flush=True)
    return data


def tagger_column(data: dict, records, args) -> np.ndarray:
    """The tagger's P(hallucinated) of every word row (``nan`` beyond its window): out-of-fold for train rows
    (``python3 -m training.train_local_tagger --stage oof``, the same folds), the shipped ONNX tagger's
    for validation rows, as the judge computes it at run time. Cached."""
    tagger_version = json.loads((Path(args.out_dir) / TAGGER_CARD).read_text())["version"]
    cache = Path(args.cache_dir) / f"tagger-col-v{F.VERSION}-{args.seed}-{tagger_version}.npz"
    if cache.exists():
        return np.load(cache)["t"]
    oof_file = Path(args.tagger_cache) / f"oof-{args.seed}.npz"
    if not oof_file.exists():
        raise SystemExit(f"{oof_file} is missing: the semantic pair learns from the tagger's out-of-fold "
                         "probabilities, which are not in the repository. Make them with `python3 -m "
                         "training.train_local_tagger --stage prepare` then `--stage oof` (about 4.5 "
                         "minutes on one GPU, about 34 hours on 2 CPU threads), or pass --tagger-cache with a folder "
                         "holding them")
    t0 = time.time()
    oof = np.load(oof_file)
    oof_p = np.split(oof["p"].astype(np.float64), np.cumsum(oof["n"])[:-1])
    if len(oof_p) != len(records):
        raise SystemExit(f"{args.tagger_cache}: out-of-fold probabilities for {len(oof_p)} answers, "
                         f"train has {len(records)}")
    tagger = T.Tagger(Path(args.out_dir), threads=2)
    dec = RuleDecomposer()
    col = np.full(len(data["y"]), np.nan)
    bounds = np.searchsorted(data["record"], np.arange(len(records) + 1))
    w_start, w_end = data["start"], data["end"]
    for ri, r in enumerate(records):
        a, b = bounds[ri], bounds[ri + 1]
        if a == b:
            continue
        claims = dec.decompose_sync(r.answer)
        enc, starts = tagger.encoder.encode_claims(r.question, r.context, [c.text for c in claims])
        if data["fold"][ri] < 0:
            p = tagger.probabilities(enc)
        else:
            p = oof_p[ri]
            if len(p) != len(enc.positions):
                raise SystemExit(f"answer {ri}: {len(p)} out-of-fold token probabilities for {len(enc.positions)} "
                                 "claim tokens; rerun the tagger's prepare and oof stages")
        for k, c in enumerate(claims):
            sp = c.answer_spans[0]
            sel = np.arange(a, b)[(w_start[a:b] >= sp.start) & (w_end[a:b] <= sp.end)]
            words = [(int(w_start[i]) - sp.start, int(w_end[i]) - sp.start) for i in sel]
            col[sel] = T.word_probabilities(enc, p, starts[k], words)
        if ri % 3000 == 0:
            print(f"[tagger] {ri}/{len(records)} {time.time() - t0:.0f}s", flush=True)
    np.savez_compressed(cache, t=col)
    print(f"[tagger] word column: {np.isnan(col).mean():.2%} beyond the window, {time.time() - t0:.0f}s", flush=True)
    return col


def boosted(iters: int, leaves: int, lr: float, min_leaf: int, seed: int, monotonic=None):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=iters, learning_rate=lr, max_leaf_nodes=leaves,
                                          min_samples_leaf=min_leaf, l2_regularization=1.0, early_stopping=False,
                                          random_state=seed, monotonic_cst=monotonic)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--val-frac", type=float, default=0.08)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--word-iters", type=int, default=200)
    ap.add_argument("--word-leaves", type=int, default=63)
    ap.add_argument("--word-lr", type=float, default=0.05)
    ap.add_argument("--claim-iters", type=int, default=100)
    ap.add_argument("--claim-leaves", type=int, default=31)
    ap.add_argument("--claim-lr", type=float, default=0.05)
    ap.add_argument("--min-leaf", type=int, default=200, help="fewest training rows in a leaf (both models)")
    ap.add_argument("--calibrator-iters", type=int, default=200)
    ap.add_argument("--calibrator-leaves", type=int, default=15)
    ap.add_argument("--calibrator-min-leaf", type=int, default=100)
    ap.add_argument("--span-iters", type=int, default=200)
    ap.add_argument("--span-leaves", type=int, default=31)
    ap.add_argument("--report-every", type=int, default=50, help="print validation metrics every N trees")
    ap.add_argument("--semantic", action="store_true",
                    help="train the semantic stage's pair instead: the same trees, also reading the tagger's word "
                    "probabilities (needs training.train_local_tagger's oof and export stages first)")
    ap.add_argument("--tagger-cache", default=str(Path(".cache") / "local_tagger"),
                    help="where the tagger's stages wrote its out-of-fold probabilities (default: %(default)s)")
    ap.add_argument("--cache-dir", default=str(Path(".cache") / "local_judge"),
                    help="where the feature rows are cached (default: %(default)s)")
    ap.add_argument("--out-dir", default=None,
                    help="where the models and their card go (default: the shipped models folder, model_dir())")
    args = ap.parse_args()
    args.out_dir = args.out_dir or str(model_dir())
    t_start = time.time()
    np.random.seed(args.seed)
    random.seed(args.seed)
    data = prepare(args)
    records = load_ragtruth("train", data_dir=data_dir())
    from sklearn.metrics import roc_auc_score

    X, y = data["X"], data["y"]
    tagged = tagger_column(data, records, args) if args.semantic else None
    if tagged is not None:
        X = np.hstack([X, T.word_column(tagged)])
    fold = data["fold"][data["record"]]
    val = fold < 0
    print(f"[data] {len(y)} words ({y.mean():.3f} hallucinated), {val.sum()} validation words", flush=True)

    # 1. word model: out-of-fold probabilities on train, then the model fitted on all non-validation rows
    p_word = np.zeros(len(y))
    for k in range(args.folds):
        t0 = time.time()
        fit = (fold >= 0) & (fold != k)
        m = boosted(args.word_iters, args.word_leaves, args.word_lr, args.min_leaf, args.seed).fit(X[fit], y[fit])
        p_word[fold == k] = m.predict_proba(X[fold == k])[:, 1]
        print(f"[word] fold {k + 1}/{args.folds}: {time.time() - t0:.0f}s", flush=True)
    t0 = time.time()
    word_model = boosted(args.word_iters, args.word_leaves, args.word_lr, args.min_leaf, args.seed).fit(
        X[~val], y[~val])
    for i, staged in enumerate(word_model.staged_predict_proba(X[val]), start=1):
        if i % args.report_every == 0 or i == args.word_iters:
            print(f"[word] {i} trees: validation word AUROC {roc_auc_score(y[val], staged[:, 1]):.4f}", flush=True)
    p_word[val] = word_model.predict_proba(X[val])[:, 1]
    print(f"[word] final fit {time.time() - t0:.0f}s", flush=True)

    # 2. claim model on aggregated out-of-fold word probabilities
    claim_fold = np.full(len(data["claim_y"]), -2)
    claim_fold[data["claim"]] = fold
    train_claims = np.flatnonzero(claim_fold >= 0)
    val_claims = np.flatnonzero(claim_fold == -1)
    Ct, _ = claim_rows_from(data, p_word, train_claims, tagged)
    Cv, _ = claim_rows_from(data, p_word, val_claims, tagged)
    cy = data["claim_y"]
    claim_model = boosted(args.claim_iters, args.claim_leaves, args.claim_lr, args.min_leaf, args.seed).fit(
        Ct, cy[train_claims])
    q = None
    for i, staged in enumerate(claim_model.staged_predict_proba(Cv), start=1):
        if i % args.report_every == 0 or i == args.claim_iters:
            q = staged[:, 1]
            ans, _, risk, gold_y = evaluate(data, records, p_word, q, val_claims, 0.5, 0.5, spans=False)
            print(f"[claim] {i} trees: validation claim AUROC {roc_auc_score(cy[val_claims], q):.4f}, "
                  f"answer AUROC {roc_auc_score(gold_y, risk):.4f}", flush=True)

    # 3. the calibrator: P(answer hallucinated) from its riskiest claim's probability (out-of-fold claim models on
    # train) and the record's shape and size, fitted on the train answers
    claim_record = claim_record_of(data)
    q_claim = q
    t0 = time.time()
    tf = claim_fold[train_claims]
    q_oof = np.zeros(len(train_claims))
    for k in range(args.folds):
        m = boosted(args.claim_iters, args.claim_leaves, args.claim_lr, args.min_leaf, args.seed).fit(
            Ct[tf != k], cy[train_claims][tf != k])
        q_oof[tf == k] = m.predict_proba(Ct[tf == k])[:, 1]
    A, recs = riskiest_rows(calibrator_rows(q_oof, Ct), q_oof, claim_record[train_claims])
    monotonic = [1] + [0] * (len(CALIBRATOR_FEATURES) - 1)
    calibrator = boosted(args.calibrator_iters, args.calibrator_leaves, args.claim_lr, args.calibrator_min_leaf,
                         args.seed, monotonic).fit(A, [records[int(r)].hallucinated for r in recs])
    q = calibrator.predict_proba(calibrator_rows(q_claim, Cv))[:, 1]
    _, _, risk_claim, gold_y = evaluate(data, records, p_word, q_claim, val_claims, 0.5, 0.5, spans=False)
    _, _, risk, _ = evaluate(data, records, p_word, q, val_claims, 0.5, 0.5, spans=False)
    print(f"[calibrator] {len(A)} train answers, {time.time() - t0:.0f}s: validation answer AUROC "
          f"{roc_auc_score(gold_y, risk_claim):.4f} -> {roc_auc_score(gold_y, risk):.4f}", flush=True)

    # 4. the semantic pair's span model: P(word in a hallucinated span) from the word probabilities of the word and
    # its neighbours and the claim's probability, fitted on the words of the train claims whose out-of-fold claim
    # probability reaches SPAN_MODEL_MIN_RISK (out-of-fold word probabilities too); the word threshold cuts its output
    p_span, span_model = p_word, None
    if args.semantic:
        t0 = time.time()
        risky = q_oof >= SPAN_MODEL_MIN_RISK
        S, words = span_rows_from(data, p_word, train_claims[risky], q_oof[risky], tagged)
        span_model = boosted(args.span_iters, args.span_leaves, args.claim_lr, args.min_leaf, args.seed).fit(
            S, y[words])
        Sv, val_words = span_rows_from(data, p_word, val_claims, q_claim, tagged)
        p_span = p_word.copy()
        p_span[val_words] = span_model.predict_proba(Sv)[:, 1]
        print(f"[spans] {len(S)} train words of {int(risky.sum())} claims, {time.time() - t0:.0f}s: validation word "
              f"AUROC {roc_auc_score(y[val_words], p_word[val_words]):.4f} -> "
              f"{roc_auc_score(y[val_words], p_span[val_words]):.4f}", flush=True)

    # 5. thresholds on the validation slice, with the judge's rules (claims sharing no word with the context, unless
    # they share something else with it or the claim model puts them below a floor; number swaps), which flag a claim
    # at any threshold
    evidence = {int(r): F.FeatureEvidence(records[int(r)].context) for r in np.unique(claim_record[val_claims])}
    spared = np.array([shares_something(t, evidence[int(r)])
                       for t, r in zip(claim_texts(data, records, val_claims), claim_record[val_claims])], dtype=bool)
    q = np.where(decided_by_rule(Cv, spared, q_claim), 1.0, q)
    claim_t = max(np.arange(0.05, 0.95, 0.01),
                  key=lambda t: evaluate(data, records, p_word, q, val_claims, t, 0.5, spans=False)[0].f1)
    claim_t = round(float(claim_t), 2)
    word_t = max(np.arange(0.05, 0.6, 0.025),
                 key=lambda t: evaluate(data, records, p_span, q, val_claims, claim_t, t)[1].f1)
    word_t = round(float(word_t), 3)
    ans, spans, _, _ = evaluate(data, records, p_span, q, val_claims, claim_t, word_t)
    print(f"[calibrate] claim threshold {claim_t}, word threshold {word_t}: validation answer P {ans.precision:.3f} "
          f"R {ans.recall:.3f} F1 {ans.f1:.3f}; span P {spans.precision:.3f} R {spans.recall:.3f} F1 {spans.f1:.3f}",
          flush=True)

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    word_file, claim_file = (WORD_MODEL_T, CLAIM_MODEL_T) if args.semantic else (WORD_MODEL, CLAIM_MODEL)
    export(word_model, X.shape[1], out / word_file)
    export(claim_model, Ct.shape[1], out / claim_file)
    files = [word_file, claim_file]
    calibrator_file = CALIBRATOR_T if args.semantic else CALIBRATOR
    export(calibrator, len(CALIBRATOR_FEATURES), out / calibrator_file)
    files.append(calibrator_file)
    if span_model is not None:
        export(span_model, len(SPAN_FEATURES), out / SPAN_MODEL_T)
        files.append(SPAN_MODEL_T)
    digest = hashlib.sha256(b"".join((out / f).read_bytes() for f in files)).hexdigest()[:12]
    import sklearn

    trees = {
        "feature_version": F.VERSION,
        "word_features": list(F.FEATURES) + (list(T.WORD_COLUMNS) if args.semantic else []),
        "claim_features": list(F.CLAIM_MODEL_FEATURES) + (list(T.CLAIM_COLUMNS) if args.semantic else []),
        "threshold": claim_t, "word_threshold": word_t,
        "trained_on": "RAGTruth train split only (../shared/data/ragtruth), context-grouped validation slice",
        "seed": args.seed, "val_frac": args.val_frac, "folds": args.folds,
        "word_model": {"trees": args.word_iters, "leaves": args.word_leaves, "learning_rate": args.word_lr,
                       "min_samples_leaf": args.min_leaf},
        "claim_model": {"trees": args.claim_iters, "leaves": args.claim_leaves, "learning_rate": args.claim_lr,
                        "min_samples_leaf": args.min_leaf},
        "calibrator": {"features": list(CALIBRATOR_FEATURES), "monotonic": "claim_p",
                       "trees": args.calibrator_iters, "leaves": args.calibrator_leaves,
                       "learning_rate": args.claim_lr, "min_samples_leaf": args.calibrator_min_leaf,
                       "fitted_on": "each train answer's riskiest claim, out-of-fold claim probabilities"},
        **({"span_model": {"features": list(SPAN_FEATURES), "trees": args.span_iters, "leaves": args.span_leaves,
                           "learning_rate": args.claim_lr, "min_samples_leaf": args.min_leaf,
                           "fitted_on": f"the words of train claims whose out-of-fold claim probability reaches "
                                        f"{SPAN_MODEL_MIN_RISK}, out-of-fold word probabilities"}}
           if span_model is not None else {}),
        "validation": {"answers": len(gold_y), "answer_precision": round(ans.precision, 4),
                       "answer_recall": round(ans.recall, 4), "answer_f1": round(ans.f1, 4),
                       "span_precision": round(spans.precision, 4), "span_recall": round(spans.recall, 4),
                       "span_f1": round(spans.f1, 4)},
        "scikit_learn": sklearn.__version__, "train_seconds": round(time.time() - t_start),
    }
    if args.semantic:  # the tagger's card (written by its export stage) gains the trees that read it
        path = out / TAGGER_CARD
        card = json.loads(path.read_text()) if path.exists() else {"name": "local_tagger"}
        card["trees"] = {"version": digest, **trees}
        for key in ("threshold", "word_threshold", "feature_version"):
            card[key] = trees[key]
    else:
        path = out / CARD
        card = {"name": "local_judge", "version": f"2.{digest}", **trees}
    path.write_text(json.dumps(card, indent=2) + "\n")
    print(f"[export] {out / word_file} ({(out / word_file).stat().st_size / 1e6:.2f} MB), "
          f"{out / claim_file} ({(out / claim_file).stat().st_size / 1e6:.2f} MB), card {path}; "
          f"total {time.time() - t_start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
