"""The per-process table cache is a speed-up, never a source of truth: when another process
appends to a table behind this one's back, a write at the version this process last saw is
a 409 and nothing is written, and the next read shows the other process's event."""
from __future__ import annotations

import pytest

from domain.live import table_events
from domain.records import to_record
from service.adapters.store.base import NewEvent
from service.application import commands
from tests.integration.conftest import ADMIN, assert_problem, register_players

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def test_a_write_from_another_process_makes_this_process_stale_cache_answer_409(client, postgres_store):
    ann, bob, cat = register_players(client, "Ann", "Bob", "Cat")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": p, "stack": 10000} for p in (ann, bob, cat)]})
    table_id = created.get_json()["id"]
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    seen = started.get_json()["version"]  # this process's cache is at this version now

    # Another process (here: a direct append, not through this process's cache) acts first.
    type_name, data = to_record(table_events.PlayerSatOut(seat=2, player_id=cat, reason="requested"))
    postgres_store.append(commands.table_stream(table_id), seen, [NewEvent(type_name, data)])

    stale = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call", "player_id": ann},
                        headers={**ADMIN, "If-Match": str(seen)})
    problem = assert_problem(stale, 409, "version_conflict")
    assert str(seen) in problem["detail"] and str(seen + 1) in problem["detail"]
    assert postgres_store.stream_version(commands.table_stream(table_id)) == seen + 1

    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN)
    assert view.headers["ETag"] == f'"{seen + 1}"'
    assert next(s for s in view.get_json()["seats"] if s["player_id"] == cat)["sitting_out"] is True
    fresh = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call", "player_id": ann},
                        headers={**ADMIN, "If-Match": str(seen + 1)})
    assert fresh.status_code == 201, fresh.get_data(as_text=True)
