"""The fixed-limit 50% rule at a live table and in /v1/rulings/betting, Robert's Rules'
examples verbatim (Betting and Raising 6): "a $15 all-in bet on a $20 round is raised to
$35"; by the same rule, a $20 bet raised all-in to $30 is raised to $50."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player

pytestmark = pytest.mark.integration

LIMIT_20 = {"structure": "fixed-limit", "small_blind": 10, "big_blind": 20,
            "small_bet": 20, "big_bet": 40}


def limit_table(client, stacks: dict[str, int]) -> tuple[str, list[dict]]:
    """A 20/40 fixed-limit table, its first hand dealt; the first seat has the button,
    the second posts the small blind, the third the big blind."""
    players = [register_player(client, name) for name in stacks]
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "settings": {}, "betting": LIMIT_20,
        "seats": [{"player_id": p, "stack": s} for p, s in zip(players, stacks.values())],
        "ranked": False, "action_clock_s": None})
    assert response.status_code == 201, response.get_data(as_text=True)
    table_id = response.get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    return table_id, [key_for(client, "player", p) for p in players]


def act(client, table_id: str, key: dict, **action):
    version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
    return client.post(f"/v1/tables/{table_id}/actions", json=action,
                       headers={**key, "If-Match": f'"{version}"'})


def to_flop(client, table_id: str, keys: list[dict]) -> None:
    for key, action in zip(keys, ("call", "call", "check")):
        assert act(client, table_id, key, action=action).status_code == 201


def test_a_15_all_in_bet_on_a_20_round_is_raised_to_35_at_a_live_table(client):
    table_id, (ann, bob, cat) = limit_table(client, {"Ann": 1000, "Bob": 20 + 15, "Cat": 1000})
    to_flop(client, table_id, [ann, bob, cat])
    assert act(client, table_id, bob, action="bet", to=15).status_code == 201
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=cat).get_json()["legal"]
    assert legal["raise"] == {"min_to": 35, "max_to": 35}
    refused = assert_problem(act(client, table_id, cat, action="raise", to=40), 422, "wrong_fixed_amount")
    assert refused["rule"] == "RRP limit 6"
    numbers = refused["numbers"]
    assert numbers == {"to": 40, "min_to": 35, "max_to": 35, "unit": 20, "level": 15,
                       "player": numbers["player"], "player_name": "Cat"}  # who tried, by name
    assert "raise to 40 is not the fixed raise to 35" in refused["detail"]
    assert act(client, table_id, cat, action="raise", to=35).status_code == 201


def test_a_20_bet_raised_all_in_to_30_is_raised_to_50_at_a_live_table(client):
    table_id, (ann, bob, cat) = limit_table(client, {"Ann": 1000, "Bob": 1000, "Cat": 20 + 30})
    to_flop(client, table_id, [ann, bob, cat])
    assert act(client, table_id, bob, action="bet", to=20).status_code == 201
    assert act(client, table_id, cat, action="raise", to=30).status_code == 201
    refused = assert_problem(act(client, table_id, ann, action="raise", to=60), 422, "wrong_fixed_amount")
    assert refused["rule"] == "RRP limit 6" and refused["numbers"]["min_to"] == 50
    assert act(client, table_id, ann, action="raise", to=50).status_code == 201


# Seats A (small blind), B (big blind), BTN; everyone calls 20 pre-flop.
PREFLOP = [{"player": "BTN", "action": "call"}, {"player": "A", "action": "call"},
           {"player": "B", "action": "check"}]


def ruling(client, actions: list[dict], proposed: dict, stacks: dict[str, int]) -> dict:
    response = client.post("/v1/rulings/betting", headers=ADMIN, json={
        "game": "holdem", "betting": LIMIT_20,
        "seats": [{"player": name, "stack": stack} for name, stack in stacks.items()],
        "actions": actions, "proposed": proposed})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_a_15_all_in_bet_on_a_20_round_is_raised_to_35_in_a_ruling(client):
    stacks = {"A": 20 + 15, "B": 1000, "BTN": 1000}
    flop = PREFLOP + [{"player": "A", "action": "bet", "to": 15}]
    answer = ruling(client, flop, {"player": "B", "action": "raise", "to": 40}, stacks)
    assert answer["legal"]["raise"] == {"min_to": 35, "max_to": 35}
    assert answer["verdict"] == {
        "legal": False, "code": "wrong_fixed_amount", "rule": "RRP limit 6",
        "detail": "raise to 40 is not the fixed raise to 35: one unit of 20 on top of the all-in "
                  "to 15, at least half a unit, which counts as a full raise",
        "numbers": {"to": 40, "min_to": 35, "max_to": 35, "unit": 20, "level": 15}}
    legal = ruling(client, flop, {"player": "B", "action": "raise", "to": 35}, stacks)["verdict"]
    assert legal["legal"] is True and legal["rule"] == "RRP limit 6"
    assert legal["numbers"] == {"to": 35, "min_to": 35, "unit": 20, "level": 15}


def test_a_20_bet_raised_all_in_to_30_is_raised_to_50_in_a_ruling(client):
    stacks = {"A": 1000, "B": 20 + 30, "BTN": 1000}
    answer = ruling(client, PREFLOP + [{"player": "A", "action": "bet", "to": 20},
                                       {"player": "B", "action": "raise", "to": 30}],
                    {"player": "BTN", "action": "raise", "to": 60}, stacks)
    assert answer["legal"]["raise"] == {"min_to": 50, "max_to": 50}
    assert answer["verdict"]["code"] == "wrong_fixed_amount"
    assert answer["verdict"]["rule"] == "RRP limit 6"
