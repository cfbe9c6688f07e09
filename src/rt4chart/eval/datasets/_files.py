"""Finding the data folder and reading JSONL / JSON / CSV / Parquet rows, with errors that name the line."""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from rt4chart.errors import InputError

from .eval_records import GoldSpan

#: The variable the command line reads for the data folder (the library takes it as ``data_dir``).
ENV_DATA_DIR = "RT4CHART_DATA_DIR"


def _candidate_data_dirs() -> list[Path]:
    """Folders that may hold ``ragtruth/``: ``shared/data`` above the cwd and above this file."""
    seen: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for parent in (start, *start.parents):
            cand = parent / "shared" / "data"
            if cand not in seen:
                seen.append(cand)
    return seen


def data_root(dataset: str = "ragtruth", *, data_dir: "str | os.PathLike[str] | None" = None) -> Path:
    """The data folder that contains ``<dataset>/`` (by default ``ragtruth/``).

    Order: ``data_dir`` when given (the command line passes ``$RT4CHART_DATA_DIR``); then ``shared/data`` in the
    current directory or any parent, then in this file's folder or any parent (CI clones next to ``shared/``, so
    ``<clone>/../shared/data`` is found as the parent's ``shared/data``). Raises InputError saying where it looked.
    """
    looked: list[str] = []
    if data_dir:
        p = Path(data_dir).expanduser()
        if (p / dataset).is_dir():
            return p
        looked.append(f"data_dir {p}")
    for cand in _candidate_data_dirs():
        if (cand / dataset).is_dir():
            return cand
        looked.append(str(cand))
    shown = "; ".join(looked[:12]) + (f"; … ({len(looked) - 12} more)" if len(looked) > 12 else "")
    raise InputError(
        f"data folder {dataset!r} not found; pass data_dir= the folder containing {dataset}/ (the command line "
        f"reads it from ${ENV_DATA_DIR}) or root=. Looked in: {shown}"
    )


def resolve_dir(root: "str | os.PathLike[str] | None", dataset: str, marker: Callable[[Path], bool], *,
                data_dir: "str | os.PathLike[str] | None" = None) -> Path:
    """Accept the data folder, the dataset folder itself, or (for RAGTruth) its ``jsonl/`` folder; without ``root``,
    the ``<dataset>/`` folder that :func:`data_root` finds (``data_dir`` first)."""
    if root is None:
        base = data_root(dataset, data_dir=data_dir) / dataset
    else:
        r = Path(root).expanduser()
        if not r.exists():
            raise InputError(f"data path {r} does not exist")
        base = r / dataset if (r / dataset).is_dir() else r
    if not marker(base):
        raise InputError(f"{base} does not look like the {dataset} data folder")
    return base


def jsonl_file(folder: Path, stem: str, what: str) -> Path:
    """``<folder>/<stem>.jsonl.gz``, else ``<stem>.jsonl``; InputError naming ``what`` when neither is there."""
    for name in (f"{stem}.jsonl.gz", f"{stem}.jsonl"):
        if (folder / name).exists():
            return folder / name
    raise InputError(f"{what} file {stem}.jsonl(.gz) not found in {folder}")


def open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed object); a line that is not JSON raises InputError naming the line."""
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path.name}:{lineno}: not valid JSON ({exc.msg})", record=f"line {lineno}") \
                    from None


def read_rows(path: "str | os.PathLike[str]") -> list[tuple[int, Any]]:
    p = Path(path).expanduser()
    if not p.exists():
        raise InputError(f"file {p} does not exist")
    if p.is_dir():
        files = sorted([*p.glob("*.jsonl"), *p.glob("*.jsonl.gz"), *p.glob("*.json")])
        if not files:
            raise InputError(f"no .jsonl/.jsonl.gz/.json files in {p}")
        rows: list[tuple[int, Any]] = []
        for f in files:
            rows.extend(read_rows(f))
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
        return [(i, row) for i, row in read_csv(p)]
    if p.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq  # optional: only for the published parquet files
        except ImportError:
            raise InputError(f"{p.name}: reading parquet needs pyarrow (pip install pyarrow), "
                             "or convert the file to JSONL") from None
        return list(enumerate(pq.read_table(p).to_pylist(), 1))
    return list(iter_jsonl(p))


def read_csv(path: Path) -> list[tuple[int, dict]]:
    import csv
    import sys

    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # prompts and passages exceed the 128 KiB default
    opener = (lambda: io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")) \
        if path.suffix == ".gz" else (lambda: open(path, encoding="utf-8", newline=""))
    with opener() as fh:
        return [(i, row) for i, row in enumerate(csv.DictReader(fh), 2)]  # line 1 is the header


def require_str(row: dict, key: str, rid: Any, *, allow_none: bool = False) -> Optional[str]:
    if key not in row:
        raise InputError("missing field", record=rid, field=key)
    value = row[key]
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", record=rid, field=key)
    return value


def check_spans(spans: Iterable[GoldSpan], length: int, rid: Any, field_name: str) -> tuple[GoldSpan, ...]:
    out = []
    for s in spans:
        if not (0 <= s.start < s.end <= length):
            raise InputError(f"span [{s.start}, {s.end}) is outside [0, {length}]", record=rid, field=field_name)
        out.append(s)
    return tuple(sorted(out, key=lambda s: (s.start, s.end)))
