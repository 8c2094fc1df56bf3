"""One complete game of Palace Poker and one of dice poker through HTTP, scripted players
choosing among the legal actions (seeded RNG); nobody sees another player's palace, and
each table's log replays to the live table."""
from __future__ import annotations

import random
import time

import pytest

from tests.e2e.conftest import Server, assert_log_replays_to_live

pytestmark = pytest.mark.e2e

TIME_LIMIT_S = 60


def seat_players(server: Server, count: int, prefix: str) -> list[tuple[str, dict]]:
    players = []
    for index in range(count):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"{prefix} {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        players.append((created["id"], {"Authorization": f"Bearer {key['key']}"}))
    return players


def palace_move(rng: random.Random, legal: dict, phase: str) -> dict:
    if phase == "discarding":
        return {"action": "discard", "discard": legal["discard"]["from"][:legal["discard"]["min_cards"]]}
    if phase == "defending":
        return {"action": rng.choice(["call", "fold"])}
    if phase == "answering_raise":
        return {"action": "call"}
    options = [name for name in ("buy", "attack", "stay") if legal.get(name)]
    choice = rng.choice(options) if options else "fold"
    if choice == "attack":
        attack = legal["attack"]
        return {"action": "attack", **rng.choice(attack["options"]), "to": attack["min_to"]}
    return {"action": choice}


def dice_move(rng: random.Random, legal: dict, round_name: str) -> dict:
    if legal["roll"] and (legal["score"] is None or rng.random() < 0.5):
        body = {"action": "roll"}
        if legal["roll"]["keep"]:
            body["keep"] = sorted(rng.sample(range(5), rng.randint(0, 4)))
        return body
    return {"action": "score", "line": rng.choice(legal["score"]["options"])["line"]}


def play_out(server: Server, game: str, settings: dict, players, choose, rng, stack: int | None) -> dict:
    started = time.monotonic()
    key_of = dict(players)
    seats = [{"player_id": p} if stack is None else {"player_id": p, "stack": stack} for p, _ in players]
    status, created, _ = server.call("POST", "/v1/tables", {"game": game, "settings": settings,
                                                            "seats": seats, "ranked": True}, server.admin)
    assert status == 201, created
    table_id = created["id"]
    while True:
        status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        if status == 422 and answer["code"] == "table_finished":
            break
        assert status == 201, answer
        while True:
            _, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
            if legal["to_act"] is None:
                break
            player = legal["to_act"]
            _, seen, _ = server.call("GET", f"/v1/tables/{table_id}", headers=key_of[player])
            assert all(s["cards"] is None for s in seen["seats"] if s["player_id"] != player)
            action = choose(rng, legal["legal"], legal["round"])
            status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                            {**key_of[player], "If-Match": headers["ETag"]})
            assert status == 201, (action, answer)
            assert time.monotonic() - started < TIME_LIMIT_S
    return assert_log_replays_to_live(server, table_id, game)


def test_a_complete_game_of_palace_poker_through_http(server):
    players = seat_players(server, 3, "Palace bot")
    live = play_out(server, "palace", {"small_bet": 10, "big_bet": 20}, players, palace_move,
                    random.Random(31), 200)
    assert live["finished"] and sum(seat["stack"] for seat in live["seats"]) == 600
    assert [r["outcome"] for r in live["results"]].count("win") == 1
    assert live["hand"]["deal"]["verified"] is True


def test_a_complete_game_of_dice_poker_through_http(server):
    players = seat_players(server, 2, "Dice bot")
    live = play_out(server, "dice", {}, players, dice_move, random.Random(32), None)
    assert live["finished"] and live["hands_played"] == 1
    assert len(live["hand"]["scorecards"][players[0][0]]) == 15
    assert {r["outcome"] for r in live["results"]} <= {"win", "draw", "loss"}
