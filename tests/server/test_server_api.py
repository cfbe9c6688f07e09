"""Every route and every error of the HTTP service, through FastAPI's TestClient (lifespan included)."""

from __future__ import annotations

import json
import re
import sys
import types

import pytest
from server_helpers import FakeAuditor, paper_record

from rt4chart.errors import ConfigError, InputError, JudgeError
from rt4chart.server import ServerSettings
from rt4chart.types import AuditResult


def _error(resp, status: int, kind: str) -> dict:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}
    assert body["error"]["status"] == status and body["error"]["kind"] == kind
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


# -- service routes ---------------------------------------------------------------------------------------------
def test_healthz_and_info_report_the_judge_built_at_startup(make_client):
    client = make_client()
    assert client.get("/healthz").json() == {"status": "ok"}
    info = client.get("/v1/info").json()
    assert info["judge"] == "lexical" and info["decomposer"] == "rule"
    assert info["config"] == {"window": 25, "overlap": 10, "global_verification": True}
    assert info["versions"]["rt4chart"] and info["versions"]["fastapi"]
    assert info["limits"]["max_records"] == 100 and info["auth"] is False
    assert info["gate"] is False and "disabled" in info["gate_error"]
    assert client.app.state.auditor is not None
    auditor = client.app.state.auditor
    client.get("/healthz")
    assert client.app.state.auditor is auditor  # built once, not per request


def test_web_page_is_self_contained_and_docs_are_served(make_client):
    client = make_client()
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert 'id="audit-form"' in html and "window.RT4" in html
    assert not re.search(r"""(src|href)=["']?https?:""", html)  # nothing fetched from elsewhere
    assert 'id="token-row" hidden' in html
    schema = client.get("/openapi.json").json()
    assert {"/v1/audit", "/v1/triage", "/v1/info", "/healthz"} <= set(schema["paths"])
    assert "/" not in schema["paths"]
    assert client.get("/docs").status_code == 200


def test_unknown_route_and_wrong_method_are_structured(make_client):
    client = make_client(FakeAuditor())
    _error(client.get("/nope"), 404, "not_found")
    _error(client.get("/v1/audit"), 405, "method_not_allowed")


def test_not_ready_before_startup_is_503():
    from server_helpers import TestClient

    from rt4chart.server import create_app

    client = TestClient(create_app(ServerSettings(judge="lexical")))  # not entered: the lifespan has not run
    _error(client.get("/healthz"), 503, "not_ready")
    _error(client.post("/v1/audit", json=paper_record()), 503, "not_ready")


def test_owned_judge_is_closed_at_shutdown(make_client):
    fake = FakeAuditor()
    client = make_client(fake, owns_auditor=True)
    assert client.get("/healthz").status_code == 200
    client.__exit__(None, None, None)
    assert fake.judge.closed and client.app.state.auditor is None


def test_unknown_judge_fails_at_startup():
    from rt4chart.server._app import build_auditor

    with pytest.raises(ConfigError):
        build_auditor(ServerSettings(judge="nope"))


def test_the_local_judge_runs_with_or_without_its_tagger():
    from rt4chart.server._app import build_auditor

    assert build_auditor(ServerSettings(judge="local")).judge.semantic
    assert not build_auditor(ServerSettings.from_env({}, judge="local", no_tagger=True)).judge.semantic


# -- /v1/audit --------------------------------------------------------------------------------------------------
def test_audit_paper_example_with_the_offline_judge(make_client):
    client = make_client()
    rec = paper_record()
    resp = client.post("/v1/audit", json=rec)
    assert resp.status_code == 200, resp.text
    out = resp.json()
    AuditResult.model_validate(out)  # the documented output record
    assert out["id"] == "paper-figure-1" and out["context"] == rec["context"] and out["judge"] == "lexical"
    assert len(out["claims"]) == 5
    assert out["hallucinated"] is True and out["label"] in {"contradicted", "baseless"}
    labels = {c["label"] for c in out["claims"]}
    assert "entailed" in labels and labels & {"contradicted", "baseless"}
    for claim in out["claims"]:
        for span in claim["answer_spans"]:
            assert 0 <= span["start"] < span["end"] <= len(rec["answer"])
        for ev in claim["evidence"]:
            assert rec["context"][ev["start"]:ev["end"]] == ev["text"]
    trial = next(c for c in out["claims"] if "14 days" in c["text"])
    assert trial["label"] == "entailed" and "14 days" in trial["evidence"][0]["text"]
    assert out["config"]["task"] == "qa"


def test_audit_batch_keeps_order_and_isolates_bad_records(make_client):
    class Picky(FakeAuditor):  # the record validator rejects what the schema cannot express
        async def audit(self, record, *, index=None):
            if record["id"] == "bad":
                raise InputError("is not what we want", record="bad", field="answer")
            return await super().audit(record, index=index)

    client = make_client(Picky())
    batch = {"records": [{"id": "x", "context": "c", "answer": "a"}, {"id": "bad", "context": "c", "answer": "a"},
                         {"context": ["First passage.", "Second passage."], "answer": "First passage."}]}
    resp = client.post("/v1/audit", json=batch)
    assert resp.status_code == 200, resp.text
    results = resp.json()["results"]
    assert [r["id"] for r in results] == ["x", "bad", 2]  # a missing id becomes the position
    assert results[1] == {"id": "bad", "index": 1, "error": {
        "field": "answer", "message": "record 'bad', field 'answer': is not what we want", "kind": "input"}}
    assert results[2]["label"] == "entailed" and results[2]["context"] == "First passage.\n\nSecond passage."


def test_audit_batch_with_the_offline_judge(make_client):
    client = make_client()
    batch = {"records": [paper_record(), {"context": ["First passage.", "Second passage."],
                                          "answer": "First passage."}]}
    results = client.post("/v1/audit", json=batch).json()["results"]
    assert results[0]["id"] == "paper-figure-1" and results[0]["hallucinated"] is True
    assert results[1]["label"] == "entailed" and results[1]["context"] == "First passage.\n\nSecond passage."
    # A record the schema rejects (a blank answer) makes the whole request a 422 naming it.
    resp = client.post("/v1/audit", json={"records": [paper_record(), {"id": "empty", "context": "c", "answer": " "}]})
    assert resp.status_code == 422 and resp.json()["error"]["field"] == "records[1].answer"


def test_batch_isolates_a_crashing_record(make_client):
    class Flaky(FakeAuditor):
        async def audit(self, record, *, index=None):
            if record["id"] == "boom":
                raise JudgeError("backend exploded")
            return await super().audit(record, index=index)

    client = make_client(Flaky())
    resp = client.post("/v1/audit", json={"records": [{"id": "ok", "context": "c", "answer": "a"},
                                                      {"id": "boom", "context": "c", "answer": "a"}]})
    assert resp.status_code == 200
    ok, boom = resp.json()["results"]
    assert ok["label"] == "entailed"
    assert boom["error"]["kind"] == "internal" and "backend exploded" in boom["error"]["message"]


def test_single_record_input_error_is_422_with_field(make_client):
    client = make_client(FakeAuditor(fail=InputError("is not valid UTF-8", record="x", field="answer")))
    err = _error(client.post("/v1/audit", json={"id": "x", "context": "c", "answer": "a"}), 422, "input")
    assert err["field"] == "answer" and "UTF-8" in err["message"]


def test_invalid_unicode_is_rejected_before_the_judge(make_client):
    fake = FakeAuditor()
    body = json.dumps({"id": "x", "context": "Some context.", "answer": "bad \udc80 bytes"})
    err = _error(make_client(fake).post("/v1/audit", content=body, headers={"content-type": "application/json"}),
                 422, "validation")
    assert err["field"] == "answer" and fake.calls == 0


def test_the_field_names_no_union_member(make_client):
    """pydantic puts the union member it tried ("constrained-str", "list[...]") in the location; the field doesn't."""
    client = make_client(FakeAuditor())
    for body, field in [({"records": [{"id": "x", "context": "c", "answer": "a"}, {"id": "y", "context": ""}]},
                         "records[1].context"),
                        ({"context": ["ok", " "], "answer": "a"}, "context"),
                        ({"id": 1.5, "context": "c", "answer": "a"}, "id")]:
        err = _error(client.post("/v1/audit", json=body), 422, "validation")
        assert err["field"] == field, (body, err)
        fields = [d["field"] for d in err["details"]]
        assert all(f.replace(".", "").replace("[", "").replace("]", "").isalnum() for f in fields), fields
    assert "context[1]" in fields_of(client.post("/v1/audit", json={"context": ["ok", " "], "answer": "a"}))


def fields_of(resp):
    return [d["field"] for d in resp.json()["error"]["details"]]


@pytest.mark.parametrize("body, field", [
    ({"context": 1, "answer": "a"}, "context"),
    ({"context": "c"}, "answer"),
    ({"id": True, "context": "c", "answer": "a"}, "id"),
    ({"context": "c", "answer": " \n\x1c "}, "answer"),
    ({"context": [], "answer": "a"}, "context"),
    ({"records": [{"context": "c", "answer": 3}]}, "records[0].answer"),
    ({"records": []}, "records"),
    ([1, 2], None),
])
def test_schema_violations_are_422_naming_the_field(make_client, body, field):
    err = _error(make_client(FakeAuditor()).post("/v1/audit", json=body), 422, "validation")
    if field is not None:
        assert err["field"].startswith(field)
    assert err["details"]


@pytest.mark.parametrize("raw", [b"{bad json", b'{"context": "c", "answer": "a"', b"\xff\xfe", b"\xc3\x08"])
def test_bad_json_is_422(make_client, raw):
    fake = FakeAuditor()
    _error(make_client(fake).post("/v1/audit", content=raw, headers={"content-type": "application/json"}),
           422, "bad_json")
    assert fake.calls == 0


def test_oversize_body_is_413_by_header_and_while_streaming(make_client):
    fake = FakeAuditor()
    client = make_client(fake, max_body_bytes=1000)
    big = {"id": 1, "context": "x" * 2000, "answer": "a"}
    err = _error(client.post("/v1/audit", json=big), 413, "payload_too_large")
    assert "1000 bytes" in err["message"]

    def chunks():  # no Content-Length: the limit is enforced while reading
        for _ in range(5):
            yield b" " * 400

    _error(client.post("/v1/audit", content=chunks(), headers={"content-type": "application/json"}),
           413, "payload_too_large")
    assert fake.calls == 0
    small = {"id": 1, "context": "x" * 100, "answer": "a"}
    assert client.post("/v1/audit", json=small).status_code == 200


def test_too_many_records_is_422_and_the_limit_is_in_the_schema(make_client):
    fake = FakeAuditor()
    client = make_client(fake, max_records=3)
    recs = [{"id": i, "context": "c", "answer": "a"} for i in range(4)]
    err = _error(client.post("/v1/audit", json={"records": recs}), 422, "too_many_records")
    assert err["field"] == "records" and "at most 3" in err["message"] and fake.calls == 0
    _error(client.post("/v1/triage", json={"records": recs}), 422, "too_many_records")
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["AuditBatch"]["properties"]["records"]["maxItems"] == 3
    assert len(client.post("/v1/audit", json={"records": recs[:3]}).json()["results"]) == 3


def test_slow_audit_times_out_with_504(make_client):
    client = make_client(FakeAuditor(delay=2.0), audit_timeout_s=0.05)
    _error(client.post("/v1/audit", json={"id": 1, "context": "c", "answer": "a"}), 504, "timeout")


def test_unexpected_crash_is_a_structured_500_without_internals(make_client):
    client = make_client(FakeAuditor(fail=RuntimeError("secret path /etc/x")))
    err = _error(client.post("/v1/audit", json={"id": 1, "context": "c", "answer": "a"}), 500, "internal")
    assert "secret" not in err["message"] and "RuntimeError" in err["message"]


def test_lone_surrogates_never_break_the_response(make_client):
    client = make_client()
    body = json.dumps({"id": "s", "context": "Paris is in France.", "answer": "Paris \ud800 is in France."})
    resp = client.post("/v1/audit", content=body.encode(), headers={"content-type": "application/json"})
    assert resp.status_code in (200, 422), resp.text
    resp.json()


# -- bearer token -----------------------------------------------------------------------------------------------
def test_bearer_token_guards_v1_routes_only(make_client):
    client = make_client(FakeAuditor(), token="s3cret")
    rec = {"id": 1, "context": "c", "answer": "a"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic s3cret"},
                    {"Authorization": "s3cret"}):
        resp = client.post("/v1/audit", json=rec, headers=headers)
        _error(resp, 401, "unauthorized")
        assert resp.headers["www-authenticate"] == "Bearer"
    _error(client.get("/v1/info"), 401, "unauthorized")
    _error(client.post("/v1/triage", json={"records": [rec]}), 401, "unauthorized")
    ok = {"Authorization": "Bearer s3cret"}
    assert client.post("/v1/audit", json=rec, headers=ok).status_code == 200
    assert client.get("/v1/info", headers=ok).json()["auth"] is True
    assert client.get("/healthz").status_code == 200
    page = client.get("/").text
    assert 'id="token-row">' in page  # the page asks for the token
    schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_token_is_read_from_the_environment_once():
    assert ServerSettings.from_env({"RT4CHART_API_TOKEN": "abc"}).token == "abc"
    assert ServerSettings.from_env({}).token is None
    assert ServerSettings.from_env({"RT4CHART_API_TOKEN": "abc"}, token="given").token == "given"
    with pytest.raises(ConfigError):
        ServerSettings.from_env({"RT4CHART_API_TOKEN": " "})
    with pytest.raises(ConfigError):
        ServerSettings(max_records=0)


# -- /v1/triage -------------------------------------------------------------------------------------------------
def test_triage_without_the_gate_is_a_structured_503(make_client, monkeypatch):
    monkeypatch.setitem(sys.modules, "rt4chart.gate", types.ModuleType("rt4chart.gate"))
    client = make_client(FakeAuditor(), gate=True)
    err = _error(client.post("/v1/triage", json={"records": [paper_record()]}), 503, "gate_unavailable")
    assert "gate" in err["message"]
    assert client.get("/v1/info").json()["gate"] is False


def test_triage_scores_records_in_order_with_the_gate(make_client, monkeypatch):
    seen = []

    def risk_scores(records):
        seen.extend(records)
        return [0.25 * (i + 1) for i in range(len(records))]

    gate = types.ModuleType("rt4chart.gate")
    gate.risk_scores = risk_scores
    monkeypatch.setitem(sys.modules, "rt4chart.gate", gate)
    client = make_client(FakeAuditor(), gate=True)
    recs = [paper_record(), {"context": ["a.", "b."], "answer": "a."}]
    resp = client.post("/v1/triage", json={"records": recs})
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"results": [{"id": "paper-figure-1", "risk": 0.25}, {"id": 1, "risk": 0.5}]}
    assert seen[1]["context"] == "a.\n\nb." and seen[0]["task"] == "qa"  # validated records reach the gate
    err = _error(client.post("/v1/triage", json={"records": [{"id": 1, "context": "c", "answer": " "}]}),
                 422, "validation")
    assert err["field"] == "records[0].answer"
    assert client.get("/v1/info").json()["gate"] is True


def test_triage_with_the_shipped_gate(make_client):
    from rt4chart.server._app import load_gate

    if load_gate()[0] is None:
        pytest.skip(f"the RAGScope gate is unavailable here: {load_gate()[1]}")
    client = make_client(FakeAuditor(), gate=True)
    supported = {"id": "ok", "context": "The trial lasts 14 days.", "answer": "The trial lasts 14 days."}
    invented = {"id": "bad", "context": "The trial lasts 14 days.", "answer": "Refunds take 90 weeks by fax."}
    resp = client.post("/v1/triage", json={"records": [supported, invented]})
    assert resp.status_code == 200, resp.text
    ok, bad = resp.json()["results"]
    assert (ok["id"], bad["id"]) == ("ok", "bad") and 0.0 <= ok["risk"] < bad["risk"] <= 1.0


def test_result_json_falls_back_for_text_pydantic_cannot_encode():
    from rt4chart.server._app import _result_bytes
    from rt4chart.types import Label

    ok = AuditResult(id=1, label=Label.ENTAILED, hallucinated=False, claims=(), context="c", answer="a")
    assert json.loads(_result_bytes(ok)) == ok.to_json()
    odd = ok.model_copy(update={"context": "bad \udc80 byte"})
    assert json.loads(_result_bytes(odd))["context"] == "bad \udc80 byte"
