"""Palace Poker tables over HTTP: settings validated, palace cards seen by their owner only."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players

pytestmark = pytest.mark.integration


def test_palace_settings_need_the_bets(client):
    player, other = register_players(client, "X", "Y")
    refused = client.post("/v1/tables", headers=ADMIN, json={"game": "palace", "settings": {"small_bet": 10},
                                                             "seats": [{"player_id": player, "stack": 100},
                                                                       {"player_id": other, "stack": 100}]})
    assert_problem(refused, 422, "invalid_settings")


def test_a_player_sees_their_own_palace_and_nobody_elses(client):
    players = register_players(client, *"ABC")
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


def test_a_seat_without_chips_is_refused_naming_the_player_and_the_stack(client):
    player, other = register_players(client, "Stackless Sam", "Stackless Sue")
    refused = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "seats": [{"player_id": player}, {"player_id": other}]})
    problem = assert_problem(refused, 422, "invalid_table")
    assert problem["detail"] == "seat of Stackless Sam needs a stack (or settings.starting_chips) above 0"
    assert problem["numbers"] == {"player_id": player, "player_name": "Stackless Sam", "stack": None}
