"""Structured JSON errors: every failure answers ``{"error": {"status", "kind", "message", "field", "details"}}``."""

from __future__ import annotations

import logging
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import InputError, MissingDependencyError, Rt4chartError

log = logging.getLogger("rt4chart.server")

_KINDS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          413: "payload_too_large", 415: "unsupported_media_type", 422: "validation", 500: "internal",
          503: "unavailable", 504: "timeout"}


# What FastAPI raises (as a 400) when a JSON body cannot even be decoded; we answer it like any bad JSON.
_FASTAPI_BODY_ERROR = "There was an error parsing the body"


class ApiError(Exception):
    """An error answered as structured JSON with ``status``."""

    def __init__(self, status: int, message: str, *, kind: Optional[str] = None, field: Optional[str] = None,
                 details: Optional[list] = None, headers: Optional[dict] = None) -> None:
        super().__init__(message)
        self.status, self.message = status, message
        self.kind = kind or _KINDS.get(status, "error")
        self.field, self.details, self.headers = field, details, headers


def error_body(status: int, message: str, *, kind: Optional[str] = None, field: Optional[str] = None,
               details: Optional[list] = None) -> dict:
    err: dict[str, Any] = {"status": status, "kind": kind or _KINDS.get(status, "error"), "message": message,
                           "field": field}
    if details:
        err["details"] = details
    return {"error": err}


def error_response(exc: ApiError) -> JSONResponse:
    return JSONResponse(error_body(exc.status, exc.message, kind=exc.kind, field=exc.field, details=exc.details),
                        status_code=exc.status, headers=exc.headers)


#: pydantic names the member of a union it tried in the error's location ("constrained-str", "int",
#: "list[constrained-str]", "function-before[...]"): not a field of the request
_UNION_MEMBERS = {"str", "int", "float", "bool", "list", "dict"}


def _loc(loc: Any) -> str:
    parts = [str(p) for p in loc]
    if parts[:1] == ["body"]:
        parts = parts[2:] if parts[1:2] in (["record"], ["batch"]) else parts[1:]  # drop the union's tag
    out = ""
    for i, p in enumerate(parts):
        if p.isdigit():
            out += f"[{p}]"
        elif p.isidentifier() and not (i and p in _UNION_MEMBERS):
            out += f".{p}" if out else p
    return out


#: what a value of the wrong type should have been, by pydantic's error type (for "must be a string or ...")
_EXPECTED = {"string_type": "a string", "list_type": "a list of strings", "int_type": "an integer",
             "int_from_float": "an integer", "int_parsing": "an integer"}


def _words(error: dict, found: list[dict]) -> str:
    """A validation error in the words the command line uses for the same mistake (``rt4chart.io.check_text``:
    "is missing", "is empty", "must be a string, got int", "is not valid UTF-8"); ``found``: every error of the same
    field (a union's members each give one: a wrong type is said once, naming what each member expects)."""
    kind, value = error.get("type"), error.get("input")
    if kind == "missing":
        return "is missing"
    if kind in ("string_pattern_mismatch", "too_short") and isinstance(value, (str, list)):
        return "is empty"
    if kind == "string_unicode":
        return "is not valid UTF-8"
    if kind == "value_error":
        return str((error.get("ctx") or {}).get("error") or error.get("msg", ""))
    if kind == "model_attributes_type" and not _loc(error.get("loc", ())):
        return (f'the body must be a JSON object (a record, or {{"records": [...]}}), got '
                f"{type(value).__name__}")
    if kind in _EXPECTED:
        expected = list(dict.fromkeys(_EXPECTED[e["type"]] for e in found if e.get("type") in _EXPECTED))
        return f"must be {' or '.join(expected)}, got {type(value).__name__}"
    return str(error.get("msg", ""))


def _validation(exc: RequestValidationError) -> ApiError:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        e = next(e for e in errors if e.get("type") == "json_invalid")
        msg = (e.get("ctx") or {}).get("error", "invalid JSON")
        return ApiError(422, f"request body is not valid JSON: {msg}", kind="bad_json")
    details = [{"field": _loc(e.get("loc", ())), "message": str(e.get("msg", "")), "type": str(e.get("type", ""))}
               for e in errors[:20]]
    if not details:
        return ApiError(422, "invalid request", kind="validation")
    first = details[0]
    # the first field's errors (a union gives one per member): the one that is not about a type, when there is one
    group = [e for e, d in zip(errors, details) if d["field"] == first["field"]
             or d["field"].startswith((first["field"] + ".", first["field"] + "["))]
    best = next((e for e in group if e.get("type") not in _EXPECTED), group[0])
    field = _loc(best.get("loc", ()))
    where = f"{field}: " if field else ""
    kind = "too_many_records" if (first["field"], first["type"]) == ("records", "too_long") else "validation"
    return ApiError(422, f"invalid request: {where}{_words(best, group)}", kind=kind, field=first["field"] or None,
                    details=details)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into the structured JSON body."""

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == _FASTAPI_BODY_ERROR:  # e.g. bytes that are not UTF-8
            return error_response(ApiError(422, "request body is not valid JSON (undecodable bytes)",
                                           kind="bad_json"))
        return error_response(ApiError(exc.status_code, str(exc.detail), headers=getattr(exc, "headers", None)))

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return error_response(ApiError(422, str(exc), kind="input", field=exc.field))

    @app.exception_handler(MissingDependencyError)
    async def _missing(request: Request, exc: MissingDependencyError) -> JSONResponse:
        return error_response(ApiError(503, str(exc)))

    @app.exception_handler(Rt4chartError)
    async def _ours(request: Request, exc: Rt4chartError) -> JSONResponse:
        log.exception("audit failed")
        return error_response(ApiError(500, f"{type(exc).__name__}: {exc}"))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        # Starlette logs the traceback and re-raises after this response; the client gets no internals.
        return error_response(ApiError(500, f"internal error ({type(exc).__name__})"))
