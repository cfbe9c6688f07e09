#!/usr/bin/env python3
"""Milliseconds per tagger pass for other builds of the same graph, against the shipped int8 model, in one run.

    python3 -m benchmarks.tagger_graph_variants [--fp32 .cache/local_tagger/tagger-fp32.onnx] [--threads 2]
    python3 -m benchmarks.tagger_graph_variants --layers 4,3 --keep /tmp/tagger-variants

From the repository root (``--fp32``'s default is relative to it). The fp32 graph is what
``python3 -m training.train_local_tagger --stage export`` writes before fusing the attention and
quantizing (the shipped build: ``training.tagger_graph`` fuses, cuts the last layer to the claim tokens' rows,
then int8 per output channel). From it, this builds: the shipped build without the row cut (shipped in sessions 6
and 7), int8 per tensor without the fusion (the build shipped until session 6), per-channel int8 without it, the
fused graph with int8 per tensor, unsigned int8 weights, int8 with the feed-forward output layers left in fp32, and
the onnxruntime transformer optimizer's fused graph (then int8); with ``--layers``, untrained exports of fewer layers
built as the shipped one is (the cost of a tagger trained with ``train_local_tagger --layers``). Each
model runs one sequence of 256 and of 512 random token ids (the cost does not depend on the ids). It also times one
attention layer (12 heads of 32, 512 tokens) written as plain MatMul/Softmax ops against one fused
``com.microsoft.MultiHeadAttention`` node.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rt4chart.judges.local import model_dir
from rt4chart.judges.local.tagger import ROWS_INPUT, TAGGER_MODEL
from training.tagger_graph import fuse_file, quantize, quantize_as_shipped, rows_file


def session(model, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def timed(run, repeat: int) -> float:
    for _ in range(3):
        run()
    xs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        xs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(xs)


def tagger_ms(path: Path, length: int, threads: int, repeat: int, claim_share: float) -> float:
    """A graph with a ``positions`` input (its last layer for those rows only) reads the last ``claim_share`` of
    the tokens as the claims."""
    s = session(str(path), threads)
    ids = np.random.RandomState(0).randint(1000, 20000, size=(1, length)).astype(np.int64)
    types = np.zeros_like(ids)
    claims = max(1, int(round(length * claim_share)))
    types[:, length - claims - 1:] = 1
    feed = {"input_ids": ids, "token_type_ids": types}
    if any(i.name == ROWS_INPUT for i in s.get_inputs()):
        feed[ROWS_INPUT] = np.arange(length - claims - 1, length - 1, dtype=np.int64)
    return timed(lambda: s.run(None, feed), repeat)


def attention_ms(threads: int, repeat: int) -> tuple[float, float]:
    from onnx import TensorProto, helper

    length, heads, dim = 512, 12, 32
    hidden = heads * dim

    def tensor(name: str):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, None, hidden])

    consts = [helper.make_tensor("shape", TensorProto.INT64, [4], [1, -1, heads, dim]),
              helper.make_tensor("back", TensorProto.INT64, [3], [1, -1, hidden]),
              helper.make_tensor("scale", TensorProto.FLOAT, [], [1 / np.sqrt(dim)])]
    nodes = [helper.make_node("Reshape", [n, "shape"], [n + "r"]) for n in "qkv"]
    nodes += [helper.make_node("Transpose", ["qr"], ["qt"], perm=[0, 2, 1, 3]),
              helper.make_node("Transpose", ["kr"], ["kt"], perm=[0, 2, 3, 1]),
              helper.make_node("Transpose", ["vr"], ["vt"], perm=[0, 2, 1, 3]),
              helper.make_node("MatMul", ["qt", "kt"], ["s"]), helper.make_node("Mul", ["s", "scale"], ["s2"]),
              helper.make_node("Softmax", ["s2"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "vt"], ["c"]),
              helper.make_node("Transpose", ["c"], ["ct"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ct", "back"], ["o"])]
    inputs = [tensor(n) for n in "qkv"]
    plain = helper.make_model(helper.make_graph(nodes, "plain", inputs, [tensor("o")], consts),
                              opset_imports=[helper.make_opsetid("", 17)])
    fused = helper.make_model(
        helper.make_graph([helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["o"], domain="com.microsoft",
                                            num_heads=heads)], "fused", inputs, [tensor("o")]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    x = {n: np.random.RandomState(i).randn(1, length, hidden).astype(np.float32) for i, n in enumerate("qkv")}
    out = []
    results = []
    for model in (plain, fused):
        s = session(model.SerializeToString(), threads)
        results.append(s.run(None, x)[0])
        out.append(timed(lambda: s.run(None, x), repeat))
    if np.abs(results[0] - results[1]).max() > 1e-4:
        raise SystemExit("the fused attention does not compute the same thing")
    return out[0], out[1]


def shallow(layers: int, folder: Path) -> Path:
    """An export of the base model cut to its bottom ``layers`` layers, with an untrained token head, built as the
    shipped tagger is: its cost per pass is that of a tagger trained with ``--layers`` (the weights do not change
    the arithmetic)."""
    import torch
    from training.tagger_export import onnx_export
    from training.tagger_model import build_model

    model = build_model(argparse.Namespace(base_model="", layers=layers), torch, attention="eager").eval()
    x = torch.ones(1, 64, dtype=torch.long)
    fp32, int8 = folder / f"l{layers}-fp32.onnx", folder / f"l{layers}.onnx"
    onnx_export(model, torch, (x, torch.zeros_like(x)), fp32)
    fuse_file(fp32, fp32, model.config.num_attention_heads)
    rows_file(fp32, fp32)
    quantize_as_shipped(fp32, int8)
    return int8


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fp32", type=Path, default=Path(".cache") / "local_tagger" / "tagger-fp32.onnx")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--claim-share", type=float, default=0.28,
                    help="share of the tokens that are claim tokens, for a graph whose last layer computes those rows "
                    "only (the validation median: 145 of 503)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="copy the built variants to this folder (for validation_variants --tagger-model)")
    ap.add_argument("--layers", default="",
                    help="also time untrained int8 exports of the base model cut to these layer counts, e.g. 4,3 "
                    "(what train_local_tagger --layers would train; needs torch and transformers)")
    args = ap.parse_args()
    if not args.fp32.exists():
        sys.exit(f"{args.fp32}: no fp32 tagger graph (training.train_local_tagger --stage export "
                 "writes it)")
    import onnx
    from onnxruntime.quantization import QuantType
    from onnxruntime.transformers import optimizer

    shipped = model_dir() / TAGGER_MODEL
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        quantize(args.fp32, t / "pt.onnx")
        quantize(args.fp32, t / "pc.onnx", per_channel=True)
        quantize(args.fp32, t / "u8.onnx", weight_type=QuantType.QUInt8)
        fuse_file(args.fp32, t / "fused.onnx", 12)
        quantize(t / "fused.onnx", t / "fused-pt.onnx")
        opt = optimizer.optimize_model(str(args.fp32), model_type="bert", num_heads=12, hidden_size=384,
                                       opt_level=0, use_gpu=False)
        fusions = {k: v for k, v in opt.get_fused_operator_statistics().items() if v}
        opt.save_model_to_file(str(t / "opt.onnx"))
        quantize(t / "opt.onnx", t / "opt8.onnx")
        # the feed-forward output projections (and the head) kept in fp32: the layers whose int8 weights lose most
        ffn_out = [n.name for n in onnx.load(str(args.fp32)).graph.node if n.op_type == "MatMul"
                   and ("/output/dense/" in n.name and "/attention/" not in n.name or "classifier" in n.name)]
        quantize(args.fp32, t / "ffn32.onnx", nodes_to_exclude=ffn_out)
        quantize_as_shipped(t / "fused.onnx", t / "fused-pc.onnx")
        builds = [("shipped: attention fused, last layer for the claim rows, int8 per channel", shipped),
                  ("attention fused, int8 per channel, last layer for every row (shipped in sessions 6 and 7)",
                   t / "fused-pc.onnx"), ("fp32", args.fp32),
                  ("int8 per tensor, attention not fused (shipped until session 6)", t / "pt.onnx"),
                  ("int8 per channel, attention not fused", t / "pc.onnx"),
                  ("attention fused, int8 per tensor", t / "fused-pt.onnx"),
                  ("int8, unsigned weights", t / "u8.onnx"),
                  ("int8, feed-forward output layers fp32", t / "ffn32.onnx"),
                  (f"optimizer-fused ({', '.join(f'{k} {v}' for k, v in fusions.items())}), then int8",
                   t / "opt8.onnx")]
        for n in (int(x) for x in args.layers.split(",") if x.strip()):
            builds.append((f"{n} layers (untrained, built as shipped)", shallow(n, t)))
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            kept = ("pt", "pc", "fused-pt", "u8", "ffn32", "opt8")
            for name in kept:
                shutil.copy(t / f"{name}.onnx", args.keep / f"{name}.onnx")
            print(f"variants kept in {args.keep}: {', '.join(kept)} (.onnx)")
        rows = [(name, tagger_ms(path, 256, args.threads, args.repeat, args.claim_share),
                 tagger_ms(path, 512, args.threads, args.repeat, args.claim_share)) for name, path in builds]
    print(f"one sequence, {args.threads} threads, median of {args.repeat} runs; a claim-rows graph reads "
          f"{args.claim_share:.0%} of the tokens\n")
    print("| build | 256 tokens ms | 512 tokens ms | 512 vs shipped |\n|---|---:|---:|---:|")
    base = rows[0][2]
    for name, ms256, ms512 in rows:
        print(f"| {name} | {ms256:.1f} | {ms512:.1f} | {ms512 / base:.2f}x |")
    plain, fused = attention_ms(args.threads, args.repeat)
    print(f"\none attention layer at 512 tokens: plain ops {plain:.2f} ms, fused MultiHeadAttention {fused:.2f} ms "
          f"({plain - fused:.2f} ms saved per layer, x6 layers)")


if __name__ == "__main__":
    main()
