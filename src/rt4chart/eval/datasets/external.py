"""User-supplied datasets read from a local copy: a generic JSONL layout, RAGTruth++ and HaluBench."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

from rt4chart.errors import ConfigError, InputError
from rt4chart.io import context_text

from ._files import check_spans, read_csv, read_rows, require_str
from .ragtruth import load_ragtruth
from .eval_records import EvalRecord, GoldSpan, filter_task, group_key, normalize_label, normalize_task

__all__ = ["load_jsonl", "load_ragtruth_pp", "load_halubench"]

def _spans_from(value: Any, answer: str, rid: Any, field_name: str, default_label: str) -> tuple[GoldSpan, ...]:
    """Parse ``[[s, e], …]``, ``[[s, e, label], …]`` or ``[{"start", "end", "label"/"label_type"?}, …]``."""
    if value is None:
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            raise InputError("not valid JSON", record=rid, field=field_name) from None
    if not isinstance(value, list):
        raise InputError("expected a list of spans", record=rid, field=field_name)
    spans = []
    for i, item in enumerate(value):
        try:
            if isinstance(item, dict):
                start, end = int(item["start"]), int(item["end"])
                raw_label = item.get("label", item.get("label_type", item.get("type")))
            elif isinstance(item, (list, tuple)) and len(item) in (2, 3):
                start, end = int(item[0]), int(item[1])
                raw_label = item[2] if len(item) == 3 else None
            else:
                raise TypeError
        except (KeyError, TypeError, ValueError):
            raise InputError(f"item {i} is not [start, end] or {{start, end}}", record=rid, field=field_name) \
                from None
        label = default_label if raw_label is None else normalize_label(raw_label, record=rid, field_name=field_name)
        spans.append(GoldSpan(start, end, label))
    return check_spans(spans, len(answer), rid, field_name)


def _as_bool(value: Any, rid: Any, field_name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "fail", "hallucinated", "unfaithful"):
            return True
        if low in ("0", "false", "no", "pass", "faithful", "supported"):
            return False
    raise InputError(f"cannot read {value!r} as a boolean label", record=rid, field=field_name)


def _context_text(value: Any, rid: Any) -> str:
    if isinstance(value, dict):  # structured data (a data-to-text source): its JSON
        return json.dumps(value, indent=2, ensure_ascii=False)
    return context_text(value, record=rid)


def load_jsonl(path: "str | os.PathLike[str]", task: Optional[str] = None) -> list[EvalRecord]:
    """Load a generic JSONL file (``.jsonl``, ``.jsonl.gz``, a ``.json`` list, or a folder of them).

    Each row: ``id``, ``context`` (string or list of strings), ``question`` (optional), ``answer``, ``task``
    (optional, default "generic"), ``group`` (optional, default task + context hash), and gold labels as any of:
    ``labels`` — a list of span objects ``{"start", "end", "label"?}``; ``spans`` — ``[[start, end], …]`` or span
    objects; ``hallucinated`` — a boolean (derived from the spans when absent; must agree when both are given
    and spans are non-empty). ``evidence`` (optional) — gold context spans for grounding metrics.
    """
    records = []
    for lineno, row in read_rows(path):
        if not isinstance(row, dict):
            raise InputError("row is not a JSON object", record=f"line {lineno}")
        rid = str(row["id"]) if row.get("id") is not None else str(lineno)
        answer = require_str(row, "answer", rid)
        if "context" not in row:
            raise InputError("missing field", record=rid, field="context")
        context = _context_text(row["context"], rid)
        question = row.get("question")
        if question is not None and not isinstance(question, str):
            raise InputError("expected a string or null", record=rid, field="question")
        rtask = row.get("task") or "generic"
        try:
            rtask = normalize_task(rtask)
        except ConfigError:
            rtask = str(rtask)
        spans: tuple[GoldSpan, ...] = ()
        has_spans = False
        for key in ("labels", "spans"):
            if key in row and row[key] is not None and not isinstance(row[key], bool):
                spans = spans + _spans_from(row[key], answer, rid, key, "baseless")
                has_spans = True
        spans = tuple(sorted(set(spans), key=lambda s: (s.start, s.end, s.label)))
        if "hallucinated" in row and row["hallucinated"] is not None:
            hall = _as_bool(row["hallucinated"], rid, "hallucinated")
            if spans and not hall:
                raise InputError("hallucinated is false but gold spans are given", record=rid, field="hallucinated")
        elif has_spans:
            hall = bool(spans)
        elif "label" in row:
            hall = _as_bool(row["label"], rid, "label")
        else:
            raise InputError("no gold label: give 'hallucinated', 'labels' or 'spans'", record=rid,
                             field="hallucinated")
        evidence = _spans_from(row.get("evidence"), context, rid, "evidence", "contradicted")
        group = str(row["group"]) if row.get("group") is not None else group_key(rtask, context)
        records.append(EvalRecord(
            id=rid, context=context, question=question, answer=answer, task=rtask, group=group,
            hallucinated=hall, spans=spans, model=row.get("model"), quality=row.get("quality"),
            evidence=evidence, source="jsonl",
        ))
    return filter_task(records, task)


def load_ragtruth_pp(
    path: "str | os.PathLike[str]",
    task: Optional[str] = None,
    ragtruth_root: "str | os.PathLike[str] | None" = None,
    *,
    data_dir: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load RAGTruth++ (``blue-guardrails/ragtruth-plus-plus`` on Hugging Face) from a local copy.

    ``path`` is the folder holding the two published CSV files (or ``messages.csv`` itself):

    * ``messages.csv`` — ``stable_id, meta, role, position, text, message_thread_stable_id``; one user message
      (the RAGTruth prompt) and one assistant message (the answer) per thread; ``meta`` is a JSON object that
      carries the RAGTruth response id (``original_id``), the model and the task type where known.
    * ``hallucination_spans.csv`` — ``start_pos, end_pos, span_text, label, reasoning, stable_id,
      message_stable_id``: character offsets into the assistant message.

    An answer is hallucinated iff it has a span. Record ids are the RAGTruth ids when ``meta`` has them (so a
    RAGTruth run's predictions score directly), else the message ``stable_id``. When the RAGTruth data are found
    (``ragtruth_root``, else ``data_dir`` and the usual search), context, question and task come from the RAGTruth
    record, so the audit input is the same as on RAGTruth; otherwise the user prompt is the context and the question
    is None.
    Span labels that are not RAGTruth types map to ``baseless`` (RAGTruth++ does not separate the two).
    """
    p = Path(path).expanduser()
    msg_path = p if p.is_file() else p / "messages.csv"
    span_path = msg_path.parent / "hallucination_spans.csv"
    for f in (msg_path, span_path):
        if not f.exists():
            raise InputError(f"RAGTruth++ file {f} not found (expected messages.csv and hallucination_spans.csv)")
    messages = read_csv(msg_path)
    for col in ("stable_id", "role", "text", "message_thread_stable_id"):
        if messages and col not in messages[0][1]:
            raise InputError(f"messages.csv has no column {col!r}", field=col)
    users: dict[str, str] = {}
    assistants: list[tuple[int, dict]] = []
    for lineno, row in messages:
        role = (row.get("role") or "").strip().lower()
        if role == "user":
            users[row["message_thread_stable_id"]] = row.get("text") or ""
        elif role == "assistant":
            assistants.append((lineno, row))
    spans_by_msg: dict[str, list[GoldSpan]] = {}
    for lineno, row in read_csv(span_path):
        mid = row.get("message_stable_id")
        try:
            start, end = int(row["start_pos"]), int(row["end_pos"])
        except (KeyError, TypeError, ValueError):
            raise InputError("start_pos/end_pos are not integers", record=f"hallucination_spans.csv:{lineno}",
                             field="start_pos") from None
        raw = row.get("label") or ""
        try:
            label = normalize_label(raw)
        except InputError:
            label = "baseless"
        spans_by_msg.setdefault(str(mid), []).append(GoldSpan(start, end, label))
    rt_by_id: dict[str, EvalRecord] = {}
    try:
        rt_by_id = {r.id: r for r in load_ragtruth("test", root=ragtruth_root, data_dir=data_dir)}
    except InputError:
        pass
    records = []
    for lineno, row in assistants:
        sid = str(row["stable_id"])
        try:
            meta = json.loads(row.get("meta") or "{}")
        except json.JSONDecodeError:
            raise InputError("meta is not JSON", record=sid, field="meta") from None
        meta = meta if isinstance(meta, dict) else {}
        original = meta.get("original_id", meta.get("id"))
        rid = str(original) if original is not None else sid
        answer = row.get("text") or ""
        spans = check_spans(spans_by_msg.get(sid, []), len(answer), rid, "hallucination_spans")
        base = rt_by_id.get(rid)
        if base is not None:
            context, question, rtask = base.context, base.question, base.task
        else:
            thread = row["message_thread_stable_id"]
            if thread not in users:
                raise InputError("no user message (prompt) in this thread", record=rid,
                                 field="message_thread_stable_id")
            context, question = users[thread], None
            raw_task = meta.get("task_type", meta.get("task"))
            try:
                rtask = normalize_task(raw_task) or "unknown"
            except ConfigError:
                rtask = str(raw_task)
        records.append(EvalRecord(
            id=rid, context=context, question=question, answer=answer, task=rtask, group=group_key(rtask, context),
            hallucinated=bool(spans), spans=spans, model=meta.get("model") or (base.model if base else None),
            quality=base.quality if base else None, source="ragtruth++",
        ))
    return filter_task(records, task)


def load_halubench(path: "str | os.PathLike[str]", task: Optional[str] = None) -> list[EvalRecord]:
    """Load HaluBench (``PatronusAI/HaluBench``) from a local copy: the published parquet
    (``data/test-00000-of-00001.parquet``, needs pyarrow) or the same rows as JSONL/JSON/CSV.

    Columns: ``id, passage, question, answer, label, source_ds``; ``label`` is ``PASS`` (faithful) or ``FAIL``
    (hallucinated). HaluBench has no spans, so only answer-level and ranking metrics apply. ``task`` is the
    source dataset (``source_ds``), so results are reported per source; the group is source + passage hash.
    ``task=`` filters on ``source_ds`` (case-insensitive).
    """
    p = Path(path).expanduser()
    if p.is_dir():
        found = sorted([*p.rglob("*.parquet"), *p.rglob("*.jsonl"), *p.rglob("*.jsonl.gz"), *p.rglob("*.csv")])
        if not found:
            raise InputError(f"no HaluBench file (.parquet/.jsonl/.csv) under {p}")
        rows: list[tuple[int, Any]] = []
        for f in found:
            rows.extend(read_csv(f) if f.suffix == ".csv" else read_rows(f))
    elif p.suffix == ".csv":
        rows = list(read_csv(p))
    else:
        rows = read_rows(p)
    records = []
    seen: set[str] = set()
    for lineno, row in rows:
        if not isinstance(row, dict):
            raise InputError("row is not an object", record=f"row {lineno}")
        rid = str(row.get("id") if row.get("id") not in (None, "") else f"row-{lineno}")
        if rid in seen:
            rid = f"{rid}#{lineno}"
        seen.add(rid)
        context = require_str(row, "passage", rid)
        answer = require_str(row, "answer", rid)
        question = row.get("question")
        if question is not None and not isinstance(question, str):
            raise InputError("expected a string", record=rid, field="question")
        label = row.get("label")
        if not isinstance(label, str) or label.strip().upper() not in ("PASS", "FAIL"):
            raise InputError(f"expected PASS or FAIL, got {label!r}", record=rid, field="label")
        source = str(row.get("source_ds") or "halubench")
        records.append(EvalRecord(
            id=rid, context=context, question=question or None, answer=answer, task=source,
            group=group_key(source, context), hallucinated=label.strip().upper() == "FAIL", source="halubench",
        ))
    if task is not None:
        records = [r for r in records if r.task.lower() == str(task).lower()]
    return records
