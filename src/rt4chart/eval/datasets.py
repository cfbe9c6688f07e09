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

Gold span labels are normalised to ``"contradicted"`` (RAGTruth ``* Conflict``) and ``"baseless"``
(RAGTruth ``* Baseless Info``).
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from rt4chart.errors import ConfigError, InputError

__all__ = [
    "GoldSpan",
    "EvalRecord",
    "TASKS",
    "DATASETS",
    "data_root",
    "group_key",
    "load_dataset",
    "load_ragtruth",
    "load_ragtruth_faithjudge",
    "load_ragtruth_pp",
    "load_halubench",
    "load_jsonl",
    "normalize_label",
]

#: RAGTruth task names, in the order they are reported.
TASKS: tuple[str, ...] = ("qa", "summary", "data2txt")

_TASK_ALIASES = {
    "qa": "qa",
    "summary": "summary",
    "summarization": "summary",
    "data2txt": "data2txt",
    "data2text": "data2txt",
    "data-to-text": "data2txt",
}

_SPAN_LABELS = ("contradicted", "baseless")

ENV_DATA_DIR = "RT4CHART_DATA_DIR"


@dataclass(frozen=True)
class GoldSpan:
    """A gold hallucinated interval ``[start, end)`` of the answer (or, for evidence, of the context)."""

    start: int
    end: int
    label: str = "baseless"

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class EvalRecord:
    """One evaluation example: the audit input plus its gold labels.

    ``group`` is the source-context key used for grouped bootstrap intervals (RAGScope §II.D): the task plus a hash
    of the context, so the answers written from the same source resample together. ``evidence`` holds gold context
    spans (refuting evidence) where a dataset has them; RAGTruth has none.
    """

    id: str
    context: str
    question: Optional[str]
    answer: str
    task: str
    group: str
    hallucinated: bool
    spans: tuple[GoldSpan, ...] = ()
    model: Optional[str] = None
    quality: Optional[str] = None
    evidence: tuple[GoldSpan, ...] = ()
    source: Optional[str] = None

    def to_record(self) -> dict:
        """The audit input record ``{"id", "context", "question", "answer", "task"}``."""
        return {
            "id": self.id,
            "context": self.context,
            "question": self.question,
            "answer": self.answer,
            "task": self.task,
        }

    @property
    def labels(self) -> frozenset[str]:
        """The set of gold span labels of this answer (empty when it is faithful or has no span types)."""
        return frozenset(s.label for s in self.spans)


def group_key(task: str, context: str) -> str:
    """Source-context group key: ``task:`` plus the first 16 hex digits of the context's SHA-1."""
    return f"{task}:{hashlib.sha1(context.encode('utf-8')).hexdigest()[:16]}"


def normalize_label(raw: Any, *, record: Any = None, field_name: str = "label_type") -> str:
    """Map a gold span label to ``contradicted`` or ``baseless``.

    RAGTruth: ``Evident/Subtle Conflict`` → contradicted, ``Evident/Subtle Baseless Info`` → baseless. Our own names
    (and ``unsupported``/``nic``/``con``) are accepted as well; anything else is an InputError.
    """
    if not isinstance(raw, str):
        raise InputError(f"span label must be a string, got {type(raw).__name__}", record=record, field=field_name)
    low = raw.strip().lower()
    if "conflict" in low or low in ("contradicted", "contradiction", "con"):
        return "contradicted"
    if "baseless" in low or low in ("unsupported", "nic", "not in context", "hallucinated", "hallucination"):
        return "baseless"
    raise InputError(f"unknown span label {raw!r} (expected *Conflict or *Baseless Info)", record=record,
                     field=field_name)


def _normalize_task(task: Optional[str]) -> Optional[str]:
    if task is None:
        return None
    key = str(task).strip().lower()
    if key not in _TASK_ALIASES:
        raise ConfigError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return _TASK_ALIASES[key]


# --------------------------------------------------------------------------------------------------------------
# Locating the data


def _candidate_data_dirs() -> list[Path]:
    """Folders that may hold ``ragtruth/``: ``shared/data`` above the cwd and above this file."""
    seen: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for parent in (start, *start.parents):
            cand = parent / "shared" / "data"
            if cand not in seen:
                seen.append(cand)
    return seen


def data_root(dataset: str = "ragtruth") -> Path:
    """The data folder that contains ``<dataset>/`` (by default ``ragtruth/``).

    Order: the environment variable ``RT4CHART_DATA_DIR``; then ``shared/data`` in the current directory or any
    parent, then in this file's folder or any parent (CI clones next to ``shared/``, so ``<clone>/../shared/data``
    is found as the parent's ``shared/data``). Raises InputError saying where it looked.
    """
    looked: list[str] = []
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        p = Path(env).expanduser()
        if (p / dataset).is_dir():
            return p
        looked.append(f"${ENV_DATA_DIR}={p}")
    for cand in _candidate_data_dirs():
        if (cand / dataset).is_dir():
            return cand
        looked.append(str(cand))
    shown = "; ".join(looked[:12]) + (f"; … ({len(looked) - 12} more)" if len(looked) > 12 else "")
    raise InputError(
        f"data folder {dataset!r} not found; set {ENV_DATA_DIR} to the folder containing {dataset}/ "
        f"or pass root=. Looked in: {shown}"
    )


def _resolve_dir(root: "str | os.PathLike[str] | None", dataset: str, marker: Callable[[Path], bool]) -> Path:
    """Accept the data folder, the dataset folder itself, or (for RAGTruth) its ``jsonl/`` folder."""
    if root is None:
        base = data_root(dataset) / dataset
    else:
        r = Path(root).expanduser()
        if not r.exists():
            raise InputError(f"data path {r} does not exist")
        base = r / dataset if (r / dataset).is_dir() else r
    if not marker(base):
        raise InputError(f"{base} does not look like the {dataset} data folder")
    return base


# --------------------------------------------------------------------------------------------------------------
# Reading helpers


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed object); a line that is not JSON raises InputError naming the line."""
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path.name}:{lineno}: not valid JSON ({exc.msg})", record=f"line {lineno}") \
                    from None


def _require_str(row: dict, key: str, rid: Any, *, allow_none: bool = False) -> Optional[str]:
    if key not in row:
        raise InputError("missing field", record=rid, field=key)
    value = row[key]
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", record=rid, field=key)
    return value


def _check_spans(spans: Iterable[GoldSpan], length: int, rid: Any, field_name: str) -> tuple[GoldSpan, ...]:
    out = []
    for s in spans:
        if not (0 <= s.start < s.end <= length):
            raise InputError(f"span [{s.start}, {s.end}) is outside [0, {length}]", record=rid, field=field_name)
        out.append(s)
    return tuple(sorted(out, key=lambda s: (s.start, s.end)))


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


def _filter_task(records: list[EvalRecord], task: Optional[str]) -> list[EvalRecord]:
    if task is None:
        return records
    try:
        t = _normalize_task(task)
    except ConfigError:  # datasets with their own task names (e.g. HaluBench sources)
        t = str(task)
    return [r for r in records if r.task.lower() == str(t).lower()]


# --------------------------------------------------------------------------------------------------------------
# RAGTruth (wandb/RAGTruth-processed rows)

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
    return _check_spans(spans, len(answer), rid, "hallucination_labels")


def _ragtruth_row(row: Any, lineno: int, fname: str) -> EvalRecord:
    if not isinstance(row, dict):
        raise InputError("row is not a JSON object", record=f"{fname}:{lineno}")
    rid = row.get("id", f"{fname}:{lineno}")
    rid = str(rid)
    task_raw = _require_str(row, "task_type", rid)
    if task_raw not in _RT_TASK:
        raise InputError(f"unknown task_type {task_raw!r}", record=rid, field="task_type")
    task = _RT_TASK[task_raw]
    answer = _require_str(row, "output", rid)
    raw_context = _require_str(row, "context", rid)
    context = _render_data2txt(raw_context, rid) if task == "data2txt" else raw_context
    question = _require_str(row, "query", rid, allow_none=True) if task == "qa" else None
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


def load_ragtruth(
    split: str = "test",
    task: Optional[str] = None,
    root: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load RAGTruth ``split`` ("train", "test" or "all"), optionally one task ("qa", "summary", "data2txt").

    Records keep file order (QA, Summary, Data2txt). QA's question is ``query``; Summary and Data2txt have none
    (their ``query`` is a generation instruction, not a question). Data2txt's Python-repr context is rendered as
    indented JSON. An answer is hallucinated iff it has at least one gold span (PROVENANCE.md: identical to
    ``hallucination_labels_processed``). A malformed row raises InputError naming the record id and field.
    """
    splits = {"train": ("train",), "test": ("test",), "all": ("train", "test")}
    if split not in splits:
        raise ConfigError(f"unknown split {split!r}; expected train, test or all")
    base = _resolve_dir(root, "ragtruth", lambda p: (p / "jsonl").is_dir() or any(p.glob("*_qa.jsonl*")))
    jdir = base / "jsonl" if (base / "jsonl").is_dir() else base
    tasks = TASKS if task is None else (_normalize_task(task),)
    records: list[EvalRecord] = []
    for sp in splits[split]:
        for t in tasks:
            path = jdir / f"{sp}_{t}.jsonl.gz"
            if not path.exists():
                plain = jdir / f"{sp}_{t}.jsonl"
                if not plain.exists():
                    raise InputError(f"RAGTruth file {path} not found")
                path = plain
            for lineno, row in _iter_jsonl(path):
                records.append(_ragtruth_row(row, lineno, path.name))
    return records


# --------------------------------------------------------------------------------------------------------------
# RAGTruth test, FaithJudge per-source layout


def _fj_context(task: str, source: Any, sid: Any) -> tuple[str, Optional[str]]:
    if task == "qa":
        if not isinstance(source, dict) or "passages" not in source:
            raise InputError("QA source must be an object with 'question' and 'passages'", record=sid,
                             field="source")
        passages = source["passages"]
        if isinstance(passages, list):
            passages = "\n\n".join(str(p) for p in passages)
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
) -> list[EvalRecord]:
    """Load the RAGTruth test split in FaithJudge's per-source layout (2,617 responses, original label dicts).

    The layout has no response ids, split or quality; ids are ``"<source_id>-<response index>"`` and the group is
    the task plus the context hash (one source per group).
    """
    base = _resolve_dir(root, "ragtruth_test_faithjudge", lambda p: any(p.glob("ragtruth_*.jsonl*")))
    tasks = TASKS if task is None else (_normalize_task(task),)
    records: list[EvalRecord] = []
    for t in tasks:
        path = base / f"ragtruth_{t}.jsonl.gz"
        if not path.exists():
            path = base / f"ragtruth_{t}.jsonl"
            if not path.exists():
                raise InputError(f"FaithJudge file ragtruth_{t}.jsonl(.gz) not found in {base}")
        for lineno, row in _iter_jsonl(path):
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
                answer = _require_str(resp, "response", rid)
                spans = _rt_spans(resp.get("labels", []), answer, rid)
                records.append(EvalRecord(
                    id=rid, context=context, question=question, answer=answer, task=t, group=group,
                    hallucinated=bool(spans), spans=spans, model=resp.get("model"), source="ragtruth_faithjudge",
                ))
    return records


# --------------------------------------------------------------------------------------------------------------
# Generic JSONL and published third-party layouts (user-supplied paths)


def _read_rows(path: "str | os.PathLike[str]") -> list[tuple[int, Any]]:
    p = Path(path).expanduser()
    if not p.exists():
        raise InputError(f"file {p} does not exist")
    if p.is_dir():
        files = sorted([*p.glob("*.jsonl"), *p.glob("*.jsonl.gz"), *p.glob("*.json")])
        if not files:
            raise InputError(f"no .jsonl/.jsonl.gz/.json files in {p}")
        rows: list[tuple[int, Any]] = []
        for f in files:
            rows.extend(_read_rows(f))
        return rows
    if p.suffix == ".json":
        with open(p, encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as exc:
                raise InputError(f"{p.name}: not valid JSON ({exc.msg})") from None
        if isinstance(data, dict):
            data = data.get("data", data.get("rows", [data]))
        if not isinstance(data, list):
            raise InputError(f"{p.name}: expected a JSON list of records")
        return list(enumerate(data, 1))
    if p.suffix == ".csv":
        return [(i, row) for i, row in _read_csv(p)]
    if p.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq  # optional: only for the published parquet files
        except ImportError:
            raise InputError(f"{p.name}: reading parquet needs pyarrow (pip install pyarrow), "
                             "or convert the file to JSONL") from None
        return list(enumerate(pq.read_table(p).to_pylist(), 1))
    return list(_iter_jsonl(p))


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
    return _check_spans(spans, len(answer), rid, field_name)


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
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n\n".join(value)  # DESIGN.md: a list context is joined with blank lines
    if isinstance(value, dict):
        return json.dumps(value, indent=2, ensure_ascii=False)
    raise InputError("expected a string or a list of strings", record=rid, field="context")


def load_jsonl(path: "str | os.PathLike[str]", task: Optional[str] = None) -> list[EvalRecord]:
    """Load a generic JSONL file (``.jsonl``, ``.jsonl.gz``, a ``.json`` list, or a folder of them).

    Each row: ``id``, ``context`` (string or list of strings), ``question`` (optional), ``answer``, ``task``
    (optional, default "generic"), ``group`` (optional, default task + context hash), and gold labels as any of:
    ``labels`` — a list of span objects ``{"start", "end", "label"?}``; ``spans`` — ``[[start, end], …]`` or span
    objects; ``hallucinated`` — a boolean (derived from the spans when absent; must agree when both are given
    and spans are non-empty). ``evidence`` (optional) — gold context spans for grounding metrics.
    """
    records = []
    for lineno, row in _read_rows(path):
        if not isinstance(row, dict):
            raise InputError("row is not a JSON object", record=f"line {lineno}")
        rid = str(row["id"]) if row.get("id") is not None else str(lineno)
        answer = _require_str(row, "answer", rid)
        if "context" not in row:
            raise InputError("missing field", record=rid, field="context")
        context = _context_text(row["context"], rid)
        question = row.get("question")
        if question is not None and not isinstance(question, str):
            raise InputError("expected a string or null", record=rid, field="question")
        rtask = row.get("task") or "generic"
        try:
            rtask = _normalize_task(rtask)
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
    return _filter_task(records, task)


def _read_csv(path: Path) -> list[tuple[int, dict]]:
    import csv
    import sys

    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # prompts and passages exceed the 128 KiB default
    opener = (lambda: io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")) \
        if path.suffix == ".gz" else (lambda: open(path, encoding="utf-8", newline=""))
    with opener() as fh:
        return [(i, row) for i, row in enumerate(csv.DictReader(fh), 2)]  # line 1 is the header


def load_ragtruth_pp(
    path: "str | os.PathLike[str]",
    task: Optional[str] = None,
    ragtruth_root: "str | os.PathLike[str] | None" = None,
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
    (``ragtruth_root`` or the usual search), context, question and task come from the RAGTruth record, so the
    audit input is the same as on RAGTruth; otherwise the user prompt is the context and the question is None.
    Span labels that are not RAGTruth types map to ``baseless`` (RAGTruth++ does not separate the two).
    """
    p = Path(path).expanduser()
    msg_path = p if p.is_file() else p / "messages.csv"
    span_path = msg_path.parent / "hallucination_spans.csv"
    for f in (msg_path, span_path):
        if not f.exists():
            raise InputError(f"RAGTruth++ file {f} not found (expected messages.csv and hallucination_spans.csv)")
    messages = _read_csv(msg_path)
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
    for lineno, row in _read_csv(span_path):
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
        rt_by_id = {r.id: r for r in load_ragtruth("test", root=ragtruth_root)}
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
        spans = _check_spans(spans_by_msg.get(sid, []), len(answer), rid, "hallucination_spans")
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
                rtask = _normalize_task(raw_task) or "unknown"
            except ConfigError:
                rtask = str(raw_task)
        records.append(EvalRecord(
            id=rid, context=context, question=question, answer=answer, task=rtask, group=group_key(rtask, context),
            hallucinated=bool(spans), spans=spans, model=meta.get("model") or (base.model if base else None),
            quality=base.quality if base else None, source="ragtruth++",
        ))
    return _filter_task(records, task)


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
            rows.extend(_read_csv(f) if f.suffix == ".csv" else _read_rows(f))
    elif p.suffix == ".csv":
        rows = list(_read_csv(p))
    else:
        rows = _read_rows(p)
    records = []
    seen: set[str] = set()
    for lineno, row in rows:
        if not isinstance(row, dict):
            raise InputError("row is not an object", record=f"row {lineno}")
        rid = str(row.get("id") if row.get("id") not in (None, "") else f"row-{lineno}")
        if rid in seen:
            rid = f"{rid}#{lineno}"
        seen.add(rid)
        context = _require_str(row, "passage", rid)
        answer = _require_str(row, "answer", rid)
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


# --------------------------------------------------------------------------------------------------------------
# Dispatcher

#: name → (loader kind). ``path`` is required for the user-supplied datasets.
DATASETS: tuple[str, ...] = ("ragtruth", "ragtruth-faithjudge", "ragtruth++", "halubench", "jsonl")


def load_dataset(
    name: str,
    split: str = "test",
    task: Optional[str] = None,
    path: "str | os.PathLike[str] | None" = None,
) -> list[EvalRecord]:
    """Load a dataset by name: ``ragtruth`` (split train/test/all; ``path`` = data root, optional),
    ``ragtruth-faithjudge`` (test only), ``ragtruth++``, ``halubench`` and ``jsonl`` (``path`` required)."""
    key = name.strip().lower().replace("_", "-")
    if key == "ragtruth":
        return load_ragtruth(split, task, root=path)
    if key in ("ragtruth-faithjudge", "faithjudge"):
        if split not in ("test", "all"):
            raise ConfigError("the FaithJudge copy of RAGTruth holds the test split only")
        return load_ragtruth_faithjudge(task, root=path)
    loaders: dict[str, Callable[..., list[EvalRecord]]] = {
        "ragtruth++": load_ragtruth_pp, "ragtruth-pp": load_ragtruth_pp, "ragtruthpp": load_ragtruth_pp,
        "ragtruth-plus-plus": load_ragtruth_pp, "halubench": load_halubench, "jsonl": load_jsonl,
    }
    if key not in loaders:
        raise ConfigError(f"unknown dataset {name!r}; expected one of {', '.join(DATASETS)}")
    if path is None:
        raise ConfigError(f"dataset {name!r} is not bundled; pass path= (the CLI's --path) to a local copy")
    return loaders[key](path, task=task)
