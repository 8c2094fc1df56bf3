"""Palace Poker tables over HTTP: settings validated, palace cards seen by their owner only."""
from __future__ import annotations

import secrets

import pytest

from service.app import create_app
from service.config import Config

pytestmark = pytest.mark.integration

ADMIN_KEY = "palace-admin-" + secrets.token_hex(8)
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}


@pytest.fixture(scope="module")
def client(database_url):
    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()


def key_for(client, role, player_id=None):
    body = {"role": role} if player_id is None else {"role": role, "player_id": player_id}
    return {"Authorization": f"Bearer {client.post('/v1/keys', json=body, headers=ADMIN).get_json()['key']}"}


def test_palace_settings_need_the_bets(client):
    player = client.post("/v1/players", json={"name": "X"}, headers=ADMIN).get_json()["id"]
    other = client.post("/v1/players", json={"name": "Y"}, headers=ADMIN).get_json()["id"]
    refused = client.post("/v1/tables", headers=ADMIN, json={"game": "palace", "settings": {"small_bet": 10},
                                                             "seats": [{"player_id": player, "stack": 100},
                                                                       {"player_id": other, "stack": 100}]})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_settings"


def test_a_player_sees_their_own_palace_and_nobody_elses(client):
    players = [client.post("/v1/players", json={"name": n}, headers=ADMIN).get_json()["id"] for n in "ABC"]
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "seats": [{"player_id": p, "stack": 200} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    palaces = {s["player_id"]: s["cards"] for s in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]}
    assert all(cards and len(cards) == 6 for cards in palaces.values())
    viewer = players[0]
    headers = key_for(client, "player", viewer)
    seen = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()
    assert {s["player_id"]: s["cards"] for s in seen["seats"]} == {p: (palaces[p] if p == viewer else None) for p in players}
    for event in client.get(f"/v1/tables/{table_id}/events", headers=headers).get_json()["events"]:
        if event["type"] == "PalaceCardsDealt" and event["data"]["player"] != viewer:
            assert event["data"]["cards"] is None
        if event["type"] == "PalaceDeckShuffled":
            assert event["data"]["order"] is None
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    assert legal.get_json()["legal"]["stay"] is True
    stay = client.post(f"/v1/tables/{table_id}/actions", json={"action": "stay"},
                       headers={**key_for(client, "player", legal.get_json()["to_act"]), "If-Match": legal.headers["ETag"]})
    assert stay.status_code == 201 and stay.get_json()["events"][0]["type"] == "Stayed"
