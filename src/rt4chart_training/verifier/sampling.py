"""Which pairs a verifier run trains on, and in which batches: the pairs files (a folder's ``pairs-*.jsonl.gz``),
less the held-out SNLI pairs beside them; the caps on a source's draws (``--source-cap``, ``--cap PREFIX=N``) and on
its pairs of one label (``--cap PREFIX:LABEL=N``); and ``Draws``, each epoch's weighted, capped draws cut into
length-grouped batches, a function of the seed and the epoch alone.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from .common import LABEL_ID, LABELS, length_batches
from .pairs import Pair, read_pairs

HELDOUT_FILE = "heldout-snli.jsonl.gz"


def pair_files(paths: Sequence[str]) -> list[Path]:
    """The pairs files named by ``paths``: a file as given, a folder's ``pairs-*.jsonl.gz`` in name order."""
    out: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("pairs-*.jsonl.gz"))
            if not found:
                raise SystemExit(f"{path} holds no pairs-*.jsonl.gz (python3 -m rt4chart_training.verifier.build)")
            out.extend(found)
        elif path.is_file():
            out.append(path)
        else:
            raise SystemExit(f"no pairs file or folder {path}")
    return out


def load_pairs(files: Sequence[Path]) -> tuple[list[Pair], int]:
    """The pairs of ``files`` in order, less any whose (premise, hypothesis) is a held-out SNLI pair (the
    ``heldout-snli.jsonl.gz`` beside a file, when there is one), and how many were left out for that."""
    held: set[tuple[str, str]] = set()
    for folder in {f.parent for f in files}:
        if (folder / HELDOUT_FILE).is_file():
            held.update((p.premise, p.hypothesis) for p in read_pairs(folder / HELDOUT_FILE))
    pairs, dropped = [], 0
    for f in files:
        for p in read_pairs(f):
            if (p.premise, p.hypothesis) in held:
                dropped += 1
            elif p.label in LABEL_ID:
                pairs.append(p)
            else:
                raise SystemExit(f"{f}: a pair labelled {p.label!r}; labels are {', '.join(LABELS)}")
    if not pairs:
        raise SystemExit(f"no training pairs in {', '.join(map(str, files))}")
    return pairs, dropped


def parse_caps(items: Sequence[str]) -> dict[str, int]:
    """``PREFIX=N`` and ``PREFIX:LABEL=N`` items as a dict of their keys."""
    caps = {}
    for item in items:
        prefix, _, n = item.partition("=")
        label = prefix.partition(":")[2]
        if not prefix or not n.isdigit() or (":" in prefix and label not in LABELS):
            raise SystemExit(f"--cap {item!r}: expected PREFIX=N or PREFIX:LABEL=N (labels: {', '.join(LABELS)})")
        caps[prefix] = int(n)
    return caps


def _names(source: str, prefix: str) -> bool:
    return source == prefix or source.startswith(prefix.rstrip("/") + "/")


def source_caps(sources: Sequence[str], source_cap: Optional[int], caps: dict[str, int]) -> dict[str, Optional[int]]:
    """Each source's cap: the longest ``caps`` prefix naming it (the source itself or a folder above it), else
    ``source_cap``; label caps (``PREFIX:LABEL``) are ``label_caps``'."""
    out: dict[str, Optional[int]] = {}
    for s in sources:
        hits = [p for p in caps if ":" not in p and _names(s, p)]
        out[s] = caps[max(hits, key=len)] if hits else source_cap
    return out


def label_caps(sources: Sequence[str], caps: dict[str, int]) -> dict[str, dict[str, int]]:
    """Each source's caps on its pairs of one label: for each label, the longest ``PREFIX:LABEL`` key naming it."""
    out: dict[str, dict[str, int]] = {}
    for s in sources:
        for label in LABELS:
            hits = [k for k in caps if k.endswith(":" + label) and _names(s, k.rpartition(":")[0])]
            if hits:
                out.setdefault(s, {})[label] = caps[max(hits, key=len)]
    return out


class Draws:
    """Which pairs each epoch trains on, and in which batches: a function of the seed and the epoch alone, so a
    resumed run sees the batches the uninterrupted run would have."""

    def __init__(self, weights: np.ndarray, source_of: np.ndarray, caps: Sequence[Optional[int]],
                 lengths: np.ndarray, batch: int, seed: int, labels: Optional[np.ndarray] = None,
                 label_caps: Optional[Sequence[dict[int, int]]] = None) -> None:
        """``label_caps[s]`` caps source ``s``'s draws of a label id (``labels`` the pairs' label ids), before
        ``caps[s]`` caps all its draws."""
        self.weights, self.source_of, self.caps = weights, source_of, list(caps)
        self.labels, self.label_caps = labels, list(label_caps or [{} for _ in self.caps])
        self.lengths, self.batch, self.seed = lengths, batch, seed
        self._cache: dict[int, list[list[int]]] = {}

    def epoch(self, e: int) -> list[list[int]]:
        if e not in self._cache:
            self._cache = {e: self._batches(e)}  # one epoch kept: they are looked at in order
        return self._cache[e]

    def _batches(self, e: int) -> list[list[int]]:
        rng = np.random.default_rng([self.seed, e])
        whole = np.floor(self.weights).astype(np.int64)
        extra = rng.random(len(self.weights)) < (self.weights - whole)
        order = np.repeat(np.arange(len(self.weights)), whole + extra)
        keep = []
        for s, cap in enumerate(self.caps):
            mine = order[self.source_of[order] == s]
            for label, label_cap in sorted(self.label_caps[s].items()):
                of_label = self.labels[mine] == label
                if of_label.sum() > label_cap:
                    kept = rng.choice(mine[of_label], size=label_cap, replace=False)
                    mine = np.sort(np.concatenate([mine[~of_label], kept]))
            if cap is not None and len(mine) > cap:
                mine = np.sort(rng.choice(mine, size=cap, replace=False))
            keep.append(mine)
        order = np.concatenate(keep) if keep else order
        order = order[rng.permutation(len(order))]
        return length_batches(order.tolist(), self.lengths, self.batch, random.Random(f"{self.seed}/{e}"))
