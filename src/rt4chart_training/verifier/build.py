"""Build the verifier's training pairs (issue 25, contract 3) from a clean checkout::

    python3 -m rt4chart_training.verifier.build [--out .cache/verifier] [--seed 0] [--limit N]

writes into ``--out``: ``pairs-nli.jsonl.gz`` and ``heldout-snli.jsonl.gz`` (``nli``), ``pairs-ragtruth.jsonl.gz``
(``ragtruth``), ``pairs-synthetic.jsonl.gz`` (``synthetic``), each with a ``.json`` summary (rows per source and
label, what was left out, the command, the seed, the seconds). RAGTruth **test** is never read, and the train
split's validation slice (``splits.validation_groups``) is left out unless ``--keep-validation``. The data folder is
``--data-dir``, else ``$RT4CHART_DATA_DIR``, else the ``shared/data`` above the working directory
(``rt4chart.eval.datasets.data_root``). The same options give the same bytes.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from rt4chart.eval.datasets import ENV_DATA_DIR, TASKS, load_ragtruth

from .nli import nli_pairs
from ..splits import VALIDATION_FRAC, VALIDATION_SEED, validation_groups
from .pairs import Pair, write_pairs, write_summary
from .ragtruth_pairs import OTHER_EVIDENCE_SHARE, ragtruth_pairs
from .synthetic import GENERATORS, default_caps, synthetic_pairs

PARTS = ("nli", "ragtruth", "synthetic")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m rt4chart_training.verifier.build", description=__doc__.split("\n")[0])
    p.add_argument("--out", default=".cache/verifier", help="output folder [.cache/verifier]")
    p.add_argument("--seed", type=int, default=0, help="seed of the samples and the synthetic edits [0]")
    p.add_argument("--limit", type=int, default=None,
                   help="at most N rows per NLI split and N RAGTruth train answers per task (a quick run)")
    p.add_argument("--data-dir", default=None, help=f"the data folder [${ENV_DATA_DIR}, else shared/data above]")
    p.add_argument("--parts", default=",".join(PARTS), help=f"which files to build [{','.join(PARTS)}]")
    p.add_argument("--max-words", type=int, default=160, help="premise word budget of RAGTruth claims [160]")
    p.add_argument("--other-share", type=float, default=OTHER_EVIDENCE_SHARE,
                   help=f"entailed RAGTruth claims also paired with another source's evidence [{OTHER_EVIDENCE_SHARE}]")
    p.add_argument("--synthetic-per-label", type=int, default=9000,
                   help="synthetic pairs a label, shared equally by its generators [9000]")
    p.add_argument("--keep-validation", action="store_true",
                   help="also build from the validation slice's groups (by default they are held out, as the selection "
                        f"runs read them: seed {VALIDATION_SEED}, fraction {VALIDATION_FRAC})")
    p.add_argument("--cap", action="append", default=[], metavar="NAME=N",
                   help=f"one generator's cap (repeatable); generators: {', '.join(GENERATORS)}")
    return p


def _caps(args) -> dict[str, int]:
    caps = default_caps(args.synthetic_per_label)
    for item in args.cap:
        name, _, n = item.partition("=")
        if name not in GENERATORS or not n.isdigit():
            raise SystemExit(f"--cap {item!r}: expected NAME=N with NAME one of {', '.join(GENERATORS)}")
        caps[name] = int(n)
    return caps


def _train_records(args) -> list:
    records = load_ragtruth("train", data_dir=args.data_dir)
    if not args.keep_validation:
        held = validation_groups([r.group for r in records])
        records = [r for r in records if r.group not in held]
    if args.limit is None:
        return records
    return [r for t in TASKS for r in [x for x in records if x.task == t][: args.limit]]


def _write(out: Path, stem: str, pairs: Sequence[Pair], **extra) -> dict:
    write_pairs(out / f"{stem}.jsonl.gz", pairs)
    data = write_summary(out / f"{stem}.json", pairs, **extra)
    print(f"[build] {stem}: {data['rows']} rows {data['labels']} ({extra.get('seconds', 0):.0f}s)", flush=True)
    return data


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    if not parts or any(p not in PARTS for p in parts):
        raise SystemExit(f"--parts: expected a comma-separated subset of {', '.join(PARTS)}")
    args.data_dir = args.data_dir or os.environ.get(ENV_DATA_DIR) or None
    out = Path(args.out)
    command = "python3 -m rt4chart_training.verifier.build " + shlex.join(sys.argv[1:] if argv is None else argv)
    common = {"command": command.strip(), "seed": args.seed, "limit": args.limit,
              "validation_held_out": not args.keep_validation}
    caps = _caps(args)
    records = _train_records(args) if {"ragtruth", "synthetic"} & set(parts) else []
    if "nli" in parts:
        t0 = time.time()
        nli = nli_pairs(args.data_dir, limit=args.limit)
        seconds = round(time.time() - t0, 1)
        _write(out, "pairs-nli", nli.train, dropped=nli.dropped, **common, seconds=seconds)
        _write(out, "heldout-snli", nli.heldout, **common, seconds=seconds)
    if "ragtruth" in parts:
        t0 = time.time()
        rt = ragtruth_pairs(records, max_words=args.max_words, seed=args.seed, other_share=args.other_share)
        _write(out, "pairs-ragtruth", rt.pairs, skipped=rt.skipped, answers=len(records), max_words=args.max_words,
               other_share=args.other_share, **common, seconds=round(time.time() - t0, 1))
    if "synthetic" in parts:
        t0 = time.time()
        syn = synthetic_pairs(records, seed=args.seed, caps=caps)
        _write(out, "pairs-synthetic", syn, caps=caps, contexts=len({r.group for r in records}), **common,
               seconds=round(time.time() - t0, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
