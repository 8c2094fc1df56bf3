"""Tournament levels shorter than a minute (turbo events, tests) and hand-for-hand over
HTTP against a real PostgreSQL."""
from __future__ import annotations

import pytest

from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player
from tests.integration.test_tournaments_http import running, schedule, view

pytestmark = pytest.mark.integration

SECONDS_STRUCTURE = [
    {"small_blind": 25, "big_blind": 50, "seconds": 30},
    {"break": True, "seconds": 20},
    {"small_blind": 50, "big_blind": 100, "minutes": 1, "seconds": 15},
]


def test_levels_may_last_seconds(client):
    tournament_id, _ = running(client, 4, levels=SECONDS_STRUCTURE)
    clock = view(client, tournament_id)["clock"]
    assert clock["level"] == 1 and 25 <= clock["remaining_s"] <= 30
    assert clock["next"] == {"break": True, "minutes": 0, "seconds": 20}


@pytest.mark.parametrize("period", [
    {"small_blind": 25, "big_blind": 50},
    {"small_blind": 25, "big_blind": 50, "minutes": 0, "seconds": 0},
    {"small_blind": 25, "big_blind": 50, "seconds": -5},
])
def test_a_level_that_lasts_no_time_is_refused(client, period):
    body = {"name": "Turbo", "game": "holdem", "levels": [period], "starting_stack": 1000,
            "starts_at": "2030-01-01T00:00:00Z", "payout_percentages": ["100"]}
    problem = assert_problem(client.post("/v1/tournaments", json=body, headers=ADMIN), 400, "validation_error")
    assert problem["errors"][0]["field"].startswith("levels.0.")


def test_the_floor_turns_hand_for_hand_on_and_off(client):
    tournament_id, _ = running(client, 8, levels=SECONDS_STRUCTURE)
    started = client.post(f"/v1/tournaments/{tournament_id}/hand-for-hand", json={}, headers=ADMIN)
    assert started.status_code == 201, started.get_data(as_text=True)
    assert [e["type"] for e in started.get_json()["events"]] == ["HandForHandStarted"]
    assert view(client, tournament_id)["hand_for_hand"] is True
    again = client.post(f"/v1/tournaments/{tournament_id}/hand-for-hand", json={}, headers=ADMIN)
    assert_problem(again, 422, "already_hand_for_hand")
    stopped = client.delete(f"/v1/tournaments/{tournament_id}/hand-for-hand", json={}, headers=ADMIN)
    assert stopped.status_code == 200, stopped.get_data(as_text=True)
    assert view(client, tournament_id)["hand_for_hand"] is False


def test_hand_for_hand_is_not_open_to_players(client):
    tournament_id = schedule(client, levels=SECONDS_STRUCTURE)
    player = key_for(client, "player", register_player(client, "Curious"))
    response = client.post(f"/v1/tournaments/{tournament_id}/hand-for-hand", json={}, headers=player)
    assert response.status_code == 403
