"""The tagger's training data (``train_local_tagger --stage prepare``): every RAGTruth train answer cut into claims
by the auditor's rule decomposer, encoded with the question and the context by the run-time ``tagger.Encoder``, each
claim token labelled 1 when a gold span covers it; with each answer's validation flag and fold
(``splits.split_groups``). Cached in ``--cache-dir`` as ``enc-v{ENC_VERSION}-{seed}-{max_len}.npz``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .splits import data_dir, split_groups
from .tagger_model import base_model_dir

ENC_VERSION = 2


def prepare(args) -> Path:
    cache = Path(args.cache_dir) / f"enc-v{ENC_VERSION}-{args.seed}-{args.max_len}.npz"
    if cache.exists():
        print(f"[prepare] cached: {cache}", flush=True)
        return cache
    from rt4chart.audit.decompose import RuleDecomposer
    from rt4chart.eval.datasets import load_ragtruth
    from rt4chart.judges.local.tagger import Encoder

    t0 = time.time()
    records = load_ragtruth("train", data_dir=data_dir())
    fold_of = split_groups([r.group for r in records], args.seed, args.val_frac, args.folds)
    val = {g for g, f in fold_of.items() if f < 0}
    enc = Encoder(base_model_dir() / "tokenizer.json", args.max_len)
    dec = RuleDecomposer()
    ids, types, labels, lens, is_val, halluc = [], [], [], [], [], []
    for ri, r in enumerate(records):
        claims = dec.decompose_sync(r.answer)
        e, starts = enc.encode_claims(r.question, r.context, [c.text for c in claims])
        lab = np.full(len(e.ids), -100, dtype=np.int8)
        k = 0
        for pos, (s, t) in zip(e.positions, e.offsets):
            while k + 1 < len(starts) and starts[k + 1] <= s:
                k += 1
            a = claims[k].answer_spans[0].start + (s - starts[k]) if claims else 0
            b = a + (t - s)
            lab[pos] = int(any(min(b, g.end) > max(a, g.start) for g in r.spans))
        ids.append(e.ids.astype(np.int32))
        types.append(e.types.astype(np.int8))
        labels.append(lab)
        lens.append(len(e.ids))
        is_val.append(r.group in val)
        halluc.append(r.hallucinated)
        if ri % 3000 == 0:
            print(f"[prepare] {ri}/{len(records)} {time.time() - t0:.0f}s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, ids=np.concatenate(ids), types=np.concatenate(types), labels=np.concatenate(labels),
                        lens=np.array(lens), val=np.array(is_val), hallucinated=np.array(halluc),
                        fold=np.array([fold_of[r.group] for r in records]))
    lens_a = np.array(lens)
    print(f"[prepare] {len(records)} answers ({int(np.sum(is_val))} validation), tokens median {np.median(lens_a):.0f}"
          f", at max_len {np.mean(lens_a >= args.max_len):.1%}, {time.time() - t0:.0f}s -> {cache}", flush=True)
    return cache


def claim_positions(labels: np.ndarray) -> np.ndarray:
    """The positions of an encoding's claim tokens (the labelled ones): the rows the judge reads."""
    return np.nonzero(labels != -100)[0].astype(np.int64)


def load_cache(path: Path):
    d = np.load(path)
    cuts = np.cumsum(d["lens"])[:-1]
    return (np.split(d["ids"], cuts), np.split(d["types"], cuts), np.split(d["labels"], cuts), d["val"],
            d["hallucinated"])
