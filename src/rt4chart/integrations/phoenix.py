"""Arize Phoenix over its REST API, with httpx alone (no Phoenix package at run time): read a project's spans, and
write rt4chart's verdicts back as annotations (``rt4chart audit --from phoenix URL --project P --write-back``).

- ``PhoenixClient.spans``: the project's spans, page after page (``GET /v1/projects/{project}/spans`` with ``limit``
  and ``cursor``, from ``start_time``); its ``data`` items are Phoenix span JSON, which ``rt4chart.io.traces.span_rows``
  reads as they are, one record per trace.
- ``trace_annotation`` and ``claim_annotations``: what one audit result writes back. One trace annotation per record
  (name ``rt4chart``, label ``hallucinated`` / ``supported`` / ``needs review``, score the risk, explanation the
  flagged claims with their reasons) and one span annotation per flagged claim on the LLM span the answer came from.
  Each has a fixed ``identifier``: Phoenix keys annotations by (name, trace or span, identifier), so a second run
  updates them rather than adding more.
- ``PhoenixClient.write_back``: posts them with ``sync=true`` (without it Phoenix drops an annotation of an unknown
  trace or span silently), in batches.

A server that cannot be reached, that is not Phoenix or that refuses a request raises ``PhoenixError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional
from urllib.parse import quote

import httpx

from .._version import __version__
from ..errors import ConfigError, PhoenixError
from ..io import ResultLine
from ..types import AuditResult, Label
from ._common import explanation, result_risk, verdict, why

__all__ = ["ANNOTATION_NAME", "PhoenixClient", "PhoenixError", "WriteBack", "claim_annotations", "verdict",
           "trace_annotation"]

#: the name of every annotation rt4chart writes
ANNOTATION_NAME = "rt4chart"
_TRACE_IDENTIFIER = "rt4chart"
_PAGE = 100  # spans a page
_BATCH = 100  # annotations a request


def trace_annotation(result: AuditResult) -> dict:
    """The trace annotation of one audit result (its ``id`` is the trace id)."""
    flagged = [c for c in result.claims if c.label != Label.ENTAILED]
    return {"name": ANNOTATION_NAME, "annotator_kind": "CODE", "trace_id": str(result.id),
            "identifier": _TRACE_IDENTIFIER,
            "result": {"label": verdict(result), "score": result_risk(result), "explanation": explanation(result)},
            "metadata": {"answer_label": result.label.value, "judge": result.judge, "claims": len(result.claims),
                         "flagged": len(flagged), "rt4chart": __version__}}


def claim_annotations(result: AuditResult, span_id: str) -> list[dict]:
    """One span annotation per flagged claim (a claim not entailed), on ``span_id``: the LLM span that gave the
    answer. A claim's identifier is its number, so a re-run updates the annotation of the same claim."""
    return [{"name": ANNOTATION_NAME, "annotator_kind": "CODE", "span_id": span_id,
             "identifier": f"rt4chart-claim-{c.index + 1}",
             "result": {"label": c.label.value, "score": c.score, "explanation": f"{c.text} ({why(c)})"},
             "metadata": {"claim": c.index + 1, "trace_id": str(result.id), "judge": result.judge,
                          "rt4chart": __version__}}
            for c in result.claims if c.label != Label.ENTAILED]


@dataclass(frozen=True)
class WriteBack:
    """What ``PhoenixClient.write_back`` wrote: trace annotations and span (claim) annotations."""

    traces: int
    spans: int


def _since(value: Optional[str]) -> Optional[str]:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
    except ValueError:
        raise ConfigError(f"--since {value!r} is not an ISO 8601 time (e.g. 2026-01-31 or "
                          "2026-01-31T12:00:00+00:00)") from None


class PhoenixClient:
    """A Phoenix server's REST API at ``url`` (``http://HOST:PORT``), with ``api_key`` sent as a bearer token when
    given. ``transport``: an httpx transport (tests pass a ``MockTransport``)."""

    def __init__(self, url: str, *, api_key: Optional[str] = None, timeout: float = 30.0,
                 transport: Optional[httpx.BaseTransport] = None) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"{url!r} is not a Phoenix URL (http://HOST:PORT)")
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "PhoenixClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _request(self, method: str, path: str, what: str, **kw: Any) -> Any:
        try:
            response = self._http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise PhoenixError(f"cannot reach Phoenix at {self.url} ({what}): {exc}") from exc
        if response.status_code in (401, 403):
            raise PhoenixError(f"Phoenix at {self.url} refused {what} ({response.status_code}): it wants an API key "
                               "(--phoenix-api-key or PHOENIX_API_KEY) with the rights to do so")
        if response.status_code >= 400:
            raise PhoenixError(f"Phoenix at {self.url} refused {what} ({response.status_code}: "
                               f"{response.text[:300].strip()})")
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, Mapping) or not isinstance(body.get("data"), list):
            raise PhoenixError(f"{self.url} does not answer {what} as Phoenix's REST API does (a JSON object with "
                               f"a data list); is it a Phoenix server? It answered: {response.text[:200].strip()!r}")
        return body

    def spans(self, project: str, *, since: Optional[str] = None, page_size: int = _PAGE) -> list[dict]:
        """Every span of ``project`` (its name or id) that started at or after ``since`` (ISO 8601), oldest first."""
        return sorted(self._pages(project, _since(since), page_size), key=lambda s: str(s.get("start_time") or ""))

    def _pages(self, project: str, since: Optional[str], page_size: int) -> Iterator[dict]:
        path = f"/v1/projects/{quote(project, safe='')}/spans"
        cursor: Optional[str] = None
        seen: set[str] = set()
        while True:
            params: dict[str, Any] = {"limit": page_size}
            if cursor is not None:
                params["cursor"] = cursor
            if since is not None:
                params["start_time"] = since
            body = self._request("GET", path, f"the spans of project {project!r}", params=params)
            yield from (item for item in body["data"] if isinstance(item, Mapping))
            cursor = body.get("next_cursor")
            if not cursor:
                return
            if cursor in seen:
                raise PhoenixError(f"Phoenix at {self.url} gave the span page cursor {cursor!r} twice")
            seen.add(cursor)

    def _post(self, path: str, annotations: list[dict], what: str) -> None:
        for start in range(0, len(annotations), _BATCH):
            batch = annotations[start:start + _BATCH]
            body = self._request("POST", path, what, params={"sync": "true"}, json={"data": batch})
            if len(body["data"]) != len(batch):
                raise PhoenixError(f"Phoenix at {self.url} stored {len(body['data'])} of {len(batch)} {what}")

    def write_back(self, results: Iterable[ResultLine], answer_spans: Mapping[str, str]) -> WriteBack:
        """Write the annotations of ``results`` (an audit's output lines; error lines are left out): one trace
        annotation per result, one span annotation per flagged claim on its trace's answer span (``answer_spans``:
        ``rt4chart.io.traces.answer_spans``; a trace not there gets its trace annotation only)."""
        audited = [line.result for line in results if line.result is not None]
        traces = [trace_annotation(result) for result in audited]
        claims = [a for result in audited if str(result.id) in answer_spans
                  for a in claim_annotations(result, answer_spans[str(result.id)])]
        self._post("/v1/trace_annotations", traces, "trace annotations")
        self._post("/v1/span_annotations", claims, "span annotations")
        return WriteBack(len(traces), len(claims))
