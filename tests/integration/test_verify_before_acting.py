"""Verify before acting: the insider with the application's own database login (the
suite's app login, on a database of this module's own) inserts one `HandClosed` at a live
table's head, its SHA-256 link to the event before it correct, its MAC missing (or not the
chain key's), the stacks 99999999. The next read and the next write answer 409
`integrity_failure` naming the stream and the version, a cold load (another process) too;
the clock sweep passes it over and deals nothing, no hand is started on it; `/v1/status`
lists it and `/metrics` counts it. A forged snapshot row moves nothing that is served: it
is passed over (and counted) and the log replayed instead."""
from __future__ import annotations

import json
import logging
import re
import secrets
import time
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from service.adapters.store import trackings
from service.adapters.store.base import START, canonical_json, chained_hash, format_recorded_at
from service.application import commands, process_managers, snapshots, tournament_tables
from service.application.application import application
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, key_for, printed_status, register_player
from tests.integration.test_unreadable_tables import new_tournament
from workers import clock_tasks

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}
FORGED_STACK = 99999999


def new_app(database_url: str) -> Any:
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY))


@pytest.fixture(scope="module")
def app(own_database: tuple[str, str]) -> Any:
    return new_app(own_database[1])


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def live_table(client: Any) -> tuple[str, list[dict[str, str]], int]:
    """An auto-dealing two-seat table with a one-second action clock, its first hand
    folded (so the second is dealt, its clock running): (id, the players' keys, the one to
    act first, version)."""
    players = [register_player(client, name) for name in ("Ann", "Bob")]
    keys = [key_for(client, "player", p) for p in players]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "auto_deal": True, "action_clock_s": 1,
        "seats": [{"player_id": p, "stack": 10000} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert started.status_code == 201, started.get_data(as_text=True)
    to_act = started.get_json()["to_act"]
    folded = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                         headers={**keys[players.index(to_act)], "If-Match": f'"{started.get_json()["version"]}"'})
    assert folded.status_code == 201, folded.get_data(as_text=True)
    first = players.index(folded.get_json()["to_act"])
    keys = [keys[first], *keys[:first], *keys[first + 1:]]
    return table_id, keys, folded.get_json()["version"]


def forge_hand_closed(app_url: str, table_id: str, mac: str | None) -> int:
    """As the app's login: a copy of the last HandClosed, for the hand now being played,
    every stack 99999999, inserted at the head (forge_at_head). The version it is at."""
    with psycopg.connect(app_url) as insider:
        closed, hand_id = insider.execute(
            "SELECT c.data, o.metadata->>'hand_id' FROM events c, events o WHERE c.stream_id = %s"
            " AND c.type = 'HandClosed' AND o.stream_id = c.stream_id AND o.type = 'HandOpened'"
            " ORDER BY c.version DESC, o.version DESC LIMIT 1", (commands.table_stream(table_id),)).fetchone()
    data = json.loads(re.sub(r'"stack": \d+', f'"stack": {FORGED_STACK}', json.dumps(closed)))
    assert data != closed
    return forge_at_head(app_url, table_id, "HandClosed", data, {"hand_id": hand_id}, mac)


def forge_at_head(app_url: str, table_id: str, type_: str, data: dict[str, Any], metadata: dict[str, Any],
                  mac: str | None) -> int:
    """As the app's login: the event inserted at the table's head, its hash chained by
    chained_hash from the head's stored hash (a correct SHA-256 link), `mac` as given
    (None: none). The version it is at."""
    stream = commands.table_stream(table_id)
    with psycopg.connect(app_url, autocommit=True) as insider:
        head, head_hash, moment = insider.execute(
            "SELECT version, encode(hash, 'hex'), recorded_at FROM events WHERE stream_id = %s"
            " ORDER BY version DESC LIMIT 1", (stream,)).fetchone()
        version = head + 1
        hash_ = chained_hash(stream, version, type_, 2, canonical_json(data), canonical_json(metadata),
                             head_hash, format_recorded_at(moment))
        insider.execute(
            "INSERT INTO events (stream_id, version, type, schema_version, data, metadata, recorded_at, hash, mac)"
            " VALUES (%s, %s, %s, 2, %s, %s, %s, decode(%s, 'hex'), decode(%s, 'hex'))",
            (stream, version, type_, Jsonb(data), Jsonb(metadata), moment, hash_, mac))
    return version


def stacks(view: dict[str, Any]) -> list[int]:
    return [seat["stack"] for seat in view["seats"]]


def events_after(app_url: str, table_id: str, version: int) -> list[str]:
    with psycopg.connect(app_url) as reader:
        return [row[0] for row in reader.execute(
            "SELECT type FROM events WHERE stream_id = %s AND version > %s ORDER BY version",
            (commands.table_stream(table_id), version))]


@pytest.mark.parametrize("mac", [None, secrets.token_hex(32)], ids=["no-mac", "wrong-mac"])
def test_an_event_the_login_inserts_at_a_live_tables_head_is_refused_everywhere(app, client, own_database, mac,
                                                                                 tmp_path, monkeypatch):
    app_url = own_database[1]
    table_id, keys, version = live_table(client)  # keys[0]: the player to act
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).status_code == 200  # cached, verified
    warm = new_app(app_url).test_client()  # another process, the table cached before the forgery
    assert warm.get(f"/v1/tables/{table_id}", headers=ADMIN).status_code == 200
    forged = forge_hand_closed(app_url, table_id, mac)
    assert forged == version + 1
    stream = commands.table_stream(table_id)

    def refused(response: Any) -> None:
        problem = assert_problem(response, 409, "integrity_failure")
        assert problem["numbers"] == {"stream": stream, "version": forged}, problem
        assert "MAC" in problem["detail"]

    # The next read and the next write, from the cached state and from a cold load.
    # First a write in the warm process, which decides on its cached (verified) state and
    # meets the forged event at the version it appends at: checked, not a lost race.
    refused(warm.post(f"/v1/tables/{table_id}/actions", json={"action": "call"},
                      headers={**keys[0], "If-Match": f'"{version}"'}))
    refused(client.get(f"/v1/tables/{table_id}", headers=ADMIN))
    for key in keys:  # at the version the player last saw, and at the forged one
        for seen in (version, forged):
            refused(client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                                headers={**key, "If-Match": f'"{seen}"'}))
    refused(client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN))
    cold = new_app(app_url).test_client()
    refused(cold.get(f"/v1/tables/{table_id}", headers=ADMIN))
    refused(cold.get(f"/v1/tables/{table_id}/events", headers=ADMIN))
    refused(cold.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN))
    # The clocks pass it over: the running clock is not expired, nothing is dealt.
    resources = app.extensions["cardroom"]
    clock_tasks.sweep(resources.application, resources.pool, int(time.time() * 1000) + 60_000)
    assert events_after(app_url, table_id, version) == ["HandClosed"]
    # Listed with the version, and counted.
    status = client.get("/v1/status", headers=ADMIN).get_json()
    assert {"kind": "table", "id": table_id, "version": forged} in [
        {k: f[k] for k in ("kind", "id", "version")} for f in status["integrity_failures"]]
    assert all(u["id"] != table_id for u in status["unreadable"])
    printed = printed_status(app_url, tmp_path, monkeypatch)
    assert f"integrity failure: table {table_id} at version {forged}" in printed
    metrics = client.get("/metrics").get_data(as_text=True)
    counted = {line.split(" ")[0]: float(line.split(" ")[1]) for line in metrics.splitlines()
               if line.startswith("cardroom_integrity_failures_total{")}
    assert counted['cardroom_integrity_failures_total{found="new"}'] >= 1
    assert counted['cardroom_integrity_failures_total{found="again"}'] >= 3


def test_a_snapshot_the_login_inserts_moves_nothing_that_is_served(client, own_database):
    """A snapshot row at the head with every stack 99999999 and no MAC: a cold load passes
    it over for the genuine one before it and serves the log's stacks."""
    app_url = own_database[1]
    table_id, _, version = live_table(client)
    stream = commands.table_stream(table_id)
    served = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    # The stored body is encrypted under the data key, which the login never holds: the
    # forger writes a plain body (read as stored, as an old snapshot would be), shaped from
    # the genuine one as the application reads it.
    genuine = client.application.extensions["cardroom"].store.newest_snapshot(stream, snapshots.SCHEMA).body
    body = re.sub(r'"stacks":\[[\d,]+\]', f'"stacks":[{FORGED_STACK},{FORGED_STACK}]', genuine)
    assert body != genuine
    with psycopg.connect(app_url, autocommit=True) as insider:
        insider.execute("INSERT INTO snapshots (stream_id, schema, version, body) VALUES (%s, %s, %s, %s)",
                        (stream, snapshots.SCHEMA, version, body))

    cold = new_app(app_url).test_client()
    response = cold.get(f"/v1/tables/{table_id}", headers=ADMIN)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert stacks(response.get_json()) == stacks(served)
    assert FORGED_STACK not in stacks(response.get_json())
    metrics = cold.get("/metrics").get_data(as_text=True)
    assert any(line.startswith("cardroom_snapshots_passed_over_total ") and float(line.split()[1]) >= 1
               for line in metrics.splitlines())


def test_the_follower_parks_a_tournament_whose_table_fails_and_deals_nothing_on_it(own_store, own_database, caplog):
    """The forged event on a tournament's table: the follower's batch (a process that never
    read the table) leaves it out, parks the tournament with the version, and acts on the
    table no more; the other tournament goes on."""
    app = application(own_store)
    for tournament_id in ("tv-forged", "tv-going-on"):
        new_tournament(app, tournament_id)
        tournament_tables.advance(app, tournament_id, time.time())
    table_id = tournament_tables.table_id_for("tv-forged", 1)
    forged = forge_at_head(own_database[1], table_id, "ChipsAdjusted",
                           {"seat": 0, "player_id": "tv-forged-ann", "amount": FORGED_STACK, "change_id": 9,
                            "reason": "forged"}, {}, None)
    name = "verify-before-acting-test"
    with own_store.transaction():
        trackings.PostgresTracking().claim(name)
        trackings.PostgresTracking().move(name, START)
    follower = process_managers.TournamentFollower(application(new_store(own_database[1])),
                                                   trackings.PostgresTracking(), name=name)
    with caplog.at_level(logging.ERROR):
        for _ in range(3):
            follower.handle_batch()
    assert set(follower.unreadable) == {"tv-forged"}
    assert f"fails its integrity check at version {forged}" in follower.unreadable["tv-forged"]
    assert events_after(own_database[1], table_id, forged) == []
    going_on = commands.load_table(app, tournament_tables.table_id_for("tv-going-on", 1)).state
    assert going_on is not None and going_on.hands_played >= 1


def new_store(app_url: str) -> Any:
    """Another process's store on the database (keyed as the app is)."""
    from service.adapters.integrity import chain_signer
    from service.adapters.store.postgres import PostgresEventStore, open_pool
    from service.config import Config

    return PostgresEventStore(open_pool(app_url, max_size=2), signer=chain_signer(Config(database_url=app_url)))
