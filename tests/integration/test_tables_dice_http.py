"""Dice poker tables over HTTP: roll with keep, score a line; the values behind the pending
roll commitment stay hidden from every role until rolled."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, register_players

pytestmark = pytest.mark.integration


def test_a_turn_rolls_keeps_and_scores_with_each_roll_committed_before_it(client):
    players = register_players(client, *"DE")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "dice", "seats": [{"player_id": p} for p in players]}).get_json()["id"]
    started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    prepared = next(e for e in started["events"] if e["type"] == "RollPrepared")
    assert prepared["data"]["values"] is None and prepared["data"]["salt"] is None

    def act(body):
        legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
        return client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                           json={**body, "player_id": legal.get_json()["to_act"]})

    first = act({"action": "roll"})
    assert first.status_code == 201
    rolled = next(e for e in first.get_json()["events"] if e["type"] == "DiceRolled")
    second = act({"action": "roll", "keep": [0, 1]})
    assert next(e for e in second.get_json()["events"] if e["type"] == "DiceRolled")["data"]["dice"][:2] == rolled["data"]["dice"][:2]
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
    line = max(legal["legal"]["score"]["options"], key=lambda option: option["points"])["line"]
    scored = act({"action": "score", "line": line})
    assert any(e["type"] == "LineScored" for e in scored.get_json()["events"])
    assert client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"] == players[1]
    assert_problem(act({"action": "score", "line": "chance"}), 422, "must_roll_first")
