"""Results files read back (what ``rt4chart audit`` writes), strictly: ``audit --baseline``, ``rt4chart diff``,
``rt4chart report`` and the Phoenix write-back read them, and a damaged file is reported, not skipped."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from pydantic import ValidationError

from ..errors import InputError
from ..types import AuditResult, RecordError
from .formats import json_lines, read_text

__all__ = ["ResultLine", "read_results", "results_mismatch"]

#: fields every audit result has (``AuditResult.to_json``) and an input record has not
_RESULT_FIELDS = ("label", "claims")
_INPUT_FIELDS = ("answer", "context")


def results_mismatch(name: str, line: str, *, not_json: bool = True) -> Optional[str]:
    """None when ``line``, one line of the file ``name`` given as results, is an audit result or an error line;
    else what the file looks like, for the error that stops a command reading it as results (``read_results``,
    ``rt4chart report``): an input file (then: run ``rt4chart audit`` first), a JSON array, other JSON, or not JSON
    (without ``not_json``, None for a line that is not JSON and no input CSV header: the caller names it itself)."""
    first = f"run rt4chart audit first (rt4chart audit {name} -o results.jsonl) and give it the results"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        header = [cell.strip().strip('"').lower() for cell in line.split(",")]
        if any(field in header for field in _INPUT_FIELDS):
            return f"{name} is an input file (CSV with the columns {line.strip()[:120]}), not results: {first}"
        return (f"{name} is not a results file: line 1 is not valid JSON ({exc.msg}); results are the JSON lines "
                "that rt4chart audit writes") if not_json else None
    if isinstance(obj, dict) and ("error" in obj and "answer" not in obj or all(f in obj for f in _RESULT_FIELDS)):
        return None
    if isinstance(obj, dict) and any(f in obj for f in _INPUT_FIELDS):
        return (f"{name} is an input file, not results (its records have the fields {', '.join(list(obj)[:8])}; "
                f"results also have an audit's label and claims): {first}")
    if isinstance(obj, dict):
        return (f"{name} is not a results file of rt4chart audit: its first line has the fields "
                f"{', '.join(list(obj)[:8]) or 'none'}, not an audit's label and claims")
    kind = "a JSON array (an input in JSON form?)" if isinstance(obj, list) else f"a JSON {type(obj).__name__}"
    return f"{name} is not a results file: its first line is {kind}, not an audit result; {first}"


@dataclass(frozen=True)
class ResultLine:
    """One line of a results file (what ``rt4chart audit`` writes): its line number, the JSON object as read, and
    the ``AuditResult`` it holds or, for an error line, its ``RecordError``."""

    line: int
    data: dict
    result: Optional[AuditResult] = None
    error: Optional[RecordError] = None

    @property
    def id(self) -> Any:
        return self.data.get("id")


def read_results(path: Union[str, Path]) -> Iterator[ResultLine]:
    """Read a results JSONL file strictly, line by line (``-`` reads stdin).

    A line is an audit result (``AuditResult.to_json()`` plus the ``index`` the batch runner adds), or an error line
    ``{"id", "index", "error": {"field", "message", "kind"}}`` whose ``id`` may be null. Anything else (not JSON, not
    an object, a result without an id, a field of the wrong type) raises ``InputError`` naming the file, the line
    and the field: a results file is compared or reused whole, so a damaged one is reported, not skipped."""
    name = "<stdin>" if str(path) == "-" else str(path)
    text = read_text(path)
    first = next((line for line in text.splitlines() if line.strip()), None)
    mismatch = results_mismatch(name, first, not_json=False) if first is not None else None
    if mismatch is not None:
        raise InputError(mismatch)
    for lineno, data, problem in json_lines(text):
        where = f"{name} line {lineno}"
        if problem is not None:
            raise InputError(f"is not valid JSON ({problem}); a results file holds one JSON object a line",
                             record=where)
        if not isinstance(data, dict):
            raise InputError(f"must be a JSON object, got {type(data).__name__}", record=where)
        rid = data.get("id")
        if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int))):
            raise InputError(f"must be a string or an integer, got {type(rid).__name__}", record=where, field="id")
        is_error = "error" in data and "answer" not in data
        if not is_error and rid is None:
            raise InputError("is missing (every audit result names its record)", record=where, field="id")
        try:
            item = (ResultLine(lineno, data, error=RecordError.model_validate(data["error"])) if is_error else
                    ResultLine(lineno, data, result=AuditResult.model_validate(
                        {k: v for k, v in data.items() if k != "index"})))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in (("error",) if is_error else ()) + tuple(first["loc"]))
            raise InputError(first["msg"], record=where, field=field or None) from None
        yield item
