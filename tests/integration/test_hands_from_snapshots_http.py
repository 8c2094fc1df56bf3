"""Hand reads and table views answered from snapshots (service.application.snapshots) on
PostgreSQL say exactly what the full replay says, to every role: the same events, the
same hand, the same secrets withheld; and a table not cached loads from its snapshot."""
from __future__ import annotations

import pytest

from service.application import commands, snapshots
from service.application.application import application
from service.bootstrap import create_app
from service.config import Config
from tests.integration.conftest import ADMIN, ADMIN_KEY, key_for, register_player

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}
HANDS = 5


@pytest.fixture
def played(client):
    """An auto-deal table after HANDS hands (folds and calls), its sixth under way."""
    players = [register_player(client, name) for name in ("Ann", "Bob", "Cat")]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "auto_deal": True,
        "seats": [{"player_id": p, "stack": 10000} for p in players]})
    table_id = created.get_json()["id"]
    answer = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    while answer["hand"]["number"] <= HANDS:
        action = "call" if answer["legal"].get("call") and answer["hand"]["number"] % 2 else "fold"
        if not answer["legal"].get(action):
            action = "check"
        response = client.post(f"/v1/tables/{table_id}/actions",
                               json={"action": action, "player_id": answer["to_act"]},
                               headers={**ADMIN, "If-Match": f'"{answer["version"]}"'})
        assert response.status_code == 201, response.get_data(as_text=True)
        answer = response.get_json()
    return table_id, players


def _reads(client, table_id, viewers):
    """Every hand, the state inside the last closed one, and the table, as each viewer sees them."""
    inside = client.get(f"/v1/hands/{table_id}.{HANDS}", headers=ADMIN).get_json()["first_version"] + 3
    return {(name, path): client.get(path, headers=headers).get_json()
            for name, headers in viewers.items()
            for path in [*(f"/v1/hands/{table_id}.{n}" for n in range(1, HANDS + 2)),
                         f"/v1/hands/{table_id}.{HANDS}/state?at={inside}", f"/v1/tables/{table_id}"]}


def test_every_read_from_snapshots_equals_the_full_replay_for_every_role(client, played, monkeypatch,
                                                                           database_url):
    table_id, players = played
    viewers = {"admin": ADMIN, "spectator": key_for(client, "spectator"),
               "ann": key_for(client, "player", players[0])}
    from_snapshots = _reads(client, table_id, viewers)
    assert from_snapshots[("admin", f"/v1/hands/{table_id}.{HANDS + 1}")]["over"] is False

    monkeypatch.setattr(snapshots, "SCHEMA", "table-state/0/no-such-code")  # none is used
    other_process = create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()
    assert _reads(other_process, table_id, viewers) == from_snapshots


def test_the_live_hand_read_withholds_its_deck_and_salt_from_players(client, played):
    table_id, players = played
    live = client.get(f"/v1/hands/{table_id}.{HANDS + 1}",
                      headers=key_for(client, "player", players[1])).get_json()
    by_type = {e["type"]: e for e in live["events"]}
    assert by_type["HandStarted"]["data"]["deck"] is None
    assert by_type["HandOpened"]["data"]["salt"] is None


def test_a_table_not_cached_loads_from_its_newest_snapshot(client, played, postgres_store, monkeypatch):
    table_id, _ = played
    stream = commands.table_stream(table_id)
    newest = postgres_store.newest_snapshot(stream, snapshots.SCHEMA)
    assert newest is not None and newest.version > 1
    tables = application(postgres_store).tables  # another process: nothing cached
    reads = []
    read_from_snapshot = postgres_store.read_from_snapshot

    def counted(*args, **kwargs):
        reads.append(read_from_snapshot(*args, **kwargs))
        return reads[-1]

    monkeypatch.setattr(postgres_store, "read_from_snapshot", counted)
    loaded = tables.load(stream)
    (found, events), = reads
    assert found == newest and events[0].version == newest.version + 1
    assert loaded.version == events[-1].version == postgres_store.stream_version(stream)
