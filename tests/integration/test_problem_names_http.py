"""Problem documents about a player name them beside their id (issue 16 "Names"): the
refusal's `numbers` carry `player_name` (and `to_act_player_name`) next to the ids, and the
detail says the names people know instead of the ids."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player, register_players
from tests.integration.test_tournaments_http import register, schedule

pytestmark = pytest.mark.integration


def test_an_action_out_of_turn_names_who_tried_and_whose_turn_it_is(client):
    ann, bob = register_players(client, "Annabel", "Roberto")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10},
        "seats": [{"player_id": p, "stack": 500} for p in (ann, bob)]}).get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    to_act = legal.get_json()["to_act"]
    waiting = bob if to_act == ann else ann
    names = {ann: "Annabel", bob: "Roberto"}
    refused = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                          headers={**key_for(client, "player", waiting), "If-Match": legal.headers["ETag"]})
    body = assert_problem(refused, 422, "not_your_turn")
    numbers = body["numbers"]
    assert numbers["player"] == waiting and numbers["player_name"] == names[waiting]
    assert numbers["to_act_player"] == to_act and numbers["to_act_player_name"] == names[to_act]
    assert names[to_act] in body["detail"] and to_act not in body["detail"], body["detail"]


def test_registering_twice_names_the_player(client):
    tournament_id = schedule(client, starts_in_s=3600)
    ann = register_player(client, "Ottilie")
    register(client, tournament_id, ann)
    body = assert_problem(register(client, tournament_id, ann), 422, "already_registered")
    assert body["numbers"] == {"player": ann, "player_name": "Ottilie"}
    assert body["detail"] == "player Ottilie is already registered"


def test_a_player_without_a_seat_is_named(client):
    ann, bob, cat = register_players(client, "Ulrike", "Viktor", "Wanda")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10},
        "seats": [{"player_id": p, "stack": 500} for p in (ann, bob)]}).get_json()["id"]
    refused = client.post(f"/v1/tables/{table_id}/absences", json={"player_id": cat}, headers=ADMIN)
    body = assert_problem(refused, 422, "not_seated")
    assert body["numbers"] == {"player": cat, "player_name": "Wanda"} and "Wanda" in body["detail"]
