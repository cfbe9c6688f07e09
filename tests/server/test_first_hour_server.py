"""Issue 42 item 5: the HTTP API says mistakes in the command line's words, reads a JSON body whatever its content
type, and its 413 always arrives (a raw socket that keeps sending a body larger than the limit)."""

from __future__ import annotations

import json
import socket
import threading

import pytest
from server_helpers import FakeAuditor, paper_record


def _error(resp, status: int, kind: str) -> dict:
    assert resp.status_code == status, resp.text
    err = resp.json()["error"]
    assert err["kind"] == kind, err
    return err


@pytest.mark.parametrize("body, message", [
    ({"id": "x", "context": "c", "answer": ""}, "invalid request: answer: is empty"),
    ({"id": "x", "context": "c", "answer": " \n"}, "invalid request: answer: is empty"),
    ({"id": "x", "context": "c"}, "invalid request: answer: is missing"),
    ({"id": "x", "context": [], "answer": "a"}, "invalid request: context: is empty"),
    ({"id": "x", "context": 3, "answer": "a"}, "invalid request: context: must be a string or a list of strings, "
                                               "got int"),
    ({"id": True, "context": "c", "answer": "a"}, "invalid request: id: must be a string or an integer, got bool"),
    ({"records": [{"context": "c", "answer": 3}]}, "invalid request: records[0].answer: must be a string, got int"),
    ([1, 2], 'invalid request: the body must be a JSON object (a record, or {"records": [...]}), got list'),
])
def test_validation_messages_are_the_command_lines_words(make_client, body, message):
    err = _error(make_client(FakeAuditor()).post("/v1/audit", json=body), 422, "validation")
    assert err["message"] == message
    assert "should" not in err["message"] and "pattern" not in err["message"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_json_body_is_read_whatever_its_content_type(make_client, content_type):
    fake = FakeAuditor()
    headers = {} if content_type is None else {"content-type": content_type}
    resp = make_client(fake).post("/v1/audit", content=json.dumps({"id": 1, "context": "c", "answer": "a"}),
                                  headers=headers)
    assert resp.status_code == 200, resp.text
    assert resp.json()["label"] == "entailed" and fake.calls == 1


def test_a_body_that_is_not_json_says_a_json_body_is_expected(make_client):
    fake = FakeAuditor()
    err = _error(make_client(fake).post("/v1/audit", content=b"context=c&answer=a",
                                        headers={"content-type": "application/x-www-form-urlencoded"}),
                 422, "bad_json")
    assert "a JSON body is expected" in err["message"] and "application/x-www-form-urlencoded" in err["message"]
    assert fake.calls == 0


def _oversize(port: int, size: int) -> bytes:
    """POST a body of ``size`` bytes with its Content-Length, sending it all (in a thread) while reading the reply;
    the reply's bytes, or b"" when the connection was reset first."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    head = (f"POST /v1/audit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n"
            "\r\n").encode()

    def send() -> None:
        try:
            sock.sendall(head)
            chunk, left = b" " * 65536, size
            while left > 0:
                left -= sock.send(chunk[:left])
        except OSError:
            pass  # the server may close once it has answered

    sender = threading.Thread(target=send)
    sender.start()
    data = b""
    try:
        while got := sock.recv(65536):
            data += got
    except ConnectionResetError:
        data = b""
    finally:
        sender.join(20)
        sock.close()
    return data


def test_the_413_arrives_to_a_client_that_keeps_sending(live_server):
    srv = live_server(max_body_bytes=20_000)
    replies = [_oversize(srv.port, size) for size in (100_000, 1_000_000, 5_000_000) * 6]
    assert all(r.startswith(b"HTTP/1.1 413") for r in replies), [r[:40] for r in replies]
    assert all(b'"payload_too_large"' in r for r in replies)
    # the server still serves
    sock_reply = _oversize(srv.port, 10)  # a small body that is not JSON: answered, not reset
    assert sock_reply.startswith(b"HTTP/1.1 422")
    import httpx

    assert httpx.post(f"{srv.url}/v1/audit", json=paper_record(), timeout=30).status_code == 200
