"""`GET /v1/hands/{id}/state?at=N` for every game the API serves (issue 38): 200 at every
version of the hand, the events that open it included (a HORSE table's `at=2,3,4`, before
its game started, were a 500), and 404 outside it. A property over hands in progress and
hands played out by the computer (every seat sat out), first hands and later ones."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import registry
from tests.integration.conftest import ADMIN, register_players

pytestmark = pytest.mark.integration

LIMIT = {"small_bet": 10, "ante": 1, "bring_in": 3}
TABLES = {
    "holdem": {"betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10}},
    "omaha": {"betting": {"structure": "pot-limit", "small_blind": 5, "big_blind": 10}},
    "five-card-draw": {"settings": {"ante": 5}},
    "dice": {},
    "palace": {"settings": {"small_bet": 10, "big_bet": 20}},
    "stud": {"settings": LIMIT}, "razz": {"settings": LIMIT}, "stud_hi_lo": {"settings": LIMIT},
    "omaha_hi_lo": {"settings": {"small_bet": 10}},
    "deuce_seven_triple_draw": {"settings": {"small_bet": 10}},
    "horse": {"settings": LIMIT}, "eight_game": {"settings": LIMIT},
}
CHECKED_AROUND = 12
"""Every version this near the hand's first and last is asked for (a played-out draw hand
runs to a thousand events); the rest are drawn."""


def test_every_game_the_api_serves_is_covered():
    assert sorted(TABLES) == sorted(registry.table_names())


def hand_range(client, hand_id: str) -> tuple[int, int]:
    hand = client.get(f"/v1/hands/{hand_id}", headers=ADMIN).get_json()
    return hand["first_version"], hand["last_version"]


@pytest.mark.parametrize("game", sorted(TABLES))
@settings(max_examples=3, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_hand_state_answers_at_every_version_of_the_hand_and_404_outside(client, game, data):
    players = register_players(client, *(f"{game}-{n}" for n in range(data.draw(st.integers(2, 3), "players"))))
    seats = [{"player_id": p} if game == "dice" else {"player_id": p, "stack": 500} for p in players]
    created = client.post("/v1/tables", headers=ADMIN, json={"game": game, **TABLES[game], "seats": seats})
    assert created.status_code == 201, created.get_json()
    table_id = created.get_json()["id"]
    # Seats that sit out are played by the computer: all of them, and the hand plays out.
    away = data.draw(st.lists(st.sampled_from(players), unique=True), "sitting out")
    hands = data.draw(st.integers(1, 2), "hands")
    for number in range(1, hands + 1):
        started = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
        if started.status_code != 201:
            break  # the last hand is still running, or the table is finished (dice: one game)
        if number == 1:
            for player in away:
                sat = client.post(f"/v1/tables/{table_id}/absences", json={"player_id": player}, headers=ADMIN)
                assert sat.status_code == 201, sat.get_json()
        hand_id = f"{table_id}.{number}"
        first, last = hand_range(client, hand_id)
        near = set(range(1, first + CHECKED_AROUND)) | set(range(max(1, last - CHECKED_AROUND), last + 4))
        drawn = data.draw(st.lists(st.integers(1, last + 10), max_size=5), "versions")
        for at in sorted(near | set(drawn)):
            answer = client.get(f"/v1/hands/{hand_id}/state?at={at}", headers=ADMIN)
            if first <= at <= last:
                assert answer.status_code == 200, (at, first, last, answer.get_json())
                shown = answer.get_json()
                assert at <= shown["version"] <= last and shown["id"] == hand_id
            else:
                assert answer.status_code == 404, (at, first, last, answer.get_json())
                assert answer.get_json()["code"] == "not_found"
