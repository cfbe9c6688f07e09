"""Request and response bodies of the HTTP API (they also make the OpenAPI schema)."""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, Optional, Union

from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    Tag,
    TypeAdapter,
)

from ..types import AuditResult, RecordError

# Text with something besides whitespace (Python's notion: str.strip() also removes \x1c-\x1f).
Text = Annotated[str, Field(pattern=r"[^\s\x1c-\x1f]")]


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a string or an integer, got bool")  # the command line's words
    return value


# JSON Schema's "integer" includes 300.0; accept it as 300, but never true/false.
IntId = Annotated[int, BeforeValidator(_not_bool)]


class AuditRecord(BaseModel):
    """One record to audit. ``context`` may be a list of passages (joined with a blank line). Unknown keys are
    ignored. Without ``id`` the record's position (0 for a single record) is used."""

    model_config = ConfigDict(extra="ignore", json_schema_extra={"examples": [{
        "id": "paper-figure-1",
        "context": "The free trial lasts 14 days from the date of activation.",
        "question": "How long does the free trial last?",
        "answer": "The free trial lasts 30 days.",
    }]})

    id: Optional[Union[IntId, Text]] = None
    context: Union[Text, Annotated[list[Text], Field(min_length=1)]]
    question: Optional[str] = None
    answer: Text
    task: Optional[str] = None


def _shape(value: Any) -> str:
    return "batch" if isinstance(value, dict) and "records" in value else "record"


def request_models(max_records: int) -> tuple[type[BaseModel], type[BaseModel]]:
    """``(AuditBody, TriageRequest)`` with the server's per-request record limit (``maxItems``; over it is a 422
    of kind ``too_many_records``)."""
    records_field = Field(min_length=1, max_length=max_records)

    class AuditBatch(BaseModel):
        """Several records in one request; each is audited on its own and a bad one does not fail the others."""

        model_config = ConfigDict(extra="forbid")

        records: list[AuditRecord] = records_field

    class AuditBody(RootModel[Annotated[
        Union[Annotated[AuditRecord, Tag("record")], Annotated[AuditBatch, Tag("batch")]], Discriminator(_shape)
    ]]):
        """The body of ``POST /v1/audit``: a record, or ``{"records": [...]}`` (chosen by the ``records`` key)."""

    class TriageRequest(BaseModel):
        """Records to score with the RAGScope gate (no judge is called)."""

        model_config = ConfigDict(extra="forbid")

        records: list[AuditRecord] = records_field

    return AuditBody, TriageRequest


def judge_schemas() -> dict[str, dict[str, Any]]:
    """The OpenAPI components that name the judges, from ``rt4chart.judges.registry``: ``JudgeName`` (the names the
    server may be started with, ``rt4chart serve --judge``) and ``JudgeOptions`` (each judge's options: the fields
    of its option dataclasses, which ``ServerSettings``, the command line and Python set)."""
    from ..judges.registry import JUDGE_TABLE, JUDGES, judge_help
    from ..options import option_info

    judges: dict[str, Any] = {}
    for name, entry in JUDGE_TABLE.items():
        properties: dict[str, Any] = {}
        for cls in entry.options:
            schema = TypeAdapter(cls).json_schema(mode="serialization")
            helps = {f.name: option_info(f).help for f in dataclasses.fields(cls)}
            for key, prop in schema.get("properties", {}).items():
                properties[key] = {k: v for k, v in prop.items() if k != "title"}
                if helps.get(key):
                    properties[key]["description"] = helps[key]
        judges[name] = {"type": "object", "title": f"{name} judge options", "description": entry.help or name,
                        "properties": properties, "additionalProperties": False}
    return {
        "JudgeName": {"type": "string", "enum": list(JUDGES), "description": judge_help(flags=False)},
        "JudgeOptions": {"type": "object", "description": "The options each judge reads (by name).",
                         "properties": judges, "additionalProperties": False},
    }


class RecordFailure(BaseModel):
    """A batch entry that could not be audited: its position, id and error."""

    id: Optional[Union[int, str]] = None
    index: int
    error: RecordError


class AuditBatchResult(BaseModel):
    """Results in request order: an audit result or a failure per record."""

    results: list[Union[AuditResult, RecordFailure]]


class TriageScore(BaseModel):
    id: Optional[Union[int, str]] = None
    risk: float


class TriageResult(BaseModel):
    """Hallucination risk per record, in request order (higher = more likely hallucinated)."""

    results: list[TriageScore]


class ErrorDetail(BaseModel):
    status: int
    kind: str
    message: str
    field: Optional[str] = None
    details: Optional[list[dict[str, Any]]] = None


class ErrorBody(BaseModel):
    """Every error response has this shape."""

    error: ErrorDetail


class Health(BaseModel):
    status: str


class SafeJSONResponse(JSONResponse):
    """JSON that never fails to encode: a lone surrogate in echoed text is written as its ``\\uXXXX`` escape."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
            "utf-8", "backslashreplace")
