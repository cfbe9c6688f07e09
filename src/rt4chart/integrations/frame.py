"""The pandas entry points: ``audit_frame`` and ``triage_frame`` (``pip install 'rt4chart[pandas]'``).

Each row of the DataFrame is one record, read through the same per-record path as ``rt4chart audit`` (validation
in ``rt4chart.io``, the audit and its output line in ``rt4chart.jobs.batch``), so a DataFrame and a JSONL file give
the same labels, spans and evidence, and a bad row gives error columns naming the record and the field, never an
exception.
``result_columns`` flattens one output line; the Ray engine's result rows use it too.

    >>> import pandas as pd, rt4chart
    >>> df = pd.DataFrame({"qid": [1], "passage": ["The trial lasts 14 days."], "reply": ["The trial lasts 30 days."]})
    >>> out = rt4chart.audit_frame(df, id="qid", context="passage", answer="reply", judge="lexical")
    >>> out.loc[0, "label"], bool(out.loc[0, "hallucinated"])
    ('contradicted', True)
"""

from __future__ import annotations

import math
from typing import Any, Optional, Union

#: the columns ``audit_frame`` adds, in order (``result_columns`` gives their values for one output line)
RESULT_COLUMNS = ("label", "hallucinated", "score", "spans", "n_claims", "claims", "error", "error_field",
                  "error_kind")
#: the columns ``triage_frame`` adds
TRIAGE_COLUMNS = ("risk", "route", "error")


def result_columns(line: dict) -> dict[str, Any]:
    """The flat columns of one output line (``rt4chart.jobs.batch.result_line``): the answer's ``label``,
    ``hallucinated`` (True, False, or None/<NA> for an answer no judge confirmed: label unverified), ``score`` (its
    hallucination risk, the score ``rt4chart eval`` ranks by), ``spans``
    (``[{start, end}]`` in the answer), ``n_claims`` and ``claims`` (as in the output record); an error line has
    None there and its ``error`` message (naming the record and the field), ``error_field`` and ``error_kind``."""
    if "error" in line:
        err = line["error"]
        return {"label": None, "hallucinated": None, "score": None, "spans": None, "n_claims": None, "claims": None,
                "error": err.get("message"), "error_field": err.get("field"), "error_kind": err.get("kind")}
    from ..eval.predictions import prediction_from_result

    return {"label": line["label"], "hallucinated": line["hallucinated"],
            "score": prediction_from_result(line).score, "spans": list(line["spans"]),
            "n_claims": len(line["claims"]), "claims": list(line["claims"]), "error": None, "error_field": None,
            "error_kind": None}


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:
        from ..errors import MissingDependencyError

        raise MissingDependencyError("pandas", "pandas") from exc
    return pandas


def _plain(value: Any) -> Any:
    """A cell as the record validator reads JSON values: NaN, NA and NaT as None, numpy scalars and arrays as
    Python numbers and lists."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # numpy scalars and arrays (a list context read from Parquet is an array)
        return None if isinstance(value, float) and math.isnan(value) else value
    return value


def _rows(df: Any) -> list[Any]:
    from ..io import Row

    return [Row(i, {str(k): _plain(v) for k, v in rec.items()}) for i, rec in enumerate(df.to_dict("records"))]


def _fields(id: str, context: str, question: str, answer: str, task: str) -> Any:
    from ..io import FieldMap

    return FieldMap(id=id, context=context, question=question, answer=answer, task=task)


def _with_columns(df: Any, columns: dict[str, list], dtypes: dict[str, str]) -> Any:
    pd = _pandas()
    clash = [name for name in columns if name in df.columns]
    if clash:
        from ..errors import ConfigError

        raise ConfigError(f"the DataFrame already has the column(s) {', '.join(clash)} that the results go to; "
                          "rename or drop them first")
    out = df.copy()
    for name, values in columns.items():
        out[name] = pd.Series(values, index=df.index, dtype=dtypes.get(name, object))
    return out


def audit_frame(df: Any, *, id: str = "id", context: str = "context", question: str = "question",
                answer: str = "answer", task: str = "task", judge: Union[str, Any] = "auto",
                **audit_options: Any) -> Any:
    """Audit every row of ``df`` and return a copy with the ``RESULT_COLUMNS`` added (same index, same columns).

    ``id``, ``context``, ``question``, ``answer`` and ``task`` name the columns holding each field (a missing
    question or task column means none). ``judge`` is a judge name (``auto``, ``lexical``, ``local``, ``llm``,
    ``hybrid``) or a Judge object; ``audit_options`` go to ``rt4chart.judges.registry.build_auditor`` for a name
    (``window``, ``overlap``, ``base_url``, ``model``, ...) or to ``Auditor`` for an object. A row that cannot be
    audited (a missing field, a duplicate id, a judge failure) gets None results and an ``error`` naming the record
    and the field. Raises ``MissingDependencyError`` without pandas, ``ConfigError`` for bad options or a result
    column that ``df`` already has."""
    _pandas()
    from ..jobs.batch import audit_lines, run_sync
    from ..judges.registry import auditor_for

    auditor = auditor_for(judge, **audit_options)
    lines = run_sync(audit_lines(_rows(df), auditor, fields=_fields(id, context, question, answer, task)))
    flat = [result_columns(line) for line in lines]
    columns = {name: [row[name] for row in flat] for name in RESULT_COLUMNS}
    return _with_columns(df, columns, {"hallucinated": "boolean", "score": "Float64", "n_claims": "Int64"})


def triage_frame(df: Any, *, id: str = "id", context: str = "context", question: str = "question",
                 answer: str = "answer", review: float = 0.0, accept: float = 0.0,
                 gate: Optional[Union[str, Any]] = "default") -> Any:
    """Score every row of ``df`` with the RAGScope gate (``rt4chart triage``) and return a copy with ``risk``,
    ``route`` (``review`` for the riskiest ``review`` fraction, ``accept`` for the safest ``accept`` fraction,
    ``verify`` otherwise) and ``error`` added. ``gate``: ``"default"`` (the shipped RAGScope-E), ``"z"``, a saved
    gate's path or a fitted gate. A row that cannot be read gets route ``verify``, no risk and its ``error``."""
    _pandas()
    from ..gate.triage import triage_rows

    out = triage_rows(_rows(df), gate or "default", review=review, accept=accept,
                      fields=_fields(id, context, question, answer, "task"))
    columns = {name: [item.get(name) for item in out] for name in TRIAGE_COLUMNS}
    return _with_columns(df, columns, {"risk": "Float64"})
