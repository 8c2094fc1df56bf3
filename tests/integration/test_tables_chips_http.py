"""Chips pushed and words said at a live table (declarations.md): a floor key enters what
happened instead of `action` and `to`; the log keeps what was pushed and said
(`ChipsRuled`) beside the action it was ruled to be."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem
from tests.integration.test_tables_http import new_player, new_table, version_of

pytestmark = pytest.mark.integration


@pytest.fixture
def floor_table(client):
    players = [new_player(client, name) for name in ("Ann", "Bob", "Cat")]
    table_id = new_table(client, [p for p, _ in players])
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    key = client.post("/v1/keys", json={"role": "floor"}, headers=ADMIN).get_json()["key"]
    return table_id, [p for p, _ in players], [k for _, k in players], {"Authorization": f"Bearer {key}"}


def enter(client, table_id, floor, body):
    return client.post(f"/v1/tables/{table_id}/actions", json=body,
                       headers={**floor, "If-Match": str(version_of(client, table_id))})


def test_pushed_chips_and_words_become_the_ruled_actions_and_are_recorded(client, floor_table):
    table_id, players, _, floor = floor_table
    before = version_of(client, table_id)
    # Ann faces the 100 big blind and silently pushes one 500 chip: a call (TDA 2024 44).
    assert enter(client, table_id, floor, {"player_id": players[0], "chips": [500]}).status_code == 201
    # Bob (50 in) pushes three 100s: 350 is a raise of 250 over the 100, made a full raise.
    assert enter(client, table_id, floor, {"player_id": players[1], "chips": [100, 100, 100]}).status_code == 201
    # Cat says "raise, eight hundred": a raise to a total of 800 (TDA 2024 43-B).
    assert enter(client, table_id, floor, {"player_id": players[2], "said": "raise, eight hundred"}).status_code == 201
    events = client.get(f"/v1/tables/{table_id}/events?after={before}", headers=ADMIN).get_json()["events"]
    ruled = [e["data"] for e in events if e["type"] == "ChipsRuled"]
    assert [(r["chips"], r["said"], r["ruling"]["interpretation"], r["ruling"]["to"], r["ruling"]["returned"],
             r["ruling"]["rule"]) for r in ruled] == [
        ([500], None, "call", 100, 400, "TDA 2024 44"),
        ([100, 100, 100], None, "raise", 350, 0, "TDA 2024 45-B, 43-A"),
        ([], "raise, eight hundred", "raise", 800, 0, "TDA 2024 43-B")]
    actions = [(e["data"]["action"], e["data"]["to"]) for e in events if e["type"] == "ActionTaken"]
    assert actions == [("call", 100), ("raise", 350), ("raise", 800)]
    kinds = [e["type"] for e in events]
    assert kinds.index("ChipsRuled") < kinds.index("ActionTaken")
    hand = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()
    assert [e["type"] for e in hand["events"]].count("ChipsRuled") == 3
    # The rest of the hand plays on as usual from the ruled actions.
    assert enter(client, table_id, floor, {"player_id": players[0], "action": "fold"}).status_code == 201
    assert enter(client, table_id, floor, {"player_id": players[1], "said": "call"}).status_code == 201
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["hand"]["round"] == "flop"


def test_a_floor_decision_writes_nothing_and_names_the_rule(client, floor_table):
    table_id, players, _, floor = floor_table
    before = version_of(client, table_id)
    problem = assert_problem(enter(client, table_id, floor, {"player_id": players[0], "chips": [1000, 1000],
                                                             "said": "raise"}), 422, "floor_decision")
    assert problem["rule"] == "TDA 2024 1, 40-A"
    assert version_of(client, table_id) == before


def test_only_floor_and_admin_keys_enter_chips_and_action_or_chips_not_both(client, floor_table):
    table_id, players, keys, floor = floor_table
    assert_problem(enter(client, table_id, keys[0], {"chips": [500]}), 403, "forbidden")
    assert_problem(enter(client, table_id, floor, {"player_id": players[0], "action": "call", "chips": [500]}),
                   400, "validation_error")
    assert_problem(enter(client, table_id, floor, {"player_id": players[0]}), 400, "validation_error")
    assert_problem(enter(client, table_id, floor, {"player_id": players[0], "chips": [500], "to": 500}),
                   400, "validation_error")
    assert_problem(enter(client, table_id, floor, {"player_id": players[0], "chips": [0]}), 400, "validation_error")
    assert_problem(enter(client, table_id, floor, {"player_id": players[1], "chips": [500]}), 422, "not_your_turn")


def test_a_five_card_draw_table_takes_chips_too(client, floor_table):
    _, players, _, floor = floor_table
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "five-card-draw", "settings": {"ante": 5}, "seats": [{"player_id": p} for p in players[:2]]})
    table_id = created.get_json()["id"]
    client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    first = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"]
    answer = enter(client, table_id, floor, {"player_id": first, "chips": [25]})
    assert answer.status_code == 201, answer.get_json()
    kinds = [(e["type"], e["data"].get("action")) for e in answer.get_json()["events"]]
    assert kinds[:2] == [("ChipsRuled", None), ("ActionTaken", "bet")]
