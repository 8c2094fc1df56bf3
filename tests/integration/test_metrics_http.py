"""`/metrics` in Prometheus' text format counts what happened (issue 19)."""
from __future__ import annotations

import uuid

from prometheus_client.parser import text_string_to_metric_families

from tests.corpus import PHH
from tests.integration.conftest import ADMIN, register_players, unique_to_test

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def _samples(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.get_data(as_text=True))
            for s in family.samples}


def _value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_version_conflict_is_counted_after_it_happens(client):
    players = register_players(client, "Ann", "Bob")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": p, "stack": 10000} for p in players],
    }).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", headers={**ADMIN, "If-Match": '"1"'}).status_code == 201
    before = _samples(client)

    stale = client.post(f"/v1/tables/{table_id}/hands", headers={**ADMIN, "If-Match": '"1"'})

    assert stale.status_code == 409
    after = _samples(client)
    conflicts = "cardroom_version_conflicts_total"
    assert _value(after, conflicts, at="request") == _value(before, conflicts, at="request") + 1
    route = {"route": "/v1/tables/<string:table_id>/hands", "method": "POST"}
    assert _value(after, "cardroom_http_request_duration_seconds_count", status="409", **route) \
        == _value(before, "cardroom_http_request_duration_seconds_count", status="409", **route) + 1


def test_an_idempotent_replay_is_counted_and_appends_are_not_counted_twice(client):
    key = {"Idempotency-Key": uuid.uuid4().hex, "Content-Type": "application/toml"}
    hand = unique_to_test((PHH / "wsop/2023/43/5/63.phh").read_bytes()).encode()  # kept once per content
    before = _samples(client)

    first = client.post("/v1/hand-histories?store=true", data=hand, headers={**ADMIN, **key})
    again = client.post("/v1/hand-histories?store=true", data=hand, headers={**ADMIN, **key})

    assert first.status_code == again.status_code == 201
    assert again.get_json()["id"] == first.get_json()["id"]
    after = _samples(client)
    assert _value(after, "cardroom_idempotent_replays_total") == _value(before, "cardroom_idempotent_replays_total") + 1
    assert _value(after, "cardroom_appends_total") == _value(before, "cardroom_appends_total") + 1
    assert _value(after, "cardroom_events_appended_total") \
        == _value(before, "cardroom_events_appended_total") + first.get_json()["version"]


def test_readiness_and_the_pool_are_gauges(client):
    samples = _samples(client)
    assert _value(samples, "cardroom_dependency_up", dependency="database") == 1.0
    # The test app has no broker: readiness is degraded, as /healthz says.
    assert _value(samples, "cardroom_health", status="degraded") == 1.0
    assert _value(samples, "cardroom_health", status="ok") == 0.0
    assert client.get("/healthz").get_json()["status"] == "degraded"
    assert ("cardroom_db_pool_connections", (("state", "open"),)) in samples
