"""Stalled clients against `make run`'s web server: each request is read whole in the
worker's event loop before a thread sees it, so connections that stop mid-request hold
no thread; the others are still served at once, and the stalled ones get a 408 problem
when their time is up."""
from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Server, start_gunicorn
from tests.e2e.test_concurrency import seated_table

pytestmark = pytest.mark.e2e

STALLED_EACH = 100
READ_TIMEOUT_S = 3.0
ANSWER_WITHIN_S = 1.0


@pytest.fixture(scope="module")
def server(database_url) -> Iterator[Server]:
    yield from start_gunicorn(database_url, {"CARDROOM_REQUEST_READ_TIMEOUT_S": str(READ_TIMEOUT_S)})


def stalled(port: int, payload: bytes) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(payload)
    return connection


def head(path: str, body_length: int, key: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {body_length}\r\n\r\n").encode()


def timed(server: Server, method: str, path: str, body: dict | None = None,
          headers: dict | None = None) -> tuple[int, dict, dict, float]:
    started = time.monotonic()
    status, answer, answer_headers = server.call(method, path, body, headers)
    return status, answer, answer_headers, time.monotonic() - started


def test_stalled_connections_hold_no_thread_and_are_answered_408_in_time(server):
    table_id, players = seated_table(server)
    key = server.admin["Authorization"].removeprefix("Bearer ")
    body = json.dumps({"action": "call"}).encode()
    path = f"/v1/tables/{table_id}/actions"
    opened = time.monotonic()
    connections = [stalled(server.port, head(path, len(body), key)) for _ in range(STALLED_EACH)]
    connections += [stalled(server.port, head(path, len(body), key) + body[: len(body) // 2])
                    for _ in range(STALLED_EACH)]
    connections += [stalled(server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n") for _ in range(STALLED_EACH)]

    slowest = 0.0
    for _ in range(5):
        status, health, _, took = timed(server, "GET", "/healthz")
        assert status in (200, 503) and health["database"] == "ok", health
        slowest = max(slowest, took)
    key_of = dict(players)
    for _ in range(len(players)):
        status, legal, headers, took = timed(server, "GET", f"/v1/tables/{table_id}/legal-actions",
                                             headers=server.admin)
        assert status == 200
        slowest = max(slowest, took)
        action = {"action": "check"} if legal["legal"]["check"] else {"action": "call"}
        status, answer, _, took = timed(server, "POST", path, action,
                                        {**key_of[legal["to_act"]], "If-Match": headers["ETag"]})
        assert status == 201, answer
        slowest = max(slowest, took)
    assert time.monotonic() - opened < READ_TIMEOUT_S, "the checks ran after the stalled requests timed out"
    assert slowest < ANSWER_WITHIN_S, f"slowest answer beside {len(connections)} stalled connections: {slowest:.2f} s"

    for connection in connections:
        raw = connection.recv(4096)
        status_line, _, rest = raw.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 408 Request Timeout", raw
        problem = json.loads(rest.partition(b"\r\n\r\n")[2])
        assert problem["code"] == "request_timeout"
        connection.close()
    waited = time.monotonic() - opened
    assert READ_TIMEOUT_S <= waited < READ_TIMEOUT_S + 3, waited

    status, _, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
    assert status == 200


def test_a_request_sent_byte_by_byte_is_served(server):
    """Slow but steady is fine: the worker only answers once the whole request is there."""
    request = b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        for byte in request:
            connection.sendall(bytes([byte]))
            time.sleep(0.005)
        answer = b"".join(iter(lambda: connection.recv(4096), b""))
    assert answer.startswith(b"HTTP/1.1 200 OK"), answer


def test_pipelined_and_chunked_requests_are_served_in_order(server):
    chunked_body = json.dumps({"name": "Chunky"}).encode()
    key = server.admin["Authorization"]
    requests = (
        b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"
        + f"POST /v1/players HTTP/1.1\r\nHost: x\r\nAuthorization: {key}\r\n".encode()
        + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n%s\r\n0\r\n\r\n" % (len(chunked_body), chunked_body)
        + b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(requests)
        answer = b"".join(iter(lambda: connection.recv(4096), b""))
    assert re.findall(rb"HTTP/1\.1 (\d{3}) ", answer) == [b"200", b"201", b"200"], answer
    player_id = re.search(rb'"id":\s*"([^"]+)"', answer).group(1).decode()
    assert server.call("GET", f"/v1/players/{player_id}", headers=server.admin)[1]["name"] == "Chunky"


def test_a_body_over_the_limit_is_refused_unread(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 2000000000\r\n\r\n{")
        answer = b"".join(iter(lambda: connection.recv(4096), b""))
    head_part, _, body = answer.partition(b"\r\n\r\n")
    assert head_part.startswith(b"HTTP/1.1 413 "), answer
    assert b"Content-Type: application/problem+json" in head_part
    assert json.loads(body)["code"] == "payload_too_large"
