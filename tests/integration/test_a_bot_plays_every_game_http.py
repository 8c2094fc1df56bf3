"""A bot written against one game reads every other (issue 30; README "Changelog"): one
generic client (tests/playing.py `generic_move`: iterate `legal`, pick an allowed action,
build its request from its parameters alone, send it) plays a hand of every registered
table game through the HTTP API to its end, each player with their own key, and reads the
table's betting description at the same path in every game."""
from __future__ import annotations

import random
from typing import Any

import pytest

from domain import registry
from domain.rules.betting import KINDS
from tests.integration.conftest import ADMIN, key_for, register_players
from tests.playing import TABLE_SETUPS, generic_move

pytestmark = pytest.mark.integration
MAX_ACTIONS = 600


@pytest.mark.parametrize("game", sorted(registry.table_names()))
def test_one_generic_bot_plays_a_hand_of_every_game_to_its_end(client: Any, game: str) -> None:
    players = register_players(client, "Ann", "Bob", "Cat")
    keys = {player: key_for(client, "player", player) for player in players}
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": game, **TABLE_SETUPS[game], "seats": [{"player_id": p, "stack": 500} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    shown = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    if registry.table_rules(game).plays_for_chips(shown["settings"]):
        assert shown["betting"]["structure"] in KINDS
    else:
        assert shown["betting"] is None
    answer = client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    rng = random.Random(game)
    for _ in range(MAX_ACTIONS):
        now = answer.get_json()
        if now["to_act"] is None:
            break
        request = generic_move(now["legal"], rng)
        answer = client.post(f"/v1/tables/{table_id}/actions", json=request,
                             headers={**keys[now["to_act"]], "If-Match": answer.headers["ETag"]})
        assert answer.status_code == 201, (request, answer.get_data(as_text=True))
    else:
        raise AssertionError(f"the {game} hand did not end in {MAX_ACTIONS} actions")
    hand = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()
    assert hand["hand"]["over"] is True
