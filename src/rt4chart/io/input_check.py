"""The input as a whole, checked once before its rows are audited: ``rt4chart audit`` (either engine) says once that
an input is empty or that no record has a required field, rather than once a row."""

from __future__ import annotations

from typing import Optional, Sequence

from ..errors import InputError
from . import FORMATS, FieldMap, Row

_REQUIRED = ("id", "context", "answer")


def tabular(path: str, fmt: Optional[str]) -> bool:
    """True for an input of columns (CSV, Parquet: ``InputFormat.columnar``) rather than of JSON fields, as the
    messages call them; without ``fmt``, by the file's extension."""
    name = fmt or next((f.name for f in FORMATS.values() if path.lower().endswith(f.extensions)), None)
    return name in FORMATS and FORMATS[name].columnar


def check_input(rows: Sequence[Row], fields: FieldMap, name: str, *, allow_empty: bool = False,
                columns: bool = False, first: bool = False) -> None:
    """What is wrong with an input as a whole, said once rather than once a row: it holds no record (unless
    ``allow_empty``), or no record has a required field (id, context, answer under their ``fields`` names); the
    message names the fields found and the option that maps each missing one (``--context-field`` ...). ``columns``:
    call them columns (CSV, Parquet); ``first``: ``rows`` are the input's first rows, not all of them. Raises
    ``InputError``."""
    shown = "the input" if name == "-" else name
    if not rows:
        if allow_empty:
            return
        raise InputError(f"{shown} holds no records (--allow-empty accepts an empty input)")
    found: dict[str, None] = {}
    for row in rows:
        if isinstance(row.data, dict):
            found.update(dict.fromkeys(row.data))
    missing = [key for key in _REQUIRED if getattr(fields, key) not in found]
    if not found or not missing:
        return  # no row could be read as a record: each row's error says why
    noun = "column" if columns else "field"
    names = " and ".join(repr(getattr(fields, key)) for key in missing)
    options = " and ".join(f"--{key}-field" for key in missing)
    what = " and ".join(f"the {key}" for key in missing)
    held = f"the {noun}s that hold" if len(missing) > 1 else f"the {noun} that holds"
    which = f"none of the first {len(rows)} records" if first else "no record"
    raise InputError(f"{which} of {shown} has the {noun}{'s' if len(missing) > 1 else ''} {names} ({noun}s found: "
                     f"{', '.join(map(str, found))}); name {held} {what} with {options}")
