"""200 six-handed no-limit hands played through HTTP by scripted players (a seeded RNG
chooses among the legal actions): chips are conserved after every hand, every deal checks
against its commitment, and the table rebuilt from its event log equals the live table."""
from __future__ import annotations

import random

import pytest

from service.application.public_log import PublicLog
from tests.e2e.conftest import Server, assert_log_replays_to_live, play_scripted_hands, scripted_players

pytestmark = pytest.mark.e2e

HANDS = 200
SEATS = 6
STACK = 10_000
TIME_LIMIT_S = 90


def new_table(server: Server, players: list[tuple[str, dict]]) -> str:
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": STACK} for p, _ in players]}, server.admin)
    assert status == 201, created
    return created["id"]


def choose(rng: random.Random, legal: dict) -> dict:
    """Mostly passive play, so six players last many hands; sometimes a raise or a shove."""
    roll = rng.random()
    span = legal["raise"] or legal["bet"]
    if span and roll < 0.15:
        kind = "raise" if legal["raise"] else "bet"
        high = span["max_to"] if rng.random() < 0.1 else min(span["max_to"], span["min_to"] * 3)
        return {"action": kind, "to": rng.randint(span["min_to"], max(span["min_to"], high))}
    if legal["call"] and roll > 0.8:
        return {"action": "fold"}
    return {"action": "check"} if legal["check"] else {"action": "call"}


def test_two_hundred_scripted_hands_conserve_chips_and_replay_to_the_live_table(server):
    rng = random.Random(20240611)
    players = scripted_players(server, SEATS, "Bot")

    def check_hand(view: dict) -> None:
        assert sum(seat["stack"] for seat in view["seats"]) == SEATS * STACK, view
        assert view["hand"]["over"] and view["hand"]["deal"]["verified"] is True

    # A new table when someone won everything.
    tables = play_scripted_hands(server, players, HANDS, lambda: new_table(server, players),
                                 lambda table_id, player, legal: choose(rng, legal),
                                 check_hand, TIME_LIMIT_S)
    for table_id in tables:
        live = assert_log_replays_to_live(server, table_id, "holdem")
        _, verified, _ = server.call("GET", f"/v1/streams/table-{table_id}/verify", headers=server.admin)
        assert set(verified.pop("warnings")) <= {PublicLog.UNCHECKED}  # before the integrator's first checkpoint
        assert verified == {"ok": True, "events": live["version"], "first_bad_version": None, "reason": None}
