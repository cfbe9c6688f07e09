"""The training pair (issue 25, contract 3) and the files that hold them: ``pairs-*.jsonl.gz``, one JSON object a
line, with a ``*.json`` summary beside each."""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

#: the label order of the verifier's outputs
LABELS = ("entailment", "contradiction", "neutral")


class Pair(NamedTuple):
    """One (premise, hypothesis) pair: ``source`` names the set or generator, ``group`` what cross-validation keeps
    together, ``weight`` the sampling weight."""

    premise: str
    hypothesis: str
    label: str
    source: str
    group: str
    weight: float = 1.0


def write_pairs(path: Path, pairs: Iterable[Pair]) -> int:
    """Write ``pairs`` to ``path`` (gzip with no name or timestamp, so the same pairs give the same bytes); the row
    count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as gz, \
            io.TextIOWrapper(gz, encoding="utf-8") as fh:
        for p in pairs:
            if p.label not in LABELS:
                raise ValueError(f"unknown label {p.label!r} in a pair of {p.source}")
            fh.write(json.dumps(p._asdict(), ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_pairs(path: Path) -> Iterator[Pair]:
    """The pairs of a ``pairs-*.jsonl.gz`` file, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield Pair(**json.loads(line))


def summary(pairs: Iterable[Pair]) -> dict:
    """Rows in all, per label, and per source and label."""
    by_source: dict[str, Counter] = {}
    labels: Counter = Counter()
    for p in pairs:
        by_source.setdefault(p.source, Counter())[p.label] += 1
        labels[p.label] += 1
    return {"rows": sum(labels.values()), "labels": {k: labels[k] for k in LABELS if labels[k]},
            "sources": {s: {k: c[k] for k in LABELS if c[k]} for s, c in sorted(by_source.items())}}


def write_summary(path: Path, pairs: Iterable[Pair], **extra) -> dict:
    """Write ``summary(pairs)`` and ``extra`` (the command, the seed, the seconds...) as JSON to ``path``."""
    data = {**summary(pairs), **extra}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return data
