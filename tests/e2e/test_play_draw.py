"""50 five-card draw hands through HTTP by scripted players (a seeded RNG chooses among the
legal actions): chips conserved after every hand, each player sees only their own cards,
every deal checks against its commitment once the hand is over, and the table rebuilt from
its event log equals the live table."""
from __future__ import annotations

import random
import time

import pytest

from domain import table
from domain.records import from_record
from service import views
from tests.e2e.conftest import Server

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


def choose(rng: random.Random, legal: dict, cards: str) -> dict:
    if legal.get("discard"):
        held = [cards[i:i + 2] for i in range(0, len(cards), 2)]
        count = rng.randint(0, legal["discard"]["most_keeping_no_ace"])
        return {"action": "discard", "discard": rng.sample(held, count)}
    if legal["bet"] and rng.random() < 0.3:
        return {"action": "bet", "to": legal["bet"]["min_to"]}
    if legal["raise"] and rng.random() < 0.15:
        return {"action": "raise", "to": legal["raise"]["min_to"]}
    if legal["call"] and rng.random() < 0.2:
        return {"action": "fold"}
    return {"action": "check"} if legal["check"] else {"action": "call"}


def test_fifty_scripted_draw_hands_conserve_chips_hide_cards_and_replay(server):
    started = time.monotonic()
    rng = random.Random(1717)
    players = []
    for index in range(SEATS):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"Draw bot {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        players.append((created["id"], {"Authorization": f"Bearer {key['key']}"}))
    key_of = dict(players)
    tables = [new_table(server, players)]
    hands = 0
    while hands < HANDS:
        table_id = tables[-1]
        status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        if status == 422 and answer["code"] in ("table_finished", "not_enough_players"):
            tables.append(new_table(server, players))
            continue
        assert status == 201, answer
        hands += 1
        while True:
            status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
            assert status == 200
            if legal["to_act"] is None:
                break
            player = legal["to_act"]
            _, seen, _ = server.call("GET", f"/v1/tables/{table_id}", headers=key_of[player])
            own = next(s["cards"] for s in seen["seats"] if s["player_id"] == player)
            assert own and all(s["cards"] is None for s in seen["seats"] if s["player_id"] != player)
            assert seen["hand"]["deal"]["deck"] is None and seen["hand"]["deal"]["salt"] is None
            action = choose(rng, legal["legal"], own)
            status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                            {**key_of[player], "If-Match": headers["ETag"]})
            assert status == 201, (action, answer)
        _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        assert sum(seat["stack"] for seat in view["seats"]) == SEATS * STACK, view
        deal = view["hand"]["deal"]
        assert view["hand"]["over"] and deal["verified"] is True
        assert all(redeal["verified"] is True for redeal in deal["redeals"])
        assert time.monotonic() - started < TIME_LIMIT_S, f"only {hands} hands in {TIME_LIMIT_S} s"

    for table_id in tables:
        _, live, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        _, log, _ = server.call("GET", f"/v1/tables/{table_id}/events", headers=server.admin)
        types = table.event_types("five-card-draw")
        rebuilt = table.replay(from_record(types, e["type"], e["data"]) for e in log["events"])
        assert views.table_view(rebuilt, live["version"], views.Viewer("admin")) == live
        if live["finished"]:
            assert {r["outcome"] for r in live["results"]} <= {"win", "draw", "loss"}
