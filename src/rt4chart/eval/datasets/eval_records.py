"""Evaluation records: an audit input with its gold hallucination labels and spans, and the label vocabulary."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional

from rt4chart.errors import ConfigError, InputError

__all__ = ["GoldSpan", "EvalRecord", "TASKS", "group_key", "normalize_label", "normalize_task", "filter_task"]

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


def normalize_task(task: Optional[str]) -> Optional[str]:
    if task is None:
        return None
    key = str(task).strip().lower()
    if key not in _TASK_ALIASES:
        raise ConfigError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return _TASK_ALIASES[key]


def filter_task(records: list[EvalRecord], task: Optional[str]) -> list[EvalRecord]:
    if task is None:
        return records
    try:
        t = normalize_task(task)
    except ConfigError:  # datasets with their own task names (e.g. HaluBench sources)
        t = str(task)
    return [r for r in records if r.task.lower() == str(t).lower()]
