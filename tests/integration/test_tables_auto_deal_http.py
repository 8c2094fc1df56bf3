"""Auto-deal tables over HTTP: the action that ends a hand answers with the next hand
already dealt, each event tagged with its own hand, and nothing hidden leaks across."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


@pytest.fixture
def auto_table(client):
    players = [register_player(client, name) for name in ("Ann", "Bob", "Cat")]
    keys = [key_for(client, "player", p) for p in players]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "auto_deal": True,
        "seats": [{"player_id": p, "stack": 10000} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert started.status_code == 201
    return table_id, players, keys, started


def act(client, table_id, headers, version, action="fold"):
    response = client.post(f"/v1/tables/{table_id}/actions", json={"action": action},
                           headers={**headers, "If-Match": f'"{version}"'})
    assert response.status_code == 201, response.get_data(as_text=True)
    return response


def test_the_closing_action_answers_with_the_next_hand_dealt(client, auto_table):
    table_id, players, keys, started = auto_table
    first = act(client, table_id, keys[0], started.get_json()["version"])  # Ann folds
    closing = act(client, table_id, keys[1], first.get_json()["version"]).get_json()  # Bob folds
    types = [e["type"] for e in closing["events"]]
    assert types.index("HandClosed") < types.index("HandOpened")
    old_hand, new_hand = f"{table_id}.1", f"{table_id}.2"
    assert {e["hand_id"] for e in closing["events"][:types.index("HandOpened")]} == {old_hand}
    assert {e["hand_id"] for e in closing["events"][types.index("HandOpened"):]} == {new_hand}
    # The next hand is under way: button Bob, Cat 50, Ann 100, Bob first to act.
    assert closing["to_act"] == players[1] and closing["legal"]["call"] == {"to": 100, "adds": 100}
    assert closing["hand"]["id"] == new_hand
    view = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert view["auto_deal"] is True and view["button"] == 1 and view["version"] == closing["version"]


def test_the_closing_answer_hides_the_new_deal_and_shows_the_old_one(client, auto_table):
    table_id, players, keys, started = auto_table
    first = act(client, table_id, keys[0], started.get_json()["version"])
    closing = act(client, table_id, keys[1], first.get_json()["version"]).get_json()
    by_type = {}
    for event in closing["events"]:
        by_type.setdefault(event["type"], []).append(event)
    assert by_type["HandStarted"][0]["data"]["deck"] is None  # the new hand's deck: secret
    assert by_type["HandOpened"][0]["data"]["salt"] is None
    dealt = {e["data"]["seat"]: e["data"]["cards"] for e in by_type["HoleCardsDealt"]}
    assert dealt[1] is not None and dealt[0] is None and dealt[2] is None  # Bob sees his own only
    # The hand that just ended is open to audit: its deck and salt check out.
    audit = client.get(f"/v1/hands/{table_id}.1", headers=keys[2]).get_json()
    assert audit["over"] is True and audit["deal"]["verified"] is True
    spectator = key_for(client, "spectator")
    log = client.get(f"/v1/tables/{table_id}/events", headers=spectator).get_json()["events"]
    assert all(e["data"].get("cards") is None for e in log if e["type"] == "HoleCardsDealt")
    new_hand = [e for e in log if e.get("hand_id") == f"{table_id}.2"]
    assert [e["data"]["deck"] for e in new_hand if e["type"] == "HandStarted"] == [None]


def test_the_hand_history_of_an_auto_dealt_hand_is_its_own_slice(client, auto_table):
    table_id, _, keys, started = auto_table
    first = act(client, table_id, keys[0], started.get_json()["version"])
    act(client, table_id, keys[1], first.get_json()["version"])
    second = client.get(f"/v1/hands/{table_id}.2", headers=ADMIN).get_json()
    assert [e["type"] for e in second["events"]][:2] == ["HandOpened", "HandStarted"]
    assert second["over"] is False
    first_hand = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()
    assert first_hand["events"][-1]["type"] == "HandClosed"


def test_auto_deal_must_be_a_boolean(client):
    players = [register_player(client, name) for name in ("Dan", "Eve")]
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "auto_deal": "yes",
        "seats": [{"player_id": p, "stack": 1000} for p in players]})
    assert_problem(response, 400, "validation_error")
