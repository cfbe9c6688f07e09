"""Evaluation datasets: records with gold hallucination labels and gold answer spans.

Every loader returns a list of :class:`EvalRecord`. ``record.to_record()`` is the audit input record
(DESIGN.md "Contracts"); the gold fields (``hallucinated``, ``spans``, ``evidence``) stay on the EvalRecord and
are read only by the scorer.

Loaders:

* :func:`load_ragtruth` — RAGTruth (Niu et al., 2024) in the ``wandb/RAGTruth-processed`` row layout stored under
  ``<data>/ragtruth/jsonl/{split}_{task}.jsonl.gz`` (see that folder's PROVENANCE.md).
* :func:`load_ragtruth_faithjudge` — the RAGTruth test split in the original per-source label format
  (``<data>/ragtruth_test_faithjudge/ragtruth_{task}.jsonl.gz``, vectara/FaithJudge).
* :func:`load_ragtruth_pp` — RAGTruth++ (``blue-guardrails/ragtruth-plus-plus``) as published on Hugging Face.
* :func:`load_halubench` — HaluBench (``PatronusAI/HaluBench``): context/question/answer/label, answer-level only.
* :func:`load_jsonl` — a generic JSONL file with ``labels``/``spans`` fields.
* :func:`load_nli` — a shared NLI / claim-verification set (``<data>/nli/<dataset>/<split>.jsonl.gz``): premise as
  context, hypothesis as answer, hallucinated = not entailed.

Gold span labels are normalised to ``"contradicted"`` (RAGTruth ``* Conflict``) and ``"baseless"``
(RAGTruth ``* Baseless Info``). The bundled datasets are found by :func:`data_root` (``root=`` names the folder;
else ``data_dir``, which the command line fills from ``RT4CHART_DATA_DIR``, then ``shared/data`` above the working
directory); the library itself reads no environment variable.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Callable, Optional

from rt4chart.errors import ConfigError

from ._files import ENV_DATA_DIR, data_root, iter_jsonl, jsonl_file
from .external import load_halubench, load_jsonl, load_ragtruth_pp
from .nli import load_nli
from .ragtruth import load_ragtruth, load_ragtruth_faithjudge, ragtruth_dir
from .eval_records import TASKS, EvalRecord, GoldSpan, group_key, normalize_label

__all__ = [
    "GoldSpan",
    "EvalRecord",
    "TASKS",
    "DATASETS",
    "ENV_DATA_DIR",
    "iter_jsonl",
    "jsonl_file",
    "data_root",
    "group_key",
    "load_dataset",
    "load_ragtruth",
    "load_ragtruth_faithjudge",
    "load_ragtruth_pp",
    "load_halubench",
    "load_jsonl",
    "load_nli",
    "normalize_label",
    "ragtruth_dir",
]

#: name → (loader kind). ``path`` is required for the user-supplied datasets.
DATASETS: tuple[str, ...] = ("ragtruth", "ragtruth-faithjudge", "ragtruth++", "halubench", "jsonl")


def load_dataset(
    name: str,
    split: str = "test",
    task: Optional[str] = None,
    path: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load a dataset by name: ``ragtruth`` (split train/test/all; ``path`` = data root, optional),
    ``ragtruth-faithjudge`` (test only), ``ragtruth++``, ``halubench`` and ``jsonl`` (``path`` required).

    ``data_dir`` is where the RAGTruth datasets are looked for first when ``path`` does not name them (RAGTruth++
    reads its contexts from RAGTruth there); see :func:`data_root`."""
    key = name.strip().lower().replace("_", "-")
    if key == "ragtruth":
        return load_ragtruth(split, task, root=path, data_dir=data_dir)
    if key in ("ragtruth-faithjudge", "faithjudge"):
        if split not in ("test", "all"):
            raise ConfigError("the FaithJudge copy of RAGTruth holds the test split only")
        return load_ragtruth_faithjudge(task, root=path, data_dir=data_dir)
    loaders: dict[str, Callable[..., list[EvalRecord]]] = {
        "ragtruth++": partial(load_ragtruth_pp, data_dir=data_dir), "halubench": load_halubench, "jsonl": load_jsonl,
    }
    for alias in ("ragtruth-pp", "ragtruthpp", "ragtruth-plus-plus"):
        loaders[alias] = loaders["ragtruth++"]
    if key not in loaders:
        raise ConfigError(f"unknown dataset {name!r}; expected one of {', '.join(DATASETS)}")
    if path is None:
        raise ConfigError(f"dataset {name!r} is not bundled; pass path= (the CLI's --path) to a local copy")
    return loaders[key](path, task=task)
