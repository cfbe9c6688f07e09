"""The shared NLI / claim-verification pairs (``<data>/nli/<dataset>/<split>.jsonl.gz``, see that folder's README) as
evaluation records, each built as a user would send it: the premise (evidence) is the context, the hypothesis (claim)
the answer, no question. Gold: hallucinated = not supported, i.e. any label but ``entailment`` (contradiction,
neutral, ``not_entailment``, WiCE's ``partially_supported``). The answer has no gold spans (answer-level and ranking
metrics only)."""

from __future__ import annotations

import os
from typing import Sequence

from rt4chart.errors import InputError

from ._files import iter_jsonl, jsonl_file, require_str, resolve_dir
from .eval_records import EvalRecord, group_key

__all__ = ["NLI_SUPPORTED", "load_nli"]

#: the one label that counts as supported (not hallucinated)
NLI_SUPPORTED = "entailment"


def load_nli(
    dataset: str,
    splits: Sequence[str],
    root: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """The pairs of ``<nli>/<dataset>/<split>.jsonl.gz`` for each of ``splits``, in file order, identical
    (premise, hypothesis) pairs kept once. ``task`` is the dataset name; ids are ``<dataset>/<split>:<line>``;
    the group is the premise's (``group_key``), so pairs sharing evidence resample together. ``root`` is the data
    folder or its ``nli/`` folder; without it the folder is found as for RAGTruth (``data_root``)."""
    base = resolve_dir(root, "nli", lambda p: p.is_dir(), data_dir=data_dir)
    folder = base / dataset
    if not folder.is_dir():
        raise InputError(f"NLI dataset folder {folder} not found")
    records: list[EvalRecord] = []
    seen: set[tuple[str, str]] = set()
    for split in splits:
        path = jsonl_file(folder, split, f"NLI {dataset}")
        for lineno, row in iter_jsonl(path):
            rid = f"{dataset}/{split}:{lineno}"
            if not isinstance(row, dict):
                raise InputError("row is not a JSON object", record=rid)
            premise, hypothesis = require_str(row, "premise", rid), require_str(row, "hypothesis", rid)
            label = require_str(row, "label", rid)
            if (premise, hypothesis) in seen:
                continue
            seen.add((premise, hypothesis))
            records.append(EvalRecord(
                id=rid, context=premise, question=None, answer=hypothesis, task=dataset,
                group=group_key(dataset, premise), hallucinated=label != NLI_SUPPORTED, source=f"nli/{dataset}",
            ))
    return records

