"""Input files as a Ray Dataset of numbered rows, parsed by the local engine's reader (``rt4chart.io.parse_rows``).

Each file is read whole by one Ray task (``read_binary_files``) and parsed there, so a JSONL line that is not JSON
becomes an error row exactly as in the local engine, and CSV values stay strings. A row travels as its parsed value
pickled (``RAW``: Parquet values keep their types, a list context stays a list beside string contexts in other
rows) or as the reason it could not be parsed (``PARSE_ERROR``). Rows are then numbered in input order (files in
path order, rows in file order): ``INDEX`` is the row's position in the whole input, as the local engine's
``index``.
"""

from __future__ import annotations

import pickle
from itertools import accumulate
from pathlib import Path
from typing import Any, Optional

import ray

from ..errors import InputError
from ..io import Row, extensions

INDEX = "_rt4chart_index"
RAW = "_rt4chart_raw"
PARSE_ERROR = "_rt4chart_parse_error"
#: set on the one row that stands for a file that cannot be read at all (``numbered`` raises its ``InputError``)
FILE_ERROR = "_rt4chart_file_error"


def _filesystem(path: str) -> tuple[Any, str]:
    import pyarrow.fs as pafs

    if "://" in path:
        return pafs.FileSystem.from_uri(path)
    return pafs.LocalFileSystem(), str(Path(path).resolve())


def list_inputs(path: str, fmt: Optional[str] = None) -> list[str]:
    """The input files of ``path`` in the order their rows are numbered: the file itself, or the files under a
    folder (recursively; with ``fmt`` every file, else those with an input extension; hidden and ``_`` files
    skipped), sorted by path. ``path`` is a local path or a URI that pyarrow reads (``s3://``, ``gs://``, ...).
    Raises ``InputError`` when there is no such file or no input file under the folder."""
    import pyarrow.fs as pafs

    fs, where = _filesystem(path)
    info = fs.get_file_info(where)
    scheme = path.split("://", 1)[0] + "://" if "://" in path else ""
    if info.type == pafs.FileType.File:
        return [scheme + where]
    if info.type != pafs.FileType.Directory:
        raise InputError(f"input not found: {path}")
    files = []
    for item in fs.get_file_info(pafs.FileSelector(where, recursive=True)):
        rel = item.path[len(where):].lstrip("/")
        if item.type != pafs.FileType.File or any(part.startswith((".", "_")) for part in rel.split("/")):
            continue
        if fmt is not None or item.path.lower().endswith(extensions()):
            files.append(scheme + item.path)
    if not files:
        raise InputError(f"no input files ({', '.join(extensions())}) under {path}")
    return sorted(files)


def _parse_file(row: dict, fmt: Optional[str], several: bool) -> list[dict]:
    from ..io import parse_rows

    name = row["path"]
    out = []
    try:
        for parsed in parse_rows(row["bytes"], name, fmt, source=Path(name).name if several else None):
            if parsed.error is not None:
                out.append({RAW: None, PARSE_ERROR: parsed.error.reason, FILE_ERROR: None})
            else:
                out.append({RAW: pickle.dumps(parsed.data, protocol=5), PARSE_ERROR: None, FILE_ERROR: None})
    except InputError as exc:  # raised in a task, it would reach the driver as Ray's error, without its type
        return [{RAW: None, PARSE_ERROR: None, FILE_ERROR: str(exc)}]
    return out


@ray.remote(num_cpus=0)
def _block_info(block: Any) -> tuple[int, Optional[str]]:
    """A block's rows, and the first ``FILE_ERROR`` in it."""
    if FILE_ERROR in block.column_names:
        errors = [e for e in block.column(FILE_ERROR).to_pylist() if e is not None]
        if errors:
            return block.num_rows, errors[0]
    return block.num_rows, None


@ray.remote(num_cpus=0)
def _with_index(block: Any, start: int, rows_per_block: int) -> Any:
    import pyarrow as pa

    if FILE_ERROR in block.column_names:
        block = block.drop_columns([FILE_ERROR])
    block = block.append_column(INDEX, pa.array(range(start, start + block.num_rows), type=pa.int64()))
    parts = [block.slice(i, rows_per_block) for i in range(0, block.num_rows, rows_per_block)]
    return parts[0] if len(parts) == 1 else tuple(parts)


def numbered(ds: "ray.data.Dataset", rows_per_block: int = 16) -> "ray.data.Dataset":
    """``ds`` with ``INDEX``, each row's position in ``ds``'s order, in blocks of at most ``rows_per_block`` rows
    (executes ``ds``, with ``preserve_order`` turned on in its context; the rows stay in the object store). The
    blocks are cut here, by tasks that take no CPU, so that an actor pool holding every CPU never waits on a
    repartitioning task. Raises the ``InputError`` of a row that says its file cannot be read (``FILE_ERROR``)."""
    ds.context.execution_options.preserve_order = True
    blocks = ds.to_arrow_refs()
    info = ray.get([_block_info.remote(b) for b in blocks])
    for _, error in info:
        if error is not None:
            raise InputError(error)
    sizes = [size for size, _ in info]
    parts = []
    for block, start, size in zip(blocks, accumulate([0, *sizes]), sizes):
        if size:
            refs = _with_index.options(num_returns=-(-size // rows_per_block)).remote(block, start, rows_per_block)
            parts.extend(refs if isinstance(refs, list) else [refs])
    if not parts:  # no rows
        import pyarrow as pa

        return ray.data.from_arrow(pa.table({INDEX: pa.array([], type=pa.int64())}))
    return ray.data.from_arrow_refs(parts)


def read_records(path: str, fmt: Optional[str] = None, *, rows_per_block: int = 16) -> "ray.data.Dataset":
    """The rows of the input file or folder ``path`` (``list_inputs``) as a Dataset that ``audit_dataset`` reads:
    numbered (``INDEX``), each one its parsed record (``RAW``) or the reason it could not be parsed
    (``PARSE_ERROR``). ``fmt``: ``jsonl``, ``json``, ``csv`` or ``parquet`` for every file (default: from each
    file's name and content); ``rows_per_block``: see ``numbered``."""
    files = list_inputs(path, fmt)
    ds = ray.data.read_binary_files(files, include_paths=True)
    ds.context.execution_options.preserve_order = True
    return numbered(ds.flat_map(_parse_file, fn_kwargs={"fmt": fmt, "several": len(files) > 1}), rows_per_block)


def row_of(record: dict) -> Row:
    """A numbered Dataset row as the local reader's ``Row``: from ``read_records``'s columns, or (a Dataset of
    record columns) the row itself without ``INDEX``."""
    index = record[INDEX]
    if RAW not in record:
        return Row(index, {k: v for k, v in record.items() if k != INDEX})
    if record.get(PARSE_ERROR) is not None:
        return Row(index, None, InputError(record[PARSE_ERROR], record=f"#{index + 1}"))
    return Row(index, pickle.loads(record[RAW]))
