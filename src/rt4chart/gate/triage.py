"""Triage of input rows with a RAGScope gate: a risk and a route per row (``rt4chart triage route`` and
``rt4chart.triage_frame``).

A row that cannot be read gets route ``verify``, risk None and its error: it is never accepted unread.
"""

from __future__ import annotations

from typing import Any, Iterable, Union

from ..errors import InputError
from ..io import FieldMap, Row, checked_rows
from .routing import route


def load_gate_spec(spec: Union[str, Any]) -> Any:
    """The gate that ``spec`` names: ``"default"`` (the shipped RAGScope-E), ``"z"`` (training-free uncovered-token),
    the path of a saved gate, or a fitted gate object (returned as it is)."""
    from . import RAGScopeZ, load_default_gate, load_gate

    if not isinstance(spec, str):
        return spec
    if spec == "default":
        return load_default_gate()
    if spec.lower() == "z":
        return RAGScopeZ().fit([])
    return load_gate(spec)


def triage_rows(rows: Iterable[Row], gate: Union[str, Any] = "default", *, review: float = 0.0,
                accept: float = 0.0, fields: FieldMap = FieldMap()) -> list[dict]:
    """One ``{"id", "risk", "route"}`` per row, in order; a row ``checked_rows`` rejects gets ``"route": "verify"``,
    ``"risk": None`` and ``"error"`` (the message naming the record and the field), and its ``id`` is its id when
    it has a usable one, else ``#position``. Risks are rounded to 6 decimals; routes follow ``route`` over the
    valid rows (``review`` and ``accept`` are workload fractions)."""
    gate = load_gate_spec(gate)
    valid: list[tuple[int, Any]] = []
    out: list[dict] = []
    for index, rec, rid in checked_rows(rows, fields):
        if isinstance(rec, InputError):
            out.append({"id": rid if rid is not None else f"#{index}", "risk": None, "route": "verify",
                        "error": str(rec)})
        else:
            valid.append((len(out), rec))
            out.append({"id": rec["id"], "risk": None, "route": None})
    if valid:
        scores = gate.predict_proba([rec for _, rec in valid])[:, 1]
        for (pos, _), score, where in zip(valid, scores, route(scores, review=review, accept=accept)):
            out[pos]["risk"] = round(float(score), 6)
            out[pos]["route"] = where
    return out
