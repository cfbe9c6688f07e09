"""An MLflow experiment's traces, read and assessed: over the tracking server's REST API with httpx (``http://`` or
``https://``; no MLflow package needed), or through MLflow's own client for any other tracking URI (``sqlite:///...``,
``file:...``: ``pip install 'rt4chart[mlflow]'``).

REST calls (MLflow 3, read from ``mlflow/server/handlers.py``):

- ``GET /api/2.0/mlflow/experiments/get-by-name``: the experiment's id;
- ``POST /api/3.0/mlflow/traces/search`` (``locations``, ``filter`` ``trace.timestamp_ms >= T`` with ``since``,
  ``order_by`` newest first, ``max_results``, ``page_token``): the traces' infos, page after page;
- ``GET /api/3.0/mlflow/traces/batchGet`` (``trace_ids``): their spans, for traces whose spans the tracking store
  holds (tag ``mlflow.trace.spansLocation`` ``TRACKING_STORE``); ``GET /ajax-api/2.0/mlflow/get-trace-artifact``
  for the others (the ``traces.json`` artifact);
- ``POST /api/3.0/mlflow/traces/batchGetInfos``: the assessments a trace has when its verdict is written back;
  ``POST .../traces/{trace_id}/assessments``, ``PATCH`` and ``DELETE .../assessments/{assessment_id}``.

Write-back (``MlflowTraces.write_back``): per audited trace one feedback assessment named ``rt4chart`` (source
``CODE`` / ``rt4chart``) and, on the span the answer came from, one feedback ``rt4chart-claim-N`` per flagged claim.
MLflow has no key of its own for an assessment but its id, so the write-back reads the trace's assessments first:
one of rt4chart's with the same name and span is updated (``PATCH``), a missing one is created, and one of rt4chart's
that the result no longer has (a claim no longer flagged, or a second copy) is deleted. A rerun leaves one of each.

A server that cannot be reached, that is not MLflow, that has no such experiment or that refuses a request raises
``MlflowError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Optional
from urllib.parse import quote

import httpx

from ..._version import __version__
from ...errors import ConfigError, MlflowError
from ...io import ResultLine
from ...types import AuditResult, Label
from .._common import explanation, missing, result_risk, verdict, why

__all__ = ["ASSESSMENT_NAME", "MlflowTraces", "WriteBack", "assessments"]

#: the name of the trace assessment rt4chart writes (its claim assessments are ``rt4chart-claim-N``)
ASSESSMENT_NAME = "rt4chart"
_CLAIM_PREFIX = "rt4chart-claim-"
_SOURCE = {"source_type": "CODE", "source_id": "rt4chart"}
_PAGE = 100  # trace infos a search page (the server takes at most 500)
_BATCH = 20  # traces a batchGet (their ids go in the query string)


def _claim_name(index: int) -> str:
    return f"{_CLAIM_PREFIX}{index + 1}"


def assessments(result: AuditResult, span_id: Optional[str]) -> list[dict]:
    """The assessments of one audit result, as MLflow's REST API takes them (``Assessment`` JSON): the trace's
    ``rt4chart`` feedback (value ``hallucinated`` / ``supported`` / ``needs review``, rationale the flagged claims,
    metadata the answer label, judge, claim counts and risk; metadata values are strings, as MLflow keeps them) and,
    when ``span_id`` is given, one ``rt4chart-claim-N`` feedback per flagged claim on that span (value the claim's
    label, rationale the claim and its reason or evidence)."""
    trace_id = str(result.id)
    flagged = [c for c in result.claims if c.label != Label.ENTAILED]
    out = [{"assessment_name": ASSESSMENT_NAME, "trace_id": trace_id, "source": dict(_SOURCE),
            "feedback": {"value": verdict(result)}, "rationale": explanation(result),
            "metadata": {"answer_label": result.label.value, "judge": str(result.judge),
                         "claims": str(len(result.claims)), "flagged": str(len(flagged)),
                         "risk": f"{result_risk(result):.4f}", "rt4chart": __version__}}]
    if span_id:
        out += [{"assessment_name": _claim_name(c.index), "trace_id": trace_id, "span_id": span_id,
                 "source": dict(_SOURCE), "feedback": {"value": c.label.value},
                 "rationale": f"{c.text} ({why(c)})",
                 "metadata": {"claim": str(c.index + 1), "judge": str(result.judge), "rt4chart": __version__}}
                for c in flagged]
    return out


def _ours(assessment: Mapping[str, Any]) -> bool:
    source = assessment.get("source") or {}
    name = str(assessment.get("assessment_name") or "")
    return (source.get("source_id") == _SOURCE["source_id"] and source.get("source_type") == _SOURCE["source_type"]
            and (name == ASSESSMENT_NAME or name.startswith(_CLAIM_PREFIX)))


def _key(assessment: Mapping[str, Any]) -> tuple[str, str]:
    return str(assessment.get("assessment_name") or ""), str(assessment.get("span_id") or "")


@dataclass(frozen=True)
class WriteBack:
    """What ``MlflowTraces.write_back`` did: trace and claim assessments written (created or updated), and stale
    ones of rt4chart's deleted."""

    traces: int
    claims: int
    created: int
    updated: int
    deleted: int


def _since_ms(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"--since {value!r} is not an ISO 8601 time (e.g. 2026-01-31 or "
                          "2026-01-31T12:00:00+00:00)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


class _Rest:
    """A tracking server's REST API."""

    def __init__(self, url: str, token: Optional[str], auth: Optional[tuple[str, str]], timeout: float,
                 transport: Optional[httpx.BaseTransport]) -> None:
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, auth=auth, timeout=timeout,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, what: str, **kw: Any) -> dict:
        try:
            response = self._http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise MlflowError(f"cannot reach MLflow at {self.url} ({what}): {exc}") from exc
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code in (401, 403):
            raise MlflowError(f"MLflow at {self.url} refused {what} ({response.status_code}): it wants credentials "
                              "(MLFLOW_TRACKING_TOKEN, or MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD) "
                              "with the rights to do so")
        if response.status_code >= 400:
            if isinstance(body, Mapping) and body.get("error_code"):
                detail = f"{body['error_code']}: {body.get('message', '')}"
                if body["error_code"] == "ENDPOINT_NOT_FOUND":
                    detail += "; is it an MLflow 3 tracking server?"
            else:
                detail = response.text[:300].strip()
            raise MlflowError(f"MLflow at {self.url} refused {what} ({response.status_code}: {detail})")
        if not isinstance(body, Mapping):
            raise MlflowError(f"{self.url} does not answer {what} as MLflow's REST API does (a JSON object); is it an "
                              f"MLflow tracking server? It answered: {response.text[:200].strip()!r}")
        return dict(body)

    def experiment_id(self, name: str) -> str:
        body = self._request("GET", "/api/2.0/mlflow/experiments/get-by-name", f"the experiment {name!r}",
                             params={"experiment_name": name})
        experiment = body.get("experiment")
        if not isinstance(experiment, Mapping) or not experiment.get("experiment_id"):
            raise MlflowError(f"MLflow at {self.url} gave no experiment id for {name!r}: {body!r:.200}")
        return str(experiment["experiment_id"])

    def page(self, experiment_id: str, filter_string: str, size: int,
             token: Optional[str]) -> tuple[list[dict], Optional[str]]:
        request: dict[str, Any] = {"locations": [{"type": "MLFLOW_EXPERIMENT",
                                                  "mlflow_experiment": {"experiment_id": experiment_id}}],
                                   "max_results": size, "order_by": ["timestamp_ms DESC"]}
        if filter_string:
            request["filter"] = filter_string
        if token:
            request["page_token"] = token
        body = self._request("POST", "/api/3.0/mlflow/traces/search", f"the traces of experiment {experiment_id}",
                             json=request)
        infos = [info for info in body.get("traces") or [] if isinstance(info, Mapping)]
        return [{"info": dict(info), "spans": []} for info in infos], body.get("next_page_token") or None

    def fill_spans(self, traces: list[dict]) -> None:
        """The spans of ``traces`` (search gives their infos only): batchGet where the tracking store holds them,
        else the trace's ``traces.json`` artifact."""
        stored = [t for t in traces if (t["info"].get("tags") or {}).get("mlflow.trace.spansLocation")
                  in ("TRACKING_STORE", "ARCHIVE_REPO")]
        by_id = {t["info"]["trace_id"]: t for t in traces}
        in_store = {t["info"]["trace_id"] for t in stored}
        for start in range(0, len(stored), _BATCH):
            ids = [t["info"]["trace_id"] for t in stored[start:start + _BATCH]]
            body = self._request("GET", "/api/3.0/mlflow/traces/batchGet", f"the spans of {len(ids)} traces",
                                 params={"trace_ids": ids})
            for trace in body.get("traces") or []:
                trace_id = (trace.get("trace_info") or {}).get("trace_id")
                if trace_id in by_id:
                    by_id[trace_id]["spans"] = list(trace.get("spans") or [])
        for trace_id, trace in by_id.items():
            if trace_id not in in_store:
                body = self._request("GET", "/ajax-api/2.0/mlflow/get-trace-artifact",
                                     f"the spans of trace {trace_id}", params={"request_id": trace_id})
                trace["spans"] = list(body.get("spans") or [])

    def infos(self, trace_ids: list[str]) -> list[dict]:
        out: list[dict] = []
        for start in range(0, len(trace_ids), _PAGE):
            body = self._request("POST", "/api/3.0/mlflow/traces/batchGetInfos", "the traces' assessments",
                                 json={"trace_ids": trace_ids[start:start + _PAGE]})
            out += [dict(info) for info in body.get("trace_infos") or []]
        return out

    def create(self, assessment: dict) -> None:
        trace_id = quote(assessment["trace_id"], safe="")
        self._request("POST", f"/api/3.0/mlflow/traces/{trace_id}/assessments",
                      f"an assessment of trace {assessment['trace_id']}", json={"assessment": assessment})

    def update(self, assessment_id: str, assessment: dict) -> None:
        trace_id = quote(assessment["trace_id"], safe="")
        self._request("PATCH", f"/api/3.0/mlflow/traces/{trace_id}/assessments/{quote(assessment_id, safe='')}",
                      f"assessment {assessment_id} of trace {assessment['trace_id']}",
                      json={"assessment": {**assessment, "assessment_id": assessment_id},
                            "update_mask": "feedback,rationale,metadata"})

    def delete(self, trace_id: str, assessment_id: str) -> None:
        self._request("DELETE", f"/api/3.0/mlflow/traces/{quote(trace_id, safe='')}/assessments/"
                      f"{quote(assessment_id, safe='')}", f"assessment {assessment_id} of trace {trace_id}")


class _Local:
    """Any other tracking URI, through MLflow's own client (imported here: ``pip install 'rt4chart[mlflow]'``)."""

    def __init__(self, uri: str) -> None:
        try:
            from google.protobuf.json_format import MessageToDict, ParseDict
            from mlflow.entities import Assessment
            from mlflow.exceptions import MlflowException
            from mlflow.protos.assessments_pb2 import Assessment as AssessmentProto
            from mlflow.tracing.client import TracingClient
            from mlflow.tracking import MlflowClient
        except ImportError as exc:
            raise missing("mlflow", "mlflow") from exc
        self.url = uri
        self._to_dict, self._parse = MessageToDict, ParseDict
        self._assessment, self._proto, self._failure = Assessment, AssessmentProto, MlflowException
        self._client = MlflowClient(tracking_uri=uri)
        self._tracing = TracingClient(tracking_uri=uri)

    def close(self) -> None:
        pass

    def _call(self, what: str, call: Any, *args: Any, **kw: Any) -> Any:
        try:
            return call(*args, **kw)
        except self._failure as exc:
            raise MlflowError(f"MLflow at {self.url} refused {what}: {exc}") from exc

    def _info(self, info: Any) -> dict:
        return self._to_dict(info.to_proto(), preserving_proto_field_name=True)

    def experiment_id(self, name: str) -> str:
        experiment = self._call(f"the experiment {name!r}", self._client.get_experiment_by_name, name)
        if experiment is None:
            raise MlflowError(f"MLflow at {self.url} has no experiment named {name!r}")
        return str(experiment.experiment_id)

    def page(self, experiment_id: str, filter_string: str, size: int,
             token: Optional[str]) -> tuple[list[dict], Optional[str]]:
        found = self._call(f"the traces of experiment {experiment_id}", self._tracing.search_traces,
                           locations=[experiment_id], filter_string=filter_string or None, max_results=size,
                           order_by=["timestamp_ms DESC"], page_token=token, include_spans=True)
        return [{"info": self._info(t.info), "spans": [s.to_dict() for s in t.data.spans]} for t in found], \
            found.token or None

    def fill_spans(self, traces: list[dict]) -> None:
        pass  # search gave them

    def infos(self, trace_ids: list[str]) -> list[dict]:
        return [self._info(self._call(f"trace {t}", self._tracing.get_trace_info, t)) for t in trace_ids]

    def _entity(self, assessment: dict) -> Any:
        return self._assessment.from_proto(self._parse(assessment, self._proto()))

    def create(self, assessment: dict) -> None:
        self._call(f"an assessment of trace {assessment['trace_id']}", self._tracing.log_assessment,
                   assessment["trace_id"], self._entity(assessment))

    def update(self, assessment_id: str, assessment: dict) -> None:
        self._call(f"assessment {assessment_id}", self._tracing.update_assessment, assessment["trace_id"],
                   assessment_id, self._entity(assessment))

    def delete(self, trace_id: str, assessment_id: str) -> None:
        self._call(f"assessment {assessment_id}", self._tracing.delete_assessment, trace_id, assessment_id)


class MlflowTraces:
    """The traces of an MLflow tracking store at ``uri``: a tracking server (``http://HOST:PORT``, read over REST
    with httpx; ``token`` sent as a bearer token, ``auth`` a (user, password) pair for basic authentication) or any
    other tracking URI MLflow's client reads (``sqlite:///mlflow.db``, ``file:./mlruns``; needs the ``[mlflow]``
    extra). ``transport``: an httpx transport (tests pass a ``MockTransport``)."""

    def __init__(self, uri: str, *, token: Optional[str] = None, auth: Optional[tuple[str, str]] = None,
                 timeout: float = 30.0, transport: Optional[httpx.BaseTransport] = None) -> None:
        if not uri:
            raise ConfigError("the MLflow tracking URI is empty (http://HOST:PORT, sqlite:///FILE or file:PATH)")
        self.uri = uri
        self._store: Any = (_Rest(uri, token, auth, timeout, transport) if uri.startswith(("http://", "https://"))
                            else _Local(uri))

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> "MlflowTraces":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def traces(self, experiment: str, *, since: Optional[str] = None, max_traces: Optional[int] = None,
               page_size: int = _PAGE) -> list[dict]:
        """The traces of ``experiment`` (its name) that started at or after ``since`` (ISO 8601), the newest
        ``max_traces`` of them when given, oldest first; each ``{"info": TRACE_INFO, "spans": [...]}`` as
        ``rt4chart.integrations.mlflow.trace_records`` reads them."""
        if max_traces is not None and max_traces < 1:
            raise ConfigError(f"max_traces must be at least 1, got {max_traces}")
        experiment_id = self._store.experiment_id(experiment)
        since_ms = _since_ms(since)
        filter_string = f"trace.timestamp_ms >= {since_ms}" if since_ms is not None else ""
        found: list[dict] = []
        token: Optional[str] = None
        seen: set[str] = set()
        while max_traces is None or len(found) < max_traces:
            size = page_size if max_traces is None else min(page_size, max_traces - len(found))
            page, token = self._store.page(experiment_id, filter_string, size, token)
            found += page
            if not token:
                break
            if token in seen:
                raise MlflowError(f"MLflow at {self.uri} gave the trace page token {token!r} twice")
            seen.add(token)
        found = found[:max_traces] if max_traces is not None else found
        self._store.fill_spans(found)
        return sorted(found, key=lambda t: (str(t["info"].get("request_time") or ""), str(t["info"]["trace_id"])))

    def write_back(self, results: Iterable[ResultLine], answer_spans: Mapping[str, str]) -> WriteBack:
        """Write the assessments of ``results`` (an audit's output lines; error lines are left out): one ``rt4chart``
        feedback per trace, one ``rt4chart-claim-N`` per flagged claim on its answer span (``answer_spans``:
        ``rt4chart.integrations.mlflow.trace_records.answer_spans``; a trace not there gets its trace feedback only);
        rt4chart's earlier assessments of those traces are updated, or deleted when the result no longer has them."""
        audited = [line.result for line in results if line.result is not None]
        existing: dict[str, list[dict]] = {}
        for info in self._store.infos([str(r.id) for r in audited]):
            existing[str(info.get("trace_id"))] = [a for a in info.get("assessments") or [] if _ours(a)]
        traces = claims = created = updated = deleted = 0
        for result in audited:
            trace_id = str(result.id)
            old: dict[tuple[str, str], list[dict]] = {}
            for assessment in existing.get(trace_id, []):
                old.setdefault(_key(assessment), []).append(assessment)
            for assessment in assessments(result, answer_spans.get(trace_id)):
                same = old.pop(_key(assessment), [])
                if same:
                    self._store.update(str(same[0]["assessment_id"]), assessment)
                    updated += 1
                else:
                    self._store.create(assessment)
                    created += 1
                for extra in same[1:]:
                    self._store.delete(trace_id, str(extra["assessment_id"]))
                    deleted += 1
                if "span_id" in assessment:
                    claims += 1
                else:
                    traces += 1
            for stale in (a for group in old.values() for a in group):
                self._store.delete(trace_id, str(stale["assessment_id"]))
                deleted += 1
        return WriteBack(traces, claims, created, updated, deleted)
