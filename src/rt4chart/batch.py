"""Resumable batch auditing: results written as JSONL in input order, one line per input row.

The output file always holds a prefix of the input's results (results that finish early wait in a small buffer
until the ones before them are written), each line flushed and fsynced, so a killed run leaves a valid prefix,
possibly followed by one torn line. ``--resume`` drops a torn last line, skips the rows already written (by id, or
by position for rows without a usable id) and appends the rest.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Union

from .audit.auditor import Auditor
from .errors import InputError
from .io import FieldMap, Row, checked_rows
from .types import AuditResult, Label, Record, RecordError


@dataclass
class BatchSummary:
    """Counts of one batch run (this run only, plus ``skipped`` rows already present when resuming, of which
    ``previous_errors`` were error rows)."""

    records: int = 0
    ok: int = 0
    errors: int = 0
    skipped: int = 0
    previous_errors: int = 0
    hallucinated: int = 0
    answer_labels: Counter = field(default_factory=Counter)
    claim_labels: Counter = field(default_factory=Counter)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0

    def add(self, item: Union[AuditResult, RecordError]) -> None:
        self.records += 1
        if isinstance(item, RecordError):
            self.errors += 1
            return
        self.ok += 1
        self.hallucinated += int(item.hallucinated)
        self.answer_labels[item.label.value] += 1
        for claim in item.claims:
            self.claim_labels[claim.label.value] += 1
        self.calls += item.usage.calls
        self.prompt_tokens += item.usage.prompt_tokens
        self.completion_tokens += item.usage.completion_tokens
        self.cost_usd += item.usage.cost_usd


def row_key(index: int, rid: Any, *, error: bool = False) -> str:
    """Resume key of an output row: its id for a result, its input position for an error row (an error row may
    carry the id of another row, e.g. a duplicate id)."""
    return f"row:{index}" if error or rid is None or isinstance(rid, bool) else f"id:{rid}"


def error_line(index: int, rid: Any, err: RecordError) -> dict:
    return {"id": rid, "index": index, "error": err.model_dump(mode="json")}


def accepted_result(rec: Record, risk: float) -> AuditResult:
    """The result of a record the gate accepted without verification: unverified, not flagged."""
    return AuditResult(
        id=rec.id, label=Label.UNVERIFIED, hallucinated=False, claims=(), context=rec.context,
        question=rec.question, answer=rec.answer, judge="gate", routed="accepted", risk=risk,
        config={"note": "accepted by the RAGScope gate as low risk; not verified"},
    )


def completed_keys(out_path: Path) -> tuple[set[str], int]:
    """Keys of rows already in ``out_path`` and how many of them are error rows.

    Everything from the first torn line on (unterminated, not JSON, or not a JSON object) is truncated."""
    if not out_path.exists():
        return set(), 0
    data = out_path.read_bytes()
    keys: set[str] = set()
    errors = 0
    good_end = 0
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        line = data[pos:nl]
        try:
            obj = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            break
        if obj is not None:
            if not isinstance(obj, dict):
                break
            keys.add(row_key(obj.get("index", -1), obj.get("id"), error="error" in obj))
            errors += "error" in obj
        pos = good_end = nl + 1
    if good_end < len(data):
        with open(out_path, "r+b") as fh:
            fh.truncate(good_end)
    return keys, errors


async def run_batch_async(
    rows: Iterable[Row],
    auditor: Auditor,
    out_path: Optional[Union[str, Path]],
    *,
    resume: bool = False,
    fields: FieldMap = FieldMap(),
    on_result: Optional[Callable[[Union[AuditResult, RecordError]], None]] = None,
    routing: Optional[dict[int, tuple[float, bool]]] = None,
) -> BatchSummary:
    """Audit ``rows`` and write one JSON line per row to ``out_path`` (stdout when None), in input order.

    ``routing`` (the gate cascade) maps a row index to ``(risk, accepted)``: accepted rows are not judged; their
    result is ``unverified`` and not hallucinated, with ``routed="accepted"``; the others get ``routed="verified"``.
    """
    summary = BatchSummary()
    started = time.perf_counter()
    path = Path(out_path) if out_path is not None else None
    done, summary.previous_errors = completed_keys(path) if (path is not None and resume) else (set(), 0)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path, "a" if resume else "w", encoding="utf-8", errors="surrogateescape")
    else:
        import sys

        fh = sys.stdout

    order: list[int] = []
    ids: dict[int, Any] = {}
    pending: dict[int, dict] = {}
    next_pos = 0

    def todo() -> Iterator[tuple[int, Union[Record, InputError]]]:
        for index, rec, rid in checked_rows(rows, fields):
            if row_key(index, rid, error=isinstance(rec, InputError)) in done:
                summary.skipped += 1
                continue
            order.append(index)
            ids[index] = rid
            route = routing.get(index) if routing is not None else None
            if route is not None and route[1] and isinstance(rec, Record):
                result = accepted_result(rec, route[0])
                pending[index] = {**result.to_json(), "index": index}
                summary.add(result)
                if on_result is not None:
                    on_result(result)
                continue
            yield index, rec

    def flush() -> None:
        nonlocal next_pos
        wrote = False
        while next_pos < len(order) and order[next_pos] in pending:
            fh.write(json.dumps(pending.pop(order[next_pos]), ensure_ascii=False) + "\n")
            next_pos += 1
            wrote = True
        if wrote:
            fh.flush()
            if path is not None:
                os.fsync(fh.fileno())

    try:
        async for index, item, rid in auditor.audit_many(todo()):
            if isinstance(item, RecordError):
                line = error_line(index, ids.get(index, rid), item)
            else:
                line = item.to_json()
                line["index"] = index
                if routing is not None and index in routing:
                    line["risk"], line["routed"] = routing[index][0], "verified"
            pending[index] = line
            summary.add(item)
            if on_result is not None:
                on_result(item)
            flush()
        flush()
    finally:
        if path is not None:
            fh.close()
    summary.seconds = time.perf_counter() - started
    return summary


def run_batch(
    rows: Iterable[Union[Row, dict]],
    auditor: Auditor,
    out_path: Optional[Union[str, Path]],
    *,
    progress: bool = False,
    console: Any = None,
    **kwargs: Any,
) -> BatchSummary:
    """Synchronous ``run_batch_async`` with an optional rich progress bar on stderr.

    ``rows`` may be ``Row`` objects (from ``io.read_rows``) or plain dict records.
    """
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    rows = [r if isinstance(r, Row) else Row(i, r) for i, r in enumerate(rows)]
    console = console or Console(stderr=True)
    bar = Progress(TextColumn("[bold]auditing"), BarColumn(), MofNCompleteColumn(), TextColumn("•"),
                   TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(), console=console,
                   disable=not progress)
    user_callback = kwargs.pop("on_result", None)
    with bar:
        task = bar.add_task("audit", total=len(rows))

        def advance(item: Union[AuditResult, RecordError]) -> None:
            bar.advance(task)
            if user_callback is not None:
                user_callback(item)

        summary = asyncio.run(run_batch_async(rows, auditor, out_path, on_result=advance, **kwargs))
        bar.update(task, completed=len(rows))
    return summary
