"""RAGTruth (Niu et al., 2024): the ``wandb/RAGTruth-processed`` rows and the FaithJudge per-source test layout."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any, Optional

from rt4chart.errors import ConfigError, InputError
from rt4chart.io import join_context

from ._files import check_spans, iter_jsonl, jsonl_file, require_str, resolve_dir
from .eval_records import TASKS, EvalRecord, GoldSpan, group_key, normalize_label, normalize_task

__all__ = ["ragtruth_dir", "load_ragtruth", "load_ragtruth_faithjudge"]

_OVERVIEW = "Overview:"


def _render_data2txt(raw: Any, rid: Any) -> str:
    """RAGTruth Data2txt context: a Python-repr dict (or a dict) → readable, indented JSON for the judge."""
    obj = raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.endswith(_OVERVIEW):  # wandb's prompt suffix, not part of the data
            text = text[: -len(_OVERVIEW)].rstrip()
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            try:
                obj = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
                raise InputError(f"Data2txt context is neither JSON nor a Python literal ({exc})", record=rid,
                                 field="context") from None
    if isinstance(obj, str):
        return obj
    return json.dumps(obj, indent=2, ensure_ascii=False)


_RT_TASK = {"QA": "qa", "Summary": "summary", "Data2txt": "data2txt"}


def _rt_spans(raw: Any, answer: str, rid: Any) -> tuple[GoldSpan, ...]:
    labels = raw
    if isinstance(raw, str):
        try:
            labels = json.loads(raw) if raw.strip() else []
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", record=rid, field="hallucination_labels") from None
    if not isinstance(labels, list):
        raise InputError("expected a JSON list", record=rid, field="hallucination_labels")
    spans = []
    for i, lab in enumerate(labels):
        if not isinstance(lab, dict):
            raise InputError(f"item {i} is not an object", record=rid, field="hallucination_labels")
        try:
            start, end = int(lab["start"]), int(lab["end"])
        except (KeyError, TypeError, ValueError):
            raise InputError(f"item {i} lacks integer start/end", record=rid, field="hallucination_labels") from None
        spans.append(GoldSpan(start, end, normalize_label(lab.get("label_type"), record=rid,
                                                          field_name="hallucination_labels.label_type")))
    return check_spans(spans, len(answer), rid, "hallucination_labels")


def _ragtruth_row(row: Any, lineno: int, fname: str) -> EvalRecord:
    if not isinstance(row, dict):
        raise InputError("row is not a JSON object", record=f"{fname}:{lineno}")
    rid = row.get("id", f"{fname}:{lineno}")
    rid = str(rid)
    task_raw = require_str(row, "task_type", rid)
    if task_raw not in _RT_TASK:
        raise InputError(f"unknown task_type {task_raw!r}", record=rid, field="task_type")
    task = _RT_TASK[task_raw]
    answer = require_str(row, "output", rid)
    raw_context = require_str(row, "context", rid)
    context = _render_data2txt(raw_context, rid) if task == "data2txt" else raw_context
    question = require_str(row, "query", rid, allow_none=True) if task == "qa" else None
    spans = _rt_spans(row.get("hallucination_labels", "[]"), answer, rid)
    model = row.get("model")
    quality = row.get("quality")
    return EvalRecord(
        id=rid,
        context=context,
        question=question,
        answer=answer,
        task=task,
        group=group_key(task, context),
        hallucinated=bool(spans),
        spans=spans,
        model=str(model) if model is not None else None,
        quality=str(quality) if quality is not None else None,
        source="ragtruth",
    )


def ragtruth_dir(root: "str | os.PathLike[str] | None" = None, *,
                 data_dir: "str | os.PathLike[str] | None" = None) -> Path:
    """The folder holding RAGTruth's ``{split}_{task}.jsonl(.gz)`` files.

    ``root`` is the data folder, its ``ragtruth/`` or ``ragtruth/jsonl/``; without it, ``ragtruth/`` as
    :func:`~rt4chart.eval.datasets.data_root` finds it (``data_dir`` first, then ``shared/data``).
    """
    base = resolve_dir(root, "ragtruth", lambda p: (p / "jsonl").is_dir() or any(p.glob("*_qa.jsonl*")),
                       data_dir=data_dir)
    return base / "jsonl" if (base / "jsonl").is_dir() else base


def load_ragtruth(
    split: str = "test",
    task: Optional[str] = None,
    root: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load RAGTruth ``split`` ("train", "test" or "all"), optionally one task ("qa", "summary", "data2txt").

    Records keep file order (QA, Summary, Data2txt). QA's question is ``query``; Summary and Data2txt have none
    (their ``query`` is a generation instruction, not a question). Data2txt's Python-repr context is rendered as
    indented JSON. An answer is hallucinated iff it has at least one gold span (PROVENANCE.md: identical to
    ``hallucination_labels_processed``). A malformed row raises InputError naming the record id and field.
    ``root`` and ``data_dir`` locate the files as in :func:`ragtruth_dir`.
    """
    splits = {"train": ("train",), "test": ("test",), "all": ("train", "test")}
    if split not in splits:
        raise ConfigError(f"unknown split {split!r}; expected train, test or all")
    jdir = ragtruth_dir(root, data_dir=data_dir)
    tasks = TASKS if task is None else (normalize_task(task),)
    records: list[EvalRecord] = []
    for sp in splits[split]:
        for t in tasks:
            path = jsonl_file(jdir, f"{sp}_{t}", "RAGTruth")
            for lineno, row in iter_jsonl(path):
                records.append(_ragtruth_row(row, lineno, path.name))
    return records


def _fj_context(task: str, source: Any, sid: Any) -> tuple[str, Optional[str]]:
    if task == "qa":
        if not isinstance(source, dict) or "passages" not in source:
            raise InputError("QA source must be an object with 'question' and 'passages'", record=sid,
                             field="source")
        passages = source["passages"]
        if isinstance(passages, list):
            passages = join_context([str(p) for p in passages])
        return str(passages), source.get("question")
    if task == "summary":
        if isinstance(source, dict):
            return str(source.get("passages", source.get("text", ""))), None
        if not isinstance(source, str):
            raise InputError("Summary source must be a string", record=sid, field="source")
        return source, None
    return _render_data2txt(source, sid), None


def load_ragtruth_faithjudge(
    task: Optional[str] = None,
    root: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load the RAGTruth test split in FaithJudge's per-source layout (2,617 responses, original label dicts).

    The layout has no response ids, split or quality; ids are ``"<source_id>-<response index>"`` and the group is
    the task plus the context hash (one source per group). ``root``/``data_dir`` as for :func:`load_ragtruth`.
    """
    base = resolve_dir(root, "ragtruth_test_faithjudge", lambda p: any(p.glob("ragtruth_*.jsonl*")),
                       data_dir=data_dir)
    tasks = TASKS if task is None else (normalize_task(task),)
    records: list[EvalRecord] = []
    for t in tasks:
        path = jsonl_file(base, f"ragtruth_{t}", "FaithJudge")
        for lineno, row in iter_jsonl(path):
            if not isinstance(row, dict):
                raise InputError("row is not a JSON object", record=f"{path.name}:{lineno}")
            sid = row.get("source_id", f"{path.name}:{lineno}")
            context, question = _fj_context(t, row.get("source"), sid)
            group = group_key(t, context)
            responses = row.get("responses")
            if not isinstance(responses, list):
                raise InputError("expected a list", record=sid, field="responses")
            for i, resp in enumerate(responses):
                rid = f"{sid}-{i}"
                if not isinstance(resp, dict):
                    raise InputError("response is not an object", record=rid, field="responses")
                answer = require_str(resp, "response", rid)
                spans = _rt_spans(resp.get("labels", []), answer, rid)
                records.append(EvalRecord(
                    id=rid, context=context, question=question, answer=answer, task=t, group=group,
                    hallucinated=bool(spans), spans=spans, model=resp.get("model"), source="ragtruth_faithjudge",
                ))
    return records
