"""``audit_files``: ``rt4chart audit --engine ray``, from input files to an output file or folder.

The driver streams the audited rows in input order and writes them itself: a JSONL file (the local engine's lines,
each batch flushed and fsynced, so a killed run leaves a prefix that ``--resume`` continues, as in the local engine)
or a folder of Parquet files (``OUTPUT_SCHEMA``; each file is written under a temporary name and renamed when
complete, so a killed run leaves only complete files). ``resume`` keeps what the output holds (error rows too) and
audits the other rows.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import ray

from ..jobs.batch import BatchSummary
from ..errors import InputError
from ..io.input_check import check_input, tabular
from ..io import FieldMap
from ..jobs.resume import completed_keys, is_parquet_output, row_key
from ._audit import OUTPUT_SCHEMA, audit_dataset
from ._read import read_records, row_of

_TMP = ".tmp"
#: the rows ``audit_files(check=True)`` reads to check the input as a whole
CHECKED_ROWS = 1000


def parquet_keys(folder: Path) -> tuple[set[str], int]:
    """Resume keys of the rows in a Parquet output folder and how many are error rows; files a killed run left
    unfinished (temporary names) are deleted."""
    keys: set[str] = set()
    errors = 0
    for tmp in folder.glob(f"*.parquet{_TMP}"):
        tmp.unlink()
    for path in sorted(folder.glob("*.parquet")):
        table = pq.read_table(path, columns=["index", "id", "error"])
        for index, rid, error in zip(*(table.column(c).to_pylist() for c in ("index", "id", "error"))):
            keys.add(row_key(index, rid, error=error is not None))
            errors += error is not None
    return keys, errors


class _ParquetFolder:
    """Writes batches into ``part-<run>-<n>.parquet`` files of at most ``rows_per_file`` rows each."""

    def __init__(self, folder: Path, rows_per_file: int) -> None:
        self.folder, self.rows_per_file = folder, rows_per_file
        self.run = uuid.uuid4().hex[:8]
        self.files = 0
        self.rows = 0
        self.writer: Optional[pq.ParquetWriter] = None
        self.path: Optional[Path] = None

    def write(self, table: pa.Table) -> None:
        table = table.select(OUTPUT_SCHEMA.names).cast(OUTPUT_SCHEMA)
        while table.num_rows:
            if self.writer is None:
                self.path = self.folder / f"part-{self.run}-{self.files:05d}.parquet"
                self.writer = pq.ParquetWriter(str(self.path) + _TMP, OUTPUT_SCHEMA)
                self.files += 1
                self.rows = 0
            take = min(table.num_rows, self.rows_per_file - self.rows)
            self.writer.write_table(table.slice(0, take))
            table, self.rows = table.slice(take), self.rows + take
            if self.rows >= self.rows_per_file:
                self.close()

    def close(self) -> None:
        if self.writer is not None and self.path is not None:
            self.writer.close()
            with open(str(self.path) + _TMP, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(str(self.path) + _TMP, self.path)
            self.writer = None


def audit_files(
    input_path: str,
    output: str,
    judge: str = "auto",
    *,
    fmt: Optional[str] = None,
    fields: FieldMap = FieldMap(),
    resume: bool = False,
    workers: Optional[int] = None,
    batch_size: int = 16,
    rows_per_file: int = 20_000,
    on_rows: Optional[Callable[[int], None]] = None,
    check: bool = False,
    allow_empty: bool = False,
    **audit_options: Any,
) -> BatchSummary:
    """Audit the input file or folder ``input_path`` (``read_records``) with ``audit_dataset`` on the connected
    Ray cluster and write one row per input row to ``output``: a JSONL file, or a Parquet folder
    (``is_parquet_output``; at most ``rows_per_file`` rows per file). Returns this run's counts (``skipped`` and
    ``previous_errors``: rows already in ``output`` when resuming); ``on_rows(n)`` is called after each batch of
    ``n`` rows is written. ``check``: first check the input as a whole, as ``rt4chart audit`` does with the local
    engine (``check_input`` on its first ``CHECKED_ROWS`` rows: an empty input unless ``allow_empty``, a required
    field that no record has). Raises ``InputError`` for an unreadable input, for one that fails the check and for
    a Parquet folder that already holds Parquet files when not resuming (nothing there is deleted)."""
    started = time.perf_counter()
    summary = BatchSummary()
    records = read_records(input_path, fmt, rows_per_block=batch_size)
    total = records.count()
    if check:
        first = [row_of(r) for r in records.take(CHECKED_ROWS)] if total else []
        check_input(first, fields, input_path, allow_empty=allow_empty, columns=tabular(input_path, fmt),
                    first=total > len(first))
    parquet = is_parquet_output(output)
    path = Path(output.rstrip("/")) if parquet else Path(output)
    if parquet:
        path.mkdir(parents=True, exist_ok=True)
        if not resume and any(path.glob("*.parquet")):
            raise InputError(f"the output folder {path} already holds Parquet files: resume with --resume, or "
                             "choose an empty folder")
        done, summary.previous_errors = parquet_keys(path) if resume else (set(), 0)
    else:
        done, summary.previous_errors = completed_keys(path) if resume else (set(), 0)
    out = audit_dataset(records, judge, id=fields.id, context=fields.context, question=fields.question,
                        answer=fields.answer, task=fields.task, workers=workers, batch_size=batch_size, done=done,
                        **audit_options)
    if parquet:
        sink = _ParquetFolder(path, rows_per_file)
        try:
            for batch in out.iter_batches(batch_format="pyarrow", batch_size=None):
                sink.write(batch)
                for line in batch.column("result").to_pylist():
                    summary.add_line(json.loads(line))
                if on_rows is not None:
                    on_rows(batch.num_rows)
        finally:
            sink.close()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a" if resume else "w", encoding="utf-8") as fh:
            for batch in out.iter_batches(batch_format="pyarrow", batch_size=None):
                lines = batch.column("result").to_pylist()
                fh.write("".join(line + "\n" for line in lines))
                fh.flush()
                os.fsync(fh.fileno())
                for line in lines:
                    summary.add_line(json.loads(line))
                if on_rows is not None:
                    on_rows(len(lines))
    summary.skipped = total - summary.records
    summary.seconds = time.perf_counter() - started
    return summary


def connect(address: Optional[str] = None, *, quiet: bool = False) -> None:
    """Join the Ray cluster at ``address`` (``auto``: the one ``ray start`` started on this machine or
    ``RAY_ADDRESS`` names; ``HOST:PORT``; ``ray://HOST:PORT``), or start a new one on this machine, for this process,
    when None; nothing when this process is already connected. ``quiet`` turns off Ray Data's progress bars and
    its INFO log lines."""
    import logging

    if quiet:
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        ray.data.DataContext.get_current().enable_progress_bars = False
    if ray.is_initialized():
        return
    if address is None:
        ray.init(address="local", include_dashboard=False, logging_level=logging.WARNING, log_to_driver=not quiet)
    else:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=not quiet)
