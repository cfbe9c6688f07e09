"""What a results file already holds, for resuming it.

A results file is JSONL, one line per input row, each with the row's ``index``; a killed run may leave one torn last
line. ``completed_keys`` reads the complete lines' resume keys (``row_key``) and cuts the torn rest;
``scan_output`` finds where each complete line is, for a rewrite that copies them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def row_key(index: int, rid: Any, *, error: bool = False) -> str:
    """Resume key of an output row: its id for a result, its input position for an error row (an error row may
    carry the id of another row, e.g. a duplicate id)."""
    return f"row:{index}" if error or rid is None or isinstance(rid, bool) else f"id:{rid}"


@dataclass(frozen=True)
class OutputLine:
    """One complete line of an output file: where it is, the input position it names and its resume key."""

    offset: int
    length: int  # with its newline
    index: Any
    key: str
    error: bool


def scan_output(data: bytes) -> tuple[list[OutputLine], int]:
    """The complete lines of an output file up to the first torn one (unterminated, not JSON, or not a JSON
    object), and where that good prefix ends."""
    lines: list[OutputLine] = []
    good_end = pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        raw = data[pos:nl]
        try:
            obj = json.loads(raw) if raw.strip() else None
        except json.JSONDecodeError:
            break
        if obj is not None:
            if not isinstance(obj, dict):
                break
            error = "error" in obj
            lines.append(OutputLine(pos, nl + 1 - pos, obj.get("index"),
                               row_key(obj.get("index", -1), obj.get("id"), error=error), error))
        pos = good_end = nl + 1
    return lines, good_end


def completed_keys(out_path: Path) -> tuple[set[str], int]:
    """Keys of rows already in ``out_path`` and how many of them are error rows.

    Everything from the first torn line on (unterminated, not JSON, or not a JSON object) is truncated."""
    if not out_path.exists():
        return set(), 0
    data = out_path.read_bytes()
    lines, good_end = scan_output(data)
    if good_end < len(data):
        with open(out_path, "r+b") as fh:
            fh.truncate(good_end)
    return {line.key for line in lines}, sum(line.error for line in lines)


def is_parquet_output(output: str) -> bool:
    """True when ``output`` names a Parquet folder (an existing folder, or a path ending in / or .parquet), which
    the Ray engine writes; else it is a JSONL file."""
    return output.endswith(("/", ".parquet")) or Path(output).is_dir()


def retry_path(out_path: Path) -> Path:
    """The temporary file a retry writes beside ``out_path`` before it replaces it."""
    return out_path.with_name(out_path.name + ".retry-tmp")


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
