"""200 six-handed no-limit hands played through HTTP by scripted players (a seeded RNG
chooses among the legal actions): chips are conserved after every hand, every deal checks
against its commitment, and the table rebuilt from its event log equals the live table."""
from __future__ import annotations

import random
import time

import pytest

from domain import table
from domain.records import from_record
from service import views
from tests.e2e.conftest import Server

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
    started = time.monotonic()
    rng = random.Random(20240611)
    players = []
    for index in range(SEATS):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"Bot {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        players.append((created["id"], {"Authorization": f"Bearer {key['key']}"}))
    key_of = dict(players)
    tables = [new_table(server, players)]
    hands = 0
    while hands < HANDS:
        table_id = tables[-1]
        status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        if status == 422 and answer["code"] in ("table_finished", "not_enough_players"):
            tables.append(new_table(server, players))  # someone won everything: a fresh table
            continue
        assert status == 201, answer
        hands += 1
        while True:
            status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
            assert status == 200
            if legal["to_act"] is None:
                break
            action = choose(rng, legal["legal"])
            status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                            {**key_of[legal["to_act"]], "If-Match": headers["ETag"]})
            assert status == 201, (action, answer)
        _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        assert sum(seat["stack"] for seat in view["seats"]) == SEATS * STACK, view
        assert view["hand"]["over"] and view["hand"]["deal"]["verified"] is True
        assert time.monotonic() - started < TIME_LIMIT_S, f"only {hands} hands in {TIME_LIMIT_S} s"

    for table_id in tables:
        _, live, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        _, log, _ = server.call("GET", f"/v1/tables/{table_id}/events", headers=server.admin)
        types = table.event_types("holdem")
        rebuilt = table.replay(from_record(types, e["type"], e["data"]) for e in log["events"])
        assert views.table_view(rebuilt, live["version"], views.Viewer("admin")) == live
        _, verified, _ = server.call("GET", f"/v1/streams/table-{table_id}/verify", headers=server.admin)
        assert verified == {"ok": True, "events": live["version"], "first_bad_version": None}
