"""Input files and their formats: one table (``FORMATS``) that the reader, every command's ``--format``, the input
check, the Ray engine's folder listing and the docs read.

A format is a name, the file extensions that select it, whether its records are columns (CSV, Parquet: the messages
say "column" rather than "field") and its reader: the file's bytes to numbered ``Row`` values, a row that cannot be
parsed carrying an ``InputError`` instead of data. Without ``--format``, a file's extension decides, then its first
bytes (``sniff``), then the table's last format (CSV). Bytes are decoded with ``surrogateescape`` so that invalid
UTF-8 survives until validation, where it is reported per field.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from ..errors import InputError

__all__ = ["FORMATS", "InputFormat", "Row", "decode_bytes", "detect_format", "extensions",
           "format_names",
           "json_lines", "json_objects", "open_bytes", "parquet_records", "parse_rows", "read_rows", "read_text",
           "writes_over_input"]


@dataclass(frozen=True)
class Row:
    """One input row: its position, and either a raw mapping or the error that stopped parsing it."""

    index: int
    data: Optional[dict]
    error: Optional[InputError] = None


def open_bytes(path: Union[str, Path]) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.exists():
        raise InputError(f"input file not found: {p}")
    if p.is_dir():
        raise InputError(f"input is a directory, not a file: {p}")
    return p.read_bytes()


def decode_bytes(data: bytes) -> str:
    text = data.decode("utf-8", errors="surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: Union[str, Path]) -> str:
    return decode_bytes(open_bytes(path))


def json_lines(text: str) -> Iterator[tuple[int, Any, Optional[str]]]:
    """The non-blank lines of a JSONL text: ``(line number, object, None)``, or ``(line number, None, why)`` for a
    line that is not JSON. The one JSONL line reader of input records and of results files."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield lineno, None, exc.msg


def json_objects(path: Union[str, Path]) -> Iterator[dict]:
    """The JSON objects of a JSONL file, in order; lines that are not JSON objects (a killed run's cut last line)
    are skipped: for readers that count what a results file holds."""
    for _, obj, _ in json_lines(read_text(path)):
        if isinstance(obj, dict):
            yield obj


def parquet_records(data: bytes, name: str) -> list[Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        from ..errors import MissingDependencyError

        raise MissingDependencyError("pyarrow", "pandas", hint="pip install pyarrow (Parquet input)") from exc
    try:
        return pq.read_table(pa.BufferReader(data)).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable Parquet file ({exc})") from None


def _jsonl(data: bytes, name: str, where: str) -> Iterator[Row]:
    for index, (lineno, obj, problem) in enumerate(json_lines(decode_bytes(data))):
        if problem is not None:
            yield Row(index, None, InputError(f"{where}line {lineno} is not valid JSON ({problem})",
                                              record=f"#{index + 1}"))
        else:
            yield Row(index, obj)


def _json(data: bytes, name: str, where: str) -> Iterator[Row]:
    try:
        items = json.loads(decode_bytes(data))
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(items, list):
        raise InputError(f"{name}: a JSON input must be an array of records")
    for index, item in enumerate(items):
        yield Row(index, item)


def _csv(data: bytes, name: str, where: str) -> Iterator[Row]:
    reader = csv.DictReader(io.StringIO(decode_bytes(data), newline=""))
    for index, item in enumerate(reader):
        yield Row(index, {k: (v if v != "" else None) for k, v in item.items() if k is not None})


def _parquet(data: bytes, name: str, where: str) -> Iterator[Row]:
    for index, item in enumerate(parquet_records(data, name)):
        yield Row(index, item)


def _head(data: bytes) -> bytes:
    """The first byte that is not a byte-order mark nor white space (empty for an empty file)."""
    return data.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]


@dataclass(frozen=True)
class InputFormat:
    """One input format. ``read(data, name, where)``: the file's rows (``name`` its path for the errors that stop the
    whole file, ``where`` a prefix naming the file in a row's error, empty for a single input); ``sniff(data)``:
    True when the file's first bytes say it is of this format, for a file whose extension does not decide;
    ``otherwise``: the format a file with this format's extension is read as when ``sniff`` rejects its first bytes
    (a ``.json`` file of JSON lines is JSONL)."""

    name: str
    extensions: tuple[str, ...]
    columnar: bool
    read: Callable[[bytes, str, str], Iterator[Row]]
    sniff: Optional[Callable[[bytes], bool]] = None
    otherwise: Optional[str] = None


#: every input format, by name; without ``--format`` a file whose extension and first bytes match none is the last
FORMATS: dict[str, InputFormat] = {fmt.name: fmt for fmt in (
    InputFormat("parquet", (".parquet",), True, _parquet, lambda data: data.startswith(b"PAR1")),
    InputFormat("json", (".json",), False, _json, lambda data: _head(data) == b"[", "jsonl"),
    InputFormat("jsonl", (".jsonl", ".ndjson"), False, _jsonl, lambda data: _head(data) in (b"{", b"")),
    InputFormat("csv", (".csv",), True, _csv),
)}


def format_names() -> tuple[str, ...]:
    """The names ``--format`` accepts, in the table's order."""
    return tuple(FORMATS)


def extensions() -> tuple[str, ...]:
    """Every extension of the table, in its order: the files a folder input is read for."""
    return tuple(ext for fmt in FORMATS.values() for ext in fmt.extensions)


def detect_format(path: Union[str, Path], data: bytes) -> str:
    """The format of a file without ``--format``: the one its extension names (or its ``otherwise`` when its first
    bytes are not of it), else the first whose ``sniff`` accepts the first bytes, else the table's last."""
    name = str(path).lower()
    by_name = next((fmt for fmt in FORMATS.values() if name.endswith(fmt.extensions)), None)
    if by_name is not None:
        rejected = by_name.otherwise is not None and by_name.sniff is not None and not by_name.sniff(data)
        return by_name.otherwise if rejected else by_name.name
    sniffed = next((fmt for fmt in FORMATS.values() if fmt.sniff is not None and fmt.sniff(data)), None)
    return (sniffed or list(FORMATS.values())[-1]).name


def parse_rows(data: bytes, name: str, fmt: Optional[str] = None, *, source: Optional[str] = None) -> Iterator[Row]:
    """The rows of one input file's bytes (``name``: its path, for the format and for errors), numbered from 0.

    ``source``, when given, names the file in the errors of rows that cannot be parsed (for inputs made of several
    files). Raises ``InputError`` for a file that cannot be read at all or an unknown ``fmt``."""
    parquet = FORMATS.get("parquet")
    if parquet is not None and parquet.sniff(data) and fmt in (None, "parquet"):
        fmt = "parquet"
    fmt = fmt or detect_format(name, data)
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} (use {', '.join(FORMATS)})")
    yield from FORMATS[fmt].read(data, name, f"{source} " if source else "")


def read_rows(path: Union[str, Path], fmt: Optional[str] = None) -> Iterator[Row]:
    """Yield every input row, in order; rows that cannot be parsed carry an ``InputError`` instead of data.

    A file that cannot be read at all (missing, not JSON where JSON is required) raises ``InputError``.
    """
    return parse_rows(open_bytes(path), str(path), fmt)


def writes_over_input(input_path: str, output: Optional[str]) -> bool:
    """True when ``output`` names the very file ``input_path`` reads (``-``, stdin or stdout, is never a file)."""
    if not output or output == "-" or input_path == "-":
        return False
    return Path(output).resolve() == Path(input_path).resolve()
