"""Errors the web server produces itself, before the app sees a request, are problem
documents like the app's (gunicorn would answer with its own HTML page)."""
from __future__ import annotations

import json
import socket

import pytest

pytestmark = pytest.mark.e2e


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(raw)
        answer = b"".join(iter(lambda: connection.recv(65536), b""))
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


@pytest.mark.parametrize("raw, status, code", [
    (b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    (b"GET /" + b"a" * 10_000, 414, "uri_too_long"),
    (b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 20_000 + b"\r\n\r\n", 431, "header_fields_too_large"),
    (b"GET /livez HTTP/1.1\r\nHost: x\r\n" + b"X-Many: c\r\n" * 200 + b"\r\n", 431, "header_fields_too_large"),
    (b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Nul: a\x00b\r\n\r\n", 400, "invalid_header"),
    (b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Bad\x01Name: a\r\n\r\n", 400, "invalid_header"),
    (b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Ctl: a\x7fb\r\n\r\n", 400, "invalid_header"),
    (b"GARBAGE\r\n\r\n", 400, "malformed_request"),
    (b"GET /livez HTTP/9.9\r\nHost: x\r\n\r\n", 400, "malformed_request"),
    (b"G\x01T /livez HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed_request"),
    (b"POST /v1/players HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "malformed_body"),
    (b"POST /v1/players HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "invalid_header"),
])
def test_the_servers_own_errors_are_problem_documents(server, raw, status, code):
    answered, headers, problem = exchange(server.port, raw)

    assert (answered, headers["content-type"]) == (status, "application/problem+json"), problem
    assert problem["status"] == status and problem["code"] == code
    assert problem["type"] == f"urn:cardroom:problem:{code}" and problem["detail"]
