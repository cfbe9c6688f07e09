"""The FastAPI application: ``POST /v1/audit``, ``POST /v1/triage``, ``GET /v1/info``, ``GET /healthz`` and a web
page at ``/``. The judge is built once at startup (lifespan) and shared by all requests."""

import asyncio
import hmac
import importlib
import inspect
import logging
import platform
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable, Optional, Union

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .._version import __version__
from ..errors import ConfigError, InputError, MissingDependencyError, Rt4chartError
from ..io import validate_record
from ..types import AuditResult, Record, RecordError
from . import _errors
from ._errors import ApiError
from ._limits import BodySizeLimit, JsonBody
from ._models import (
    AuditBatchResult,
    AuditRecord,
    ErrorBody,
    Health,
    SafeJSONResponse,
    TriageResult,
    judge_schemas,
    request_models,
)
from ._page import web_page
from ._settings import ServerSettings

log = logging.getLogger("rt4chart.server")

_ERRORS = {status: {"model": ErrorBody, "description": text} for status, text in {
    400: "malformed request", 401: "missing or wrong bearer token", 413: "request body too large",
    422: "invalid JSON, invalid record, or more records than the limit",
    500: "internal error", 503: "not ready, or the gate is not installed", 504: "audit timed out",
}.items()}


def _versions() -> dict:
    out = {"rt4chart": __version__, "python": platform.python_version()}
    for mod in ("fastapi", "starlette", "pydantic", "uvicorn"):
        try:
            out[mod] = importlib.import_module(mod).__version__
        except (ImportError, AttributeError):
            out[mod] = None
    return out


def _model_name(judge: Any) -> Optional[str]:
    for holder in (judge, getattr(judge, "settings", None), getattr(judge, "backend", None)):
        model = getattr(holder, "model", None)
        if isinstance(model, str):
            return model
    return None


def _dumps(obj: Any) -> bytes:
    return SafeJSONResponse(obj).body


def _result_bytes(result: AuditResult) -> bytes:
    """The result's JSON, serialised by pydantic-core (fast); text it cannot encode goes the safe, slower way."""
    try:
        return result.model_dump_json(exclude=result.json_exclude()).encode()
    except ValueError:  # a lone surrogate in echoed text
        return _dumps(result.to_json())


def _json_result(result: AuditResult) -> Response:
    return Response(_result_bytes(result), media_type="application/json")


def build_auditor(settings: ServerSettings) -> Any:
    """The auditor for ``settings.judge`` with ``settings.options`` and ``settings.audit`` (raises ``ConfigError``
    for an unknown or unavailable judge, or an option it does not read): the command line's factory with the
    command line's options, so that its judge fingerprint is the command line's and a calibration fitted there
    applies here."""
    from ..judges.registry import build_auditor as from_options

    return from_options(settings.judge, config=settings.audit, calibration=settings.calibration, **settings.options)


def publish_judges(app: FastAPI) -> None:
    """Add the judges and their options (``_models.judge_schemas``, from the registry) to the app's OpenAPI
    schema."""
    schema_of = app.openapi

    def openapi() -> dict[str, Any]:
        schema = schema_of()
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, value in judge_schemas().items():
            schemas.setdefault(name, value)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


async def _close(obj: Any) -> None:
    for name in ("aclose", "close"):
        fn = getattr(obj, name, None)
        if callable(fn):
            res = fn()
            if inspect.isawaitable(res):
                await res
            return


def load_gate() -> tuple[Optional[Callable[[list], Any]], str]:
    """``(rt4chart.gate.risk_scores, "")`` with its default model loaded, or ``(None, why it is unavailable)``."""
    try:
        gate = importlib.import_module("rt4chart.gate")
    except ImportError as exc:
        return None, f"the RAGScope gate could not be loaded ({exc})"
    fn = getattr(gate, "risk_scores", None)
    if not callable(fn):
        return None, "the RAGScope gate is not installed in this build (rt4chart.gate.risk_scores is missing)"
    loader = getattr(gate, "load_default_gate", None)
    if callable(loader):
        try:
            loader()  # load the model now, so the first request does not pay for it
        except (Rt4chartError, ImportError, OSError) as exc:
            return None, f"the RAGScope gate cannot be loaded: {exc}"
    return fn, ""


def create_app(
    settings: Optional[ServerSettings] = None, *, auditor: Any = None, owns_auditor: Optional[bool] = None
) -> FastAPI:
    """Build the app. ``auditor`` (anything with ``async audit(record, index=...)``, given a validated ``Record``)
    replaces the one built from
    ``settings.judge`` at startup; tests and embedders pass their own. The judge is closed at shutdown when the
    app owns it (by default: when it built it)."""
    settings = settings or ServerSettings()
    AuditBody, TriageRequest = request_models(settings.max_records)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = auditor is None if owns_auditor is None else owns_auditor
        app.state.auditor = build_auditor(settings) if auditor is None else auditor
        if settings.gate:  # load in the background: the service is ready before the gate's model is
            app.state.gate_task = asyncio.ensure_future(asyncio.to_thread(load_gate))
        else:
            app.state.gate = (None, "the gate is disabled on this server (rt4chart serve --no-gate)")
        judge = getattr(app.state.auditor, "judge", None)
        log.info("rt4chart server ready: judge=%s model=%s", getattr(judge, "name", "?"), _model_name(judge))
        try:
            yield
        finally:
            if owned and judge is not None:
                await _close(judge)
            app.state.auditor = None
            task = getattr(app.state, "gate_task", None)
            if task is not None:
                await task  # a loading thread cannot be cancelled; let it finish before the loop closes

    app = FastAPI(
        title="rt4chart", version=__version__, lifespan=lifespan, default_response_class=SafeJSONResponse,
        description="Claim-level, evidence-grounded hallucination auditing of RAG answers (RT4CHART). The judge is "
        "chosen when the server starts (`rt4chart serve --judge`): the schemas JudgeName and JudgeOptions list the "
        "judges and the options each reads.",
    )
    publish_judges(app)
    app.state.gate = app.state.gate_task = None
    app.state.auditor = auditor  # an injected auditor serves at once, even where the lifespan does not run
    app.state.settings = settings
    _errors.install(app)
    app.add_middleware(JsonBody, paths=("/v1/audit", "/v1/triage"))  # inside the size limit (added last, runs first)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)

    bearer = HTTPBearer(auto_error=False, description="set with RT4CHART_API_TOKEN when the server starts")

    async def authorize(creds: Optional[HTTPAuthorizationCredentials] = Depends(bearer)) -> None:
        if settings.token is None:
            return
        if creds is None or not hmac.compare_digest(creds.credentials.encode(), settings.token.encode()):
            raise ApiError(401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})

    guarded = [Depends(authorize)] if settings.token is not None else []

    async def gate_state(request: Request) -> tuple[Optional[Callable[[list], Any]], str]:
        state = request.app.state
        if getattr(state, "gate", None) is None:
            task = getattr(state, "gate_task", None)
            if task is None:  # the lifespan did not run (an embedding ASGI host): load on first use
                task = state.gate_task = asyncio.ensure_future(asyncio.to_thread(load_gate))
            state.gate = await asyncio.shield(task)
        return state.gate

    def current_auditor(request: Request) -> Any:
        aud = request.app.state.auditor
        if aud is None:
            raise ApiError(503, "the server is starting or shutting down", kind="not_ready")
        return aud

    async def run_audit(aud: Any, record: Record, index: int) -> Any:
        try:
            return await asyncio.wait_for(aud.audit(record, index=index), timeout=settings.audit_timeout_s)
        except asyncio.TimeoutError as exc:
            msg = f"audit of record {record.id!r} took longer than {settings.audit_timeout_s} s"
            raise ApiError(504, msg) from exc

    def as_input(rec: AuditRecord, index: int) -> Record:
        """The request's record, validated once (``rt4chart.io.validate_record``, which joins a list context); a
        missing id becomes its position. Raises ``InputError``."""
        data = rec.model_dump()
        if data["id"] is None:
            data["id"] = index
        return validate_record(data, index)

    @app.get("/healthz", response_model=Health, tags=["service"])
    async def healthz(request: Request) -> Response:
        """Liveness and readiness: 200 once the judge is built."""
        if request.app.state.auditor is None:
            raise ApiError(503, "the server is starting or shutting down", kind="not_ready")
        return SafeJSONResponse({"status": "ok"})

    @app.get("/v1/info", dependencies=guarded, responses=_ERRORS, tags=["service"])
    async def info(request: Request) -> dict:
        """The judge, its model, the audit configuration, limits and versions."""
        aud = current_auditor(request)
        judge = getattr(aud, "judge", None)
        config = getattr(aud, "config", None)
        decomposer = getattr(aud, "decomposer", None)
        gate_fn, gate_why = await gate_state(request)
        return {
            "judge": getattr(judge, "name", None), "model": _model_name(judge),
            "decomposer": getattr(decomposer, "name", None),
            "config": {k: getattr(config, k) for k in ("window", "overlap", "global_verification")
                       if hasattr(config, k)},
            "limits": {"max_body_bytes": settings.max_body_bytes, "max_records": settings.max_records,
                       "timeout_s": settings.audit_timeout_s},
            "auth": settings.token is not None, "gate": gate_fn is not None, "gate_error": gate_why or None,
            "versions": _versions(),
        }

    @app.post("/v1/audit", dependencies=guarded, response_model=Union[AuditResult, AuditBatchResult], responses=_ERRORS,
              tags=["audit"])
    async def audit(request: Request, body: AuditBody) -> Response:
        """Audit one record (answer claims labelled and linked to context evidence), or a batch
        ``{"records": [...]}``. A bad single record is a 422; in a batch it becomes that entry's error."""
        aud = current_auditor(request)
        body = body.root
        if isinstance(body, AuditRecord):
            result = await run_audit(aud, as_input(body, 0), 0)
            return _json_result(result)
        sem = asyncio.Semaphore(settings.audit.concurrency)

        async def one(i: int, raw: AuditRecord) -> dict:
            rid = raw.id if raw.id is not None else i
            async with sem:
                try:
                    return await run_audit(aud, as_input(raw, i), i)
                except InputError as exc:
                    err = RecordError(field=exc.field, message=str(exc), kind="input")
                except ApiError as exc:
                    err = RecordError(message=exc.message, kind=exc.kind)
                except Exception as exc:  # one bad record never loses the others (as in Auditor.audit_many)
                    log.exception("audit of record %r failed", rid)
                    err = RecordError(message=f"{type(exc).__name__}: {exc}", kind="internal")
                return {"id": rid, "index": i, "error": err.model_dump(mode="json")}

        results = await asyncio.gather(*(one(i, r) for i, r in enumerate(body.records)))
        parts = [_result_bytes(r) if isinstance(r, AuditResult) else _dumps(r) for r in results]
        return Response(b'{"results":[' + b",".join(parts) + b"]}", media_type="application/json")

    @app.post("/v1/triage", dependencies=guarded, response_model=TriageResult, responses=_ERRORS, tags=["audit"])
    async def triage(request: Request, body: TriageRequest) -> Response:
        """Hallucination risk of each record from the RAGScope gate (cheap; no judge call)."""
        records = []
        for i, r in enumerate(body.records):
            try:
                records.append(as_input(r, i))
            except InputError as exc:
                raise ApiError(422, str(exc), kind="input", field=f"records[{i}].{exc.field}") from exc
        risk_scores, why = await gate_state(request)
        if risk_scores is None:
            raise ApiError(503, why, kind="gate_unavailable")
        try:
            scores = await asyncio.to_thread(risk_scores, records)
        except (MissingDependencyError, ConfigError) as exc:
            raise ApiError(503, f"the RAGScope gate failed: {exc}", kind="gate_unavailable") from exc
        return SafeJSONResponse({"results": [{"id": r.id, "risk": float(s)} for r, s in zip(records, scores)]})

    page = web_page(auth=settings.token is not None)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page)

    return app
