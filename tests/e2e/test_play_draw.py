"""50 five-card draw hands through HTTP by scripted players (a seeded RNG chooses among the
legal actions): chips conserved after every hand, each player sees only their own cards,
every deal checks against its commitment once the hand is over, and the table rebuilt from
its event log equals the live table."""
from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import Server, assert_log_replays_to_live, play_scripted_hands, scripted_players

pytestmark = pytest.mark.e2e

HANDS = 50
SEATS = 4
STACK = 1000
HANDS_PER_MATCH = 10
TIME_LIMIT_S = 60
SETTINGS = {"ante": 5, "hands": HANDS_PER_MATCH, "opening": "jacks_or_better", "structure": "fixed-limit"}


def new_table(server: Server, players: list[tuple[str, dict]]) -> str:
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "five-card-draw", "settings": SETTINGS, "ranked": True,
        "seats": [{"player_id": p, "stack": STACK} for p, _ in players]}, server.admin)
    assert status == 201, created
    return created["id"]


def choose(rng: random.Random, legal: dict, cards: str, opened: bool) -> dict:
    if legal.get("discard"):
        held = [cards[i:i + 2] for i in range(0, len(cards), 2)]
        count = rng.randint(0, legal["discard"]["max_cards_keeping_no_ace"])
        # Under jacks or better the opener who draws keeps the discards aside (splitting
        # openers must be declared; declaring it when nothing is split is harmless).
        action = "split_openers" if opened and count else "discard"
        return {"action": action, "discard": rng.sample(held, count)}
    if legal["bet"] and rng.random() < 0.3:
        return {"action": "bet", "to": legal["bet"]["min_to"]}
    if legal["raise"] and rng.random() < 0.15:
        return {"action": "raise", "to": legal["raise"]["min_to"]}
    if legal["call"] and rng.random() < 0.2:
        return {"action": "fold"}
    return {"action": "check"} if legal["check"] else {"action": "call"}


def test_fifty_scripted_draw_hands_conserve_chips_hide_cards_and_replay(server):
    rng = random.Random(1717)
    players = scripted_players(server, SEATS, "Draw bot")
    key_of = dict(players)

    def move(table_id: str, player: str, legal: dict) -> dict:
        _, seen, _ = server.call("GET", f"/v1/tables/{table_id}", headers=key_of[player])
        own = next(s["cards"] for s in seen["seats"] if s["player_id"] == player)
        assert own and all(s["cards"] is None for s in seen["seats"] if s["player_id"] != player)
        assert seen["hand"]["deal"]["deck"] is None and seen["hand"]["deal"]["salt"] is None
        return choose(rng, legal, own, seen["hand"].get("opener") == player)

    def check_hand(view: dict) -> None:
        assert sum(seat["stack"] for seat in view["seats"]) == SEATS * STACK, view
        deal = view["hand"]["deal"]
        assert view["hand"]["over"] and deal["verified"] is True
        assert all(redeal["verified"] is True for redeal in deal["redeals"])

    tables = play_scripted_hands(server, players, HANDS, lambda: new_table(server, players), move,
                                 check_hand, TIME_LIMIT_S)
    for table_id in tables:
        live = assert_log_replays_to_live(server, table_id, "five-card-draw")
        if live["finished"]:
            assert {r["outcome"] for r in live["results"]} <= {"win", "draw", "loss"}
