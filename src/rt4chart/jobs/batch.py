"""Resumable batch auditing: results written as JSONL in input order, exactly one line per input row.

The output file always holds a prefix of the input's results (results that finish early wait in a small buffer
until the ones before them are written), each line flushed and fsynced, so a killed run leaves a valid prefix,
possibly followed by one torn line. ``resume`` drops a torn last line, skips the rows already written (by id, or by
position for rows without a usable id and for error rows) and appends the rest. An error row counts as written:
``retry_errors`` audits its record again once the rest is done and rewrites the file with the new lines in their
places, atomically (a temporary file beside it, fsynced, then ``os.replace``), so a run killed meanwhile leaves
the file as it was before the retry, never a mix.

``baseline`` (``audit --baseline PREV``) maps ids to the results of an earlier run: a record whose context, question,
answer and task are those of its earlier result, audited by a judge of the same fingerprint
(``Auditor.fingerprint``), gets that result's line again, unchanged but for its ``index``; only the other records
are audited.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Container, Coroutine, Iterable, Iterator, Optional, TypeVar, Union

from ..audit.auditor import Auditor
from ..errors import ConfigError, InputError
from ..io import FieldMap, ResultLine, Row, checked_rows, id_key, read_results
from .resume import OutputLine, completed_keys, fsync_dir, retry_path, row_key, scan_output
from ..types import AuditResult, Label, Record, RecordError

if TYPE_CHECKING:
    from ..gate import Cascade

_T = TypeVar("_T")


@dataclass
class BatchSummary:
    """Counts of one batch run (this run only, plus ``skipped`` rows already present when resuming, of which
    ``previous_errors`` were error rows). ``noted``: results audited with something in their ``errors`` (e.g. a
    decomposition that fell back to the rule decomposer). ``failed_calls``: results with a failed LLM call (a note of
    kind ``backend``: its claims are unverified), which a run must not pass over. ``reused``: results taken from the
    baseline (counted in ``ok`` and the labels, not in the usage: they cost nothing this run)."""

    records: int = 0
    ok: int = 0
    reused: int = 0
    errors: int = 0
    noted: int = 0
    failed_calls: int = 0
    skipped: int = 0
    previous_errors: int = 0
    hallucinated: int = 0
    needs_review: int = 0  #: results no judge confirmed (``hallucinated`` None, label unverified)
    answer_labels: Counter = field(default_factory=Counter)
    claim_labels: Counter = field(default_factory=Counter)
    #: the claims' citation statuses, over the results that carry a citation check (``citation_check``)
    citations: Counter = field(default_factory=Counter)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    #: the gate cascade of a run with ``gate_accept``: what it accepted without a judge
    cascade: "Optional[Cascade]" = None

    def add(self, item: Union[AuditResult, RecordError], *, reused: bool = False) -> None:
        self.records += 1
        if isinstance(item, RecordError):
            self.errors += 1
            return
        self.ok += 1
        self.noted += bool(item.errors)
        self.failed_calls += any(note.kind == "backend" for note in item.errors)
        self.hallucinated += item.hallucinated is True
        self.needs_review += item.hallucinated is None
        self.answer_labels[item.label.value] += 1
        for claim in item.claims:
            self.claim_labels[claim.label.value] += 1
        for checked in item.citation_check.claims if item.citation_check is not None else ():
            self.citations[checked.status] += 1
        if reused:
            self.reused += 1
            return
        self.calls += item.usage.calls
        self.prompt_tokens += item.usage.prompt_tokens
        self.completion_tokens += item.usage.completion_tokens
        self.cost_usd += item.usage.cost_usd

    @property
    def failed(self) -> bool:
        """True when some record of this run or an earlier one failed, or some LLM call of this run failed."""
        return bool(self.errors or self.previous_errors or self.failed_calls)

    def add_line(self, line: dict) -> None:
        """``add`` for an output line (``result_line``), as the Ray engine's driver receives them."""
        if "error" in line:
            self.add(RecordError.model_validate(line["error"]))
        else:
            self.add(AuditResult.model_validate({k: v for k, v in line.items() if k != "index"}))


def is_done(index: int, rec: Union[Record, InputError], rid: Any, done: Container[str]) -> bool:
    """True when the output being resumed already has the line of row ``index`` (``done``: ``completed_keys``).
    An error row is keyed by position, so a valid record with such a row is done too (until retried)."""
    return row_key(index, rid, error=isinstance(rec, InputError)) in done or f"row:{index}" in done


def error_line(index: int, rid: Any, err: RecordError) -> dict:
    return {"id": rid, "index": index, "error": err.model_dump(mode="json")}


def accepted_result(rec: Record, risk: float) -> AuditResult:
    """The result of a record the gate accepted without verification: unverified, so ``hallucinated`` is None."""
    return AuditResult(
        id=rec.id, label=Label.UNVERIFIED, hallucinated=None, claims=(), context=rec.context,
        question=rec.question, answer=rec.answer, judge="gate", routed="accepted", risk=risk,
        config={"note": "accepted by the RAGScope gate as low risk; not verified"},
    )


#: error kinds of a result's notes that another run may not repeat (a failed LLM call): such results are audited again
_TRANSIENT = frozenset({"backend", "judge"})


def read_baseline(path: Union[str, Path]) -> dict[str, ResultLine]:
    """The results of an earlier run by id (``io.read_results``, which raises ``InputError`` naming the line of a
    damaged file); error lines are left out: their records are audited again."""
    return {id_key(line.id): line for line in read_results(path) if line.result is not None}


def reusable(line: Optional[ResultLine], rec: Record, fingerprint: str) -> bool:
    """True when ``line`` (an earlier result of ``rec.id``) still holds for ``rec``: the same context, question,
    answer and task, the same judge fingerprint, and no note of a failed call."""
    if line is None or line.result is None:
        return False
    old = line.result
    return (old.config.get("judge_fingerprint") == fingerprint and old.id == rec.id and old.context == rec.context
            and old.question == rec.question and old.answer == rec.answer and old.config.get("task") == rec.task
            and not any(note.kind in _TRANSIENT for note in old.errors))


def gate_cascade(checked: Iterable[tuple[int, Union[Record, InputError], Any]], accept: float) -> "Cascade":
    """The gate cascade over the rows of ``checked`` (``io.checked_rows``) that are records: ``ConfigError`` when
    the gate cannot be imported or cannot score them."""
    try:
        from ..gate import Cascade
    except ImportError as exc:
        raise ConfigError(f"the gate cascade needs the RAGScope gate, which failed to import: {exc}") from exc
    valid = [(index, rec) for index, rec, _ in checked if isinstance(rec, Record)]
    try:
        return Cascade.of(valid, accept)
    except (InputError, ValueError, OSError) as exc:
        raise ConfigError(f"the RAGScope gate could not score the input: {exc}") from exc


def result_line(index: int, item: Union[AuditResult, RecordError], rid: Any,
                cascade: "Optional[Cascade]" = None) -> dict:
    """The output line of input row ``index``: its result (with ``index``, and the gate's ``risk`` and ``routed``
    when ``cascade`` routed it) or its error line."""
    if isinstance(item, RecordError):
        return error_line(index, rid, item)
    if cascade is not None and index in cascade.risks:  # a verified row carries the gate's risk as an accepted one
        item = item.model_copy(update={"risk": cascade.risks[index], "routed": "verified"})
    return {**item.to_json(), "index": index}


async def _retry_errors(
    rows: Iterable[Row], auditor: Auditor, path: Path, fields: FieldMap, summary: BatchSummary,
    on_result: Optional[Callable[[Union[AuditResult, RecordError]], None]],
    cascade: "Optional[Cascade]",
) -> None:
    """Audit again the records of the error rows in ``path`` and rewrite it atomically with their new lines.

    The rewritten file holds one line per input row, in input order: an error row whose record also has a result
    line (left by an older version) and any repeated line are dropped."""
    lines, _ = scan_output(path.read_bytes())
    records = {index: rec for index, rec, _ in checked_rows(rows, fields) if isinstance(rec, Record)}
    results = {line.key for line in lines if not line.error}
    plan: list[OutputLine] = []
    seen: set[str] = set()
    retry: dict[int, Record] = {}
    for line in sorted(lines, key=lambda x: x.index if isinstance(x.index, int) else math.inf):
        rec = records.get(line.index) if line.error and isinstance(line.index, int) else None
        if line.key in seen or (rec is not None and row_key(line.index, rec.id) in results):
            summary.previous_errors -= line.error
            continue
        seen.add(line.key)
        plan.append(line)
        if rec is not None:
            retry[line.index] = rec
    if not retry and len(plan) == len(lines):
        return
    tmp = retry_path(path)
    fresh: dict[int, bytes] = {}
    pos = 0
    try:
        with open(path, "rb") as src, open(tmp, "wb") as dst:
            def flush() -> None:
                nonlocal pos
                while pos < len(plan):
                    line = plan[pos]
                    if line.error and line.index in retry:
                        if line.index not in fresh:
                            return
                        dst.write(fresh.pop(line.index))
                    else:
                        src.seek(line.offset)
                        dst.write(src.read(line.length))
                    pos += 1

            flush()
            async for index, item, _ in auditor.audit_many(iter(retry.items())):
                out = result_line(index, item, retry[index].id, cascade)
                fresh[index] = (json.dumps(out, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
                summary.skipped -= 1
                summary.previous_errors -= 1
                summary.add(item)
                if on_result is not None:
                    on_result(item)
                flush()
            flush()
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


async def run_batch_async(
    rows: Iterable[Row],
    auditor: Auditor,
    out_path: Optional[Union[str, Path]],
    *,
    resume: bool = False,
    retry_errors: bool = False,
    fields: FieldMap = FieldMap(),
    on_result: Optional[Callable[[Union[AuditResult, RecordError]], None]] = None,
    gate_accept: Optional[float] = None,
    baseline: Optional[dict[str, ResultLine]] = None,
) -> BatchSummary:
    """Audit ``rows`` and write one JSON line per row to ``out_path`` (stdout when None), in input order.

    ``resume`` keeps the lines already in ``out_path`` (error rows too) and audits the other rows; ``retry_errors``
    (implies ``resume``) then audits the error rows' records again and rewrites ``out_path`` atomically.
    ``gate_accept`` runs the gate cascade (``rt4chart.gate.Cascade``, in ``summary.cascade``) over the rows that
    are records (a row is checked once for the gate and the audit): the lowest-risk ``gate_accept`` fraction is not
    judged; their result is ``unverified`` (``hallucinated`` None), with ``routed="accepted"``; the others get
    ``routed="verified"`` and the gate's ``risk``. ``ConfigError`` when the gate cannot score them (nothing is
    written then).
    ``baseline`` (``read_baseline``): earlier results by id; a row they still hold for (``reusable``) is written from
    them, not audited. It needs an auditor with a fingerprint (``build_auditor`` gives one).
    """
    if baseline is not None and not auditor.fingerprint:
        raise ConfigError("a baseline needs an auditor with a judge fingerprint (rt4chart.judges.registry."
                          "build_auditor sets one; Auditor(fingerprint=...) otherwise)")
    summary = BatchSummary()
    started = time.perf_counter()
    if retry_errors and not isinstance(rows, (list, tuple)):
        rows = list(rows)  # read twice: audited, then the error rows' records retried
    checked: Iterable[tuple[int, Union[Record, InputError], Any]] = checked_rows(rows, fields)
    if gate_accept is not None:
        checked = list(checked)
        summary.cascade = gate_cascade(checked, gate_accept)
    cascade = summary.cascade
    path = Path(out_path) if out_path is not None else None
    resume = resume or retry_errors
    if path is not None and resume:
        retry_path(path).unlink(missing_ok=True)  # left by a retry that was killed: the output is the old one
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
        for index, rec, rid in checked:
            if is_done(index, rec, rid, done):
                summary.skipped += 1
                continue
            order.append(index)
            ids[index] = rid
            if baseline is not None and isinstance(rec, Record) and reusable(baseline.get(id_key(rec.id)), rec,
                                                                               auditor.fingerprint):
                line = baseline[id_key(rec.id)]
                pending[index] = {**line.data, "index": index}
                summary.add(line.result, reused=True)
                if on_result is not None:
                    on_result(line.result)
                continue
            if cascade is not None and index in cascade.accepted and isinstance(rec, Record):
                result = accepted_result(rec, cascade.risks[index])
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
            pending[index] = result_line(index, item, ids.get(index, rid), cascade)
            summary.add(item)
            if on_result is not None:
                on_result(item)
            flush()
        flush()
    finally:
        if path is not None:
            fh.close()
    if path is not None and retry_errors:
        await _retry_errors(rows, auditor, path, fields, summary, on_result, cascade)
    summary.seconds = time.perf_counter() - started
    return summary


async def audit_lines(rows: Iterable[Row], auditor: Auditor, *, fields: FieldMap = FieldMap(),
                      done: Container[str] = frozenset(), repeated: Container[int] = frozenset()) -> list[dict]:
    """The output lines of ``rows`` (the lines ``run_batch_async`` writes), in input order, leaving out the rows
    ``done`` already holds; for engines that audit rows in parts (the Ray engine, ``audit_frame``). ``repeated``:
    see ``checked_rows``."""
    todo: list[tuple[int, Union[Record, InputError]]] = []
    ids: dict[int, Any] = {}
    for index, rec, rid in checked_rows(rows, fields, repeated=repeated):
        if not is_done(index, rec, rid, done):
            todo.append((index, rec))
            ids[index] = rid
    lines: dict[int, dict] = {}
    async for index, item, rid in auditor.audit_many(iter(todo)):
        lines[index] = result_line(index, item, ids.get(index, rid))
    return [lines[index] for index, _ in todo]


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` to its end from synchronous code, also from code already inside an event loop in this thread (a
    notebook, an async test): the coroutine then runs on a loop of its own in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


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
