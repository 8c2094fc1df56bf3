"""One JSON log line per request, and the request id shared by the line, the response's
X-Request-Id and the problem document (issue 19)."""
from __future__ import annotations

import json
import logging

import pytest

from service.adapters import logs
from service.config import Config
from tests.integration.conftest import ADMIN, key_for


def _request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "cardroom.requests"]


def test_a_problems_request_id_is_the_one_in_its_log_line_and_header(client, caplog):
    caplog.set_level(logging.INFO, logger="cardroom.requests")
    spectator = key_for(client, "spectator")

    response = client.post("/v1/players", json={"name": "Ann"}, headers=spectator)

    assert response.status_code == 403
    problem = response.get_json()
    line = _request_lines(caplog)[-1]
    assert problem["request_id"] == response.headers["X-Request-Id"] == line.fields["request_id"]
    assert line.fields["status"] == 403
    assert (line.fields["method"], line.fields["path"]) == ("POST", "/v1/players")
    assert line.fields["role"] == "spectator" and line.fields["key_id"]
    assert line.fields["duration_ms"] >= 0


def test_a_sane_client_request_id_is_kept_and_a_hostile_one_replaced(client, caplog):
    caplog.set_level(logging.INFO, logger="cardroom.requests")

    kept = client.get("/v1/players/nobody", headers={**ADMIN, "X-Request-Id": "front-42.a"})
    replaced = client.get("/v1/players/nobody", headers={**ADMIN, "X-Request-Id": "x\" forged=1"})

    assert kept.get_json()["request_id"] == kept.headers["X-Request-Id"] == "front-42.a"
    assert replaced.headers["X-Request-Id"] != "x\" forged=1"
    assert len(replaced.headers["X-Request-Id"]) == 32
    first, second = _request_lines(caplog)[-2:]
    assert first.fields["player_id"] == "nobody" and first.fields["key_id"] == "CARDROOM_ADMIN_KEY"
    assert second.fields["request_id"] == replaced.headers["X-Request-Id"]


def test_the_json_formatter_writes_the_fields_at_the_top_level(client, caplog):
    caplog.set_level(logging.INFO, logger="cardroom.requests")
    client.get("/healthz")

    line = json.loads(logs.formatter_for(Config(log_format="json")).format(_request_lines(caplog)[-1]))

    assert line["level"] == "INFO" and line["logger"] == "cardroom.requests"
    assert (line["path"], line["route"], line["role"]) == ("/healthz", "/healthz", None)
    assert line["request_id"] and line["time"].endswith("+00:00")
