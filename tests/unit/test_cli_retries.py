"""The command line sends every write with an Idempotency-Key, and sends it again with the
same key while the service answers 503 (a failover) or 409 idempotency_request_in_progress:
the retry answers the first outcome or performs the write once. Reads and other refusals
are not retried."""
from __future__ import annotations

import json

import pytest

from service.cli import client as cli_client
from service.cli.client import Answer, ApiError, Client


class Recorded:
    """A transport answering from a script, keeping what it was sent."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.sent: list[tuple[str, dict[str, str]]] = []

    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Answer:
        self.sent.append((method, dict(headers)))
        return self.answers.pop(0)


def problem(status: int, code: str) -> Answer:
    return Answer(status, json.dumps({"status": status, "code": code, "detail": code}).encode(),
                  {"Retry-After": "1", "Content-Type": "application/problem+json"})


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    monkeypatch.setattr(cli_client.time, "sleep", lambda _s: None)


def test_a_write_is_sent_again_with_the_same_key_until_the_failover_is_over():
    transport = Recorded(problem(503, "database_unavailable"), problem(409, "idempotency_request_in_progress"),
                         Answer(201, b'{"id": "p1"}'))
    assert Client(transport).call("POST", "/v1/players", json_body={"name": "Ann"}).json() == {"id": "p1"}
    keys = {headers["Idempotency-Key"] for _, headers in transport.sent}
    assert len(transport.sent) == 3 and len(keys) == 1 and keys.pop().startswith("cli-")


def test_a_callers_own_key_is_kept():
    transport = Recorded(Answer(201, b"{}"))
    Client(transport).call("POST", "/v1/hand-histories", text="x", headers={"Idempotency-Key": "hand-1"})
    assert transport.sent[0][1]["Idempotency-Key"] == "hand-1"


def test_a_version_conflict_and_reads_are_not_retried():
    transport = Recorded(problem(409, "version_conflict"))
    with pytest.raises(ApiError, match="version_conflict"):
        Client(transport).call("POST", "/v1/tournaments/t/start", json_body={})
    transport = Recorded(problem(503, "database_unavailable"))
    with pytest.raises(ApiError, match="database_unavailable"):
        Client(transport).call("GET", "/v1/status")
    assert "Idempotency-Key" not in transport.sent[0][1]


def test_retries_stop_after_a_minute(monkeypatch):
    clock = iter(range(0, 1000, 20))
    monkeypatch.setattr(cli_client.time, "monotonic", lambda: next(clock))
    transport = Recorded(*[problem(503, "database_unavailable")] * 10)
    with pytest.raises(ApiError, match="database_unavailable"):
        Client(transport).call("POST", "/v1/players", json_body={"name": "Ann"})
    assert len(transport.sent) == 3  # at 0 s, then after 20 and 40 s; at 60 s it gives up
