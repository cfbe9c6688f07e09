"""Export a trained verifier run (``train``'s folder) as the runtime's model folder (issue 25, contract 2)::

    python3 -m rt4chart_training.verifier.export --run .cache/verifier/run-NAME --out DIR

Writes into ``--out``: ``verifier.onnx`` (the cross-encoder as ONNX opset 17, inputs ``input_ids``,
``attention_mask``, ``token_type_ids``, output ``logits``, batch and sequence axes dynamic; int8 by onnxruntime's
dynamic quantization, weights per output channel; IR version at most 9, so that older onnxruntime loads it),
``verifier_tokenizer.json`` (the run's tokenizer, truncation and padding off) and the card ``verifier.json`` (labels,
max_length, layers, the premise word budget ``max_words``, base, the files' sha256, what it was trained on, the
recipe, and the checks below). The fp32 graph stays in the run folder (``verifier-fp32.onnx``).

Checks: the fp32 graph gives PyTorch's logits (within 1e-3) on the check pairs; then the folder is loaded with the
runtime's ``rt4chart.judges.verifier.Verifier`` and its (int8) probabilities are compared with PyTorch's fp32 ones on
``--check-n`` pairs of each ``--check`` file (default: the held-out SNLI pairs beside the run's pairs, and RAGTruth
training pairs for long premises): the largest absolute difference and how often the two argmax labels agree. The
file must be at most ``--max-mb`` (30) MB. A failed check exits non-zero (the files stay, for a look).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from rt4chart.judges.runtime import plain_tokenizer
from rt4chart.judges.verifier import CARD, LABELS, MODEL, TOKENIZER, Verifier
from rt4chart.judges.verifier.judge import MAX_WORDS
from rt4chart.judges.verifier.model import sha256_of

from .common import RUN_TOKENIZER, Encoded, encode, feed, load_run_model, read_json, torch_probs, write_json
from .pairs import Pair, read_pairs
from .sampling import HELDOUT_FILE

#: the ONNX IR version written: what opset 17 needs (IR 8), not the onnx package's own default (IR 10 and up),
#: which onnxruntime before 1.16 refuses to load; the repository's test holds shipped files to IR <= 9
ONNX_IR_VERSION = 8
MAX_IR_VERSION = 9
OPSET = 17
FP32_FILE = "verifier-fp32.onnx"
#: the largest logit difference allowed between PyTorch and the fp32 graph
FP32_TOLERANCE = 1e-3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run folder (python3 -m rt4chart_training.verifier.train)")
    p.add_argument("--out", required=True, help="the model folder to write")
    p.add_argument("--check", nargs="*", default=None,
                   help="pairs files to compare int8 with fp32 on [the run's heldout-snli.jsonl.gz and "
                        "pairs-ragtruth.jsonl.gz, where present; else its first pairs file]")
    p.add_argument("--check-n", type=int, default=200, help="pairs of each check file, a seeded sample [200]")
    p.add_argument("--max-mb", type=float, default=30.0, help="the largest verifier.onnx allowed [30]")
    p.add_argument("--threads", type=int, default=2, help="torch and onnxruntime threads [2]")
    p.add_argument("--max-words", type=int, default=None,
                   help="the premise word budget the judge reads with [the one the RAGTruth pairs were built with]")
    return p


def premise_words(card: dict, given: Optional[int]) -> int:
    """The premise word budget for the card: ``given``, else the ``max_words`` of the RAGTruth pairs' build summary
    (``pairs-ragtruth.json``) beside the run's pairs, else the judge's default."""
    if given is not None:
        return given
    for f in card["recipe"]["pairs"]:
        summary = Path(f).parent / "pairs-ragtruth.json"
        if summary.is_file():
            words = read_json(summary).get("max_words")
            if isinstance(words, int):
                return words
    return MAX_WORDS


def check_files(card: dict, given: Optional[Sequence[str]]) -> list[Path]:
    """The check files: ``given``, else the held-out SNLI pairs and the RAGTruth pairs beside the run's pairs."""
    if given:
        return [Path(g) for g in given]
    files = [Path(f) for f in card["recipe"]["pairs"]]
    found = []
    for folder in dict.fromkeys(f.parent for f in files):
        found += [folder / n for n in (HELDOUT_FILE, "pairs-ragtruth.jsonl.gz") if (folder / n).is_file()]
    return found or files[:1]


def sample(path: Path, n: int, seed: int = 0) -> list[Pair]:
    """A seeded sample of ``n`` pairs of ``path`` (all of them when it holds fewer), in file order."""
    pairs = list(read_pairs(path))
    if len(pairs) <= n:
        return pairs
    keep = sorted(random.Random(seed).sample(range(len(pairs)), n))
    return [pairs[i] for i in keep]


def cap_ir_version(path: Path) -> int:
    """Set the ONNX file's IR version to ``ONNX_IR_VERSION`` when it is above ``MAX_IR_VERSION`` (the exporters
    write their onnx package's newest); refuse an opset above ``OPSET``. The IR version it has now."""
    import onnx

    model = onnx.load(str(path))
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    if opsets.get("ai.onnx", 0) > OPSET:
        raise SystemExit(f"{path} uses opset {opsets['ai.onnx']}; the verifier's is at most {OPSET}")
    if model.ir_version > MAX_IR_VERSION:
        model.ir_version = ONNX_IR_VERSION
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
    return int(model.ir_version)


def onnx_export(model: Any, sample_feed: dict[str, np.ndarray], path: Path) -> None:
    """Write ``model`` (eval mode, eager attention) as an ONNX graph traced on ``sample_feed``."""
    import torch

    names = ["input_ids", "attention_mask", "token_type_ids"]
    args = tuple(torch.from_numpy(sample_feed[n]) for n in names)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["logits"] = {0: "batch"}
    with warnings.catch_warnings():
        # the TorchScript exporter's deprecation notice and its tracer's warnings (shape-dependent Python branches
        # in transformers' mask code): the graph is checked against PyTorch on batches of other shapes instead
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, str(path), input_names=names, output_names=["logits"], opset_version=OPSET,
                          dynamo=False, dynamic_axes=axes)


def fp32_gap(path: Path, model: Any, encoded: Encoded, pad_id: int, threads: int) -> float:
    """The largest logit difference between the ONNX graph at ``path`` and ``model`` on ``encoded``, in batches of
    8 of mixed lengths (so that padding is exercised)."""
    import onnxruntime as ort
    import torch

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    gap = 0.0
    with torch.no_grad():
        for start in range(0, len(encoded), 8):
            x = feed(encoded, range(start, min(start + 8, len(encoded))), pad_id)
            ref = model(*(torch.from_numpy(x[n]) for n in ("input_ids", "attention_mask", "token_type_ids")))
            got = session.run(["logits"], x)[0]
            gap = max(gap, float(np.abs(got - ref.numpy()).max()))
    return gap


def export(args) -> dict:
    import torch

    from ..tagger_graph import quantize

    torch.set_num_threads(args.threads)
    run, out = Path(args.run), Path(args.out)
    model, run_card = load_run_model(run)
    recipe = run_card["recipe"]
    tokenizer = plain_tokenizer(run / RUN_TOKENIZER)
    pad = tokenizer.token_to_id("[PAD]")
    pad_id = 0 if pad is None else pad
    checks = {str(f): sample(f, args.check_n) for f in check_files(run_card, args.check)}
    pairs = [p for ps in checks.values() for p in ps]
    if not pairs:
        raise SystemExit("no check pairs")
    encoded = encode(tokenizer, [(p.premise, p.hypothesis) for p in pairs], recipe["max_length"])

    t0 = time.monotonic()
    fp32 = run / FP32_FILE
    onnx_export(model, feed(encoded, range(min(2, len(encoded))), pad_id), fp32)
    cap_ir_version(fp32)
    gap = fp32_gap(fp32, model, encoded, pad_id, args.threads)
    print(f"[export] fp32 graph {fp32}: largest logit difference from PyTorch {gap:.2e} on {len(pairs)} pairs",
          flush=True)
    if gap > FP32_TOLERANCE:
        raise SystemExit(f"the fp32 ONNX graph differs from PyTorch by {gap:.3g} (> {FP32_TOLERANCE})")
    out.mkdir(parents=True, exist_ok=True)
    quantize(fp32, out / MODEL, per_channel=True)
    ir = cap_ir_version(out / MODEL)
    tokenizer.save(str(out / TOKENIZER))
    megabytes = (out / MODEL).stat().st_size / 1e6
    card = {
        "labels": list(LABELS), "max_length": recipe["max_length"], "layers": recipe["layers"],
        "max_words": premise_words(run_card, args.max_words),
        "base": "all-MiniLM-L6-v2" if not recipe["random_init"] else f"random init ({recipe['base']} config)",
        "files": {MODEL: sha256_of(out / MODEL), TOKENIZER: sha256_of(out / TOKENIZER)},
        "trained_on": sorted(run_card.get("seen", {})), "pairs_seen": run_card.get("pairs_seen"),
        "seen": run_card.get("seen", {}), "labels_seen": run_card.get("labels_seen", {}),
        "train_seconds": run_card.get("train_seconds"), "status": run_card.get("status"),
        "steps": run_card.get("steps"), "recipe": recipe, "torch": run_card.get("torch"),
        "transformers": run_card.get("transformers"),
        "onnx": {"opset": OPSET, "ir_version": ir, "quantization": "int8 dynamic, per output channel (onnxruntime)",
                 "megabytes": round(megabytes, 2), "fp32_logit_gap": gap},
    }
    write_json(out / CARD, card)

    # the runtime's view of the folder against PyTorch's fp32 probabilities
    verifier = Verifier(out, threads=args.threads)
    reference = torch_probs(model, encoded, pad_id)
    results, at = {}, 0
    for name, ps in checks.items():
        got = verifier.probs([(p.premise, p.hypothesis) for p in ps])
        ref = reference[at:at + len(ps)]
        at += len(ps)
        results[name] = {"pairs": len(ps), "max_abs_diff": round(float(np.abs(got - ref).max()), 5),
                         "label_agreement": round(float(np.mean(got.argmax(1) == ref.argmax(1))), 4),
                         "mean_tokens": round(float(np.mean([len(t) for t, _ in verifier.encode(
                             [(p.premise, p.hypothesis) for p in ps])])), 1)}
        print(f"[export] int8 (Verifier) vs fp32 (PyTorch) on {name}: {results[name]}", flush=True)
    card["int8_check"] = results
    write_json(out / CARD, card)
    print(f"[export] {out / MODEL}: {megabytes:.1f} MB, IR {ir}, opset {OPSET}; {time.monotonic() - t0:.0f}s",
          flush=True)
    if megabytes > args.max_mb:
        raise SystemExit(f"{out / MODEL} is {megabytes:.1f} MB, over the {args.max_mb:g} MB allowed")
    return card


def main(argv: Optional[Sequence[str]] = None) -> int:
    export(_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
