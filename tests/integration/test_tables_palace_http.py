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


def test_the_discard_pile_lies_face_down_for_the_players(client):
    # palace-poker.md: the discard pile is face down; everyone sees its size. A folded
    # palace goes there and stays hidden from the others (the floor sees the cards).
    players = register_players(client, "Pile A", "Pile B", "Pile C")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "seats": [{"player_id": p, "stack": 200} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    folder = legal.get_json()["to_act"]
    folded = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                         headers={**key_for(client, "player", folder), "If-Match": legal.headers["ETag"]})
    assert folded.status_code == 201, folded.get_json()
    pile = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["hand"]["discard_pile"]
    assert len(pile) == 4 and "??" not in pile
    other = next(p for p in players if p != folder)
    for headers in (key_for(client, "player", other), key_for(client, "spectator")):
        seen = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()["hand"]["discard_pile"]
        assert seen == ["??"] * 4
        assert client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["hand"]["discard_pile"] == ["??"] * 4
