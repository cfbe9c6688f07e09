"""Input shapes for ``rt4chart eval run --shape``: the same RAGTruth records sent in another form.

A judge whose decisions travel gives the same verdicts whatever the form of its input; these shapes measure that
(issue 25, "decisions that travel"). Each shape changes only what the judge is sent; the answers, their gold
spans, ids and source-context groups stay as they are, so the scores are comparable with the clean run's.

* ``clean`` (the default): the records as :func:`~rt4chart.eval.datasets.load_ragtruth` gives them: QA's question is
  the row's ``query``, Summary and Data2txt have none; Data2txt contexts are rendered as indented JSON.
* ``instruction-question``: every record's question is its row's ``query``, for every task (Summary's and Data2txt's
  ``query`` is the instruction the answer was written to, e.g. "Summarize the following news within 86 words:").
  QA is unchanged.
* ``raw-data2txt``: a Data2txt context is the row's Python record literal as stored, without wandb's prompt suffix
  (the trailing ``Overview:``) and the surrounding white space. The other tasks are unchanged.

Shapes combine (``instruction-question,raw-data2txt``). They need the rows as stored, so they apply to the
``ragtruth`` dataset only; anything else is a ``ConfigError``.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Optional, Sequence

from ...errors import ConfigError, InputError

from ..datasets import TASKS, EvalRecord, ragtruth_dir
from ..datasets import iter_jsonl, jsonl_file

__all__ = ["SHAPES", "CLEAN", "parse_shape", "shape_name", "raw_data2txt", "reshape", "shape_records",
           "ragtruth_rows"]

CLEAN = "clean"
#: the shapes other than clean, in the order a combined name lists them
SHAPES: tuple[str, ...] = ("instruction-question", "raw-data2txt")
_SUFFIX = "Overview:"  # wandb's prompt suffix of a Data2txt context (ragtruth/PROVENANCE.md)
_SPLITS = {"train": ("train",), "test": ("test",), "all": ("train", "test")}


def parse_shape(spec: Optional[str]) -> tuple[str, ...]:
    """The shapes named by ``spec`` (comma-separated), in :data:`SHAPES` order; ``()`` for ``clean`` (or None).

    ``clean`` cannot be combined with another shape; an unknown name is a ``ConfigError``."""
    if spec is None:
        return ()
    names = [s.strip().lower() for s in str(spec).split(",") if s.strip()]
    if not names:
        raise ConfigError(f"empty --shape {spec!r}; expected {CLEAN} or a comma-separated list of {', '.join(SHAPES)}")
    unknown = [n for n in names if n != CLEAN and n not in SHAPES]
    if unknown:
        raise ConfigError(f"unknown shape {unknown[0]!r}; expected {CLEAN} or a comma-separated list of "
                          f"{', '.join(SHAPES)}")
    if CLEAN in names:
        if len(set(names)) > 1:
            raise ConfigError(f"shape {CLEAN!r} cannot be combined with another shape")
        return ()
    return tuple(s for s in SHAPES if s in names)


def shape_name(shapes: Sequence[str]) -> str:
    """The canonical name of parsed shapes: ``clean`` for none, else the names joined by commas."""
    return ",".join(shapes) if shapes else CLEAN


def raw_data2txt(context: str) -> str:
    """A stored Data2txt context as the raw record literal: white space and the ``Overview:`` suffix removed."""
    text = context.strip()
    if text.endswith(_SUFFIX):
        text = text[: -len(_SUFFIX)].rstrip()
    return text


def reshape(record: EvalRecord, row: Mapping[str, Any], shapes: Sequence[str]) -> EvalRecord:
    """``record`` in ``shapes``, from its stored RAGTruth ``row`` (same id and answer, else an InputError)."""
    if str(row.get("id")) != record.id or row.get("output") != record.answer:
        raise InputError("the stored row does not match the record (id or answer differ)", record=record.id)
    changes: dict[str, Any] = {}
    if "instruction-question" in shapes:
        query = row.get("query")
        if query is not None and not isinstance(query, str):
            raise InputError(f"expected a string, got {type(query).__name__}", record=record.id, field="query")
        changes["question"] = query
    if "raw-data2txt" in shapes and record.task == "data2txt":
        context = row.get("context")
        if not isinstance(context, str):
            raise InputError("expected a string", record=record.id, field="context")
        changes["context"] = raw_data2txt(context)
    return dataclasses.replace(record, **changes) if changes else record


def ragtruth_rows(split: str, ids: Optional[set[str]] = None, root: "str | os.PathLike[str] | None" = None, *,
                  data_dir: "str | os.PathLike[str] | None" = None) -> dict[str, dict]:
    """The stored RAGTruth rows of ``split`` by id (only ``ids`` when given), located as ``load_ragtruth`` does."""
    if split not in _SPLITS:
        raise ConfigError(f"unknown split {split!r}; expected train, test or all")
    jdir = ragtruth_dir(root, data_dir=data_dir)
    rows: dict[str, dict] = {}
    for sp in _SPLITS[split]:
        for task in TASKS:
            for _, row in iter_jsonl(jsonl_file(jdir, f"{sp}_{task}", "RAGTruth")):
                if isinstance(row, dict) and (ids is None or str(row.get("id")) in ids):
                    rows[str(row.get("id"))] = row
    return rows


def shape_records(records: Sequence[EvalRecord], spec: Optional[str], *, dataset: str = "ragtruth",
                  split: str = "test", root: "str | os.PathLike[str] | None" = None,
                  data_dir: "str | os.PathLike[str] | None" = None) -> list[EvalRecord]:
    """``records`` (loaded from ``dataset``/``split``; ``root``/``data_dir`` as for the loader) in the shape
    ``spec``. ``clean`` returns them unchanged; another shape needs the ``ragtruth`` dataset (a ConfigError
    otherwise) and reads its stored rows."""
    shapes = parse_shape(spec)
    if not shapes:
        return list(records)
    if dataset.strip().lower() != "ragtruth":
        raise ConfigError(f"--shape {shape_name(shapes)} needs --dataset ragtruth (the shapes are made from its "
                          f"stored rows), not {dataset!r}")
    rows = ragtruth_rows(split, {r.id for r in records}, root, data_dir=data_dir)
    missing = [r.id for r in records if r.id not in rows]
    if missing:
        raise InputError(f"{len(missing)} records have no stored row (first: {missing[0]})", field="id")
    return [reshape(r, rows[r.id], shapes) for r in records]
