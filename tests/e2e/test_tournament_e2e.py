"""A 40-player tournament on five tables of eight, end to end: gunicorn serves HTTP, a real
`celery worker -B` deals every hand and moves players between tables, and scripted
players (all-in heavy, so it ends fast) act through HTTP on whatever table they sit at.
The organiser shortens each level to a few seconds with the clock adjustment. It ends
with one winner, all 40 places, the prizes to the right places and one rating each."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from service import tournament_tables
from service.store.postgres import PostgresEventStore, open_pool
from tests.e2e.conftest import Server
from tests.integration.test_action_clock_worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("clock_worker")]

PLAYERS = 40
TABLE_SIZE = 8
STACK = 500
BUY_IN = 100
PAYOUTS = ["50", "30", "20"]
LEVEL_S = 4  # each one-minute level is cut to this by the organiser
TIME_LIMIT_S = 170


@pytest.fixture
def worker(tmp_path, database_url, broker_url):
    running = Worker(tmp_path / "worker", database_url, broker_url, beat=True)
    yield running
    running.stop()


@pytest.fixture
def store(database_url):
    pool = open_pool(database_url, max_size=2)
    yield PostgresEventStore(pool)
    pool.close()


def register_players(server: Server) -> dict[str, dict]:
    keys = {}
    for index in range(PLAYERS):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"Shover {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        keys[created["id"]] = {"Authorization": f"Bearer {key['key']}"}
    return keys


def schedule(server: Server, players: dict[str, dict]) -> str:
    levels = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 1} for sb in (10, 25, 50, 100, 200, 400, 800)]
    status, created, _ = server.call("POST", "/v1/tournaments", {
        "name": "Forty shovers", "game": "holdem", "betting": "no-limit", "levels": levels,
        "starting_stack": STACK, "buy_in": BUY_IN, "table_size": TABLE_SIZE,
        "starts_at": (datetime.now(timezone.utc) - timedelta(seconds=1)).isoformat(),
        "payout_percentages": PAYOUTS}, server.admin)
    assert status == 201, created
    tournament_id = created["id"]
    for player_id, key in players.items():
        status, answer, _ = server.call("POST", f"/v1/tournaments/{tournament_id}/registrations",
                                        {"player_id": player_id}, key)
        assert status == 201, answer
    status, answer, _ = server.call("POST", f"/v1/tournaments/{tournament_id}/start", {}, server.admin)
    assert status == 201, answer
    return tournament_id


def shove(legal: dict) -> dict:
    """Everything in whenever possible; otherwise call, else check."""
    span = legal["raise"] or legal["bet"]
    if span:
        return {"action": "raise" if legal["raise"] else "bet", "to": span["max_to"]}
    return {"action": "call"} if legal["call"] else {"action": "check"}


def act_where_due(server: Server, table_id: str, keys: dict[str, dict]) -> int:
    acted = 0
    while True:
        status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=server.admin)
        if status != 200 or legal["to_act"] is None:
            return acted
        status, _, _ = server.call("POST", f"/v1/tables/{table_id}/actions", shove(legal["legal"]),
                                   {**keys[legal["to_act"]], "If-Match": headers["ETag"]})
        if status != 201:  # the table moved on meanwhile (another writer): look again
            return acted
        acted += 1


def settled_chips(store, tournament_id: str) -> int:
    """The chip count, read until two reads in a row agree (a move spans two streams)."""
    previous = None
    for _ in range(50):
        counted, shares = tournament_tables.chips_in_play(store, tournament_id)
        current = (counted, tuple((s.table_id, s.chips, tuple(sorted(s.players))) for s in shares))
        if current == previous:
            return counted
        previous = current
    return counted


def test_forty_players_on_five_tables_play_down_to_one_winner(server, worker, store):
    started = time.monotonic()
    keys = register_players(server)
    tournament_id = schedule(server, keys)
    while len(tournament_tables.chips_in_play(store, tournament_id)[1]) < PLAYERS // TABLE_SIZE:
        assert time.monotonic() - started < TIME_LIMIT_S, f"no tables:\n{worker.text()[-3000:]}"
        time.sleep(0.1)  # the worker creates the five tables
    next_cut = time.monotonic() + LEVEL_S
    checks = 0
    while True:
        assert time.monotonic() - started < TIME_LIMIT_S, f"not finished in {TIME_LIMIT_S} s:\n{worker.text()[-3000:]}"
        _, view, _ = server.call("GET", f"/v1/tournaments/{tournament_id}", headers=server.admin)
        if view["status"] == "finished":
            break
        assert settled_chips(store, tournament_id) == PLAYERS * STACK
        checks += 1
        for shown in view["tables"]:
            act_where_due(server, shown["table_id"], keys)
        if time.monotonic() >= next_cut:
            server.call("POST", f"/v1/tournaments/{tournament_id}/clock/adjust",
                        {"seconds": -(view["clock"]["remaining_s"] - 1)}, server.admin)
            next_cut = time.monotonic() + LEVEL_S
        time.sleep(0.05)
    assert checks > 0
    assert settled_chips(store, tournament_id) == PLAYERS * STACK

    standings = view["standings"]
    assert len(standings) == PLAYERS and {s["player_id"] for s in standings} == set(keys)
    winners = [s for s in standings if s["place"] == 1]
    assert len(winners) == 1
    places = sorted(s["place"] for s in standings)
    # Places 1..40, players busted on one hand sharing the best place they reached.
    assert all(place == 1 + sum(1 for other in places if other < place) for place in places), places
    pool = PLAYERS * BUY_IN
    assert view["prize_pool"] == pool
    assert sum(p["amount"] for p in view["prizes"]) == pool
    place_of = {s["player_id"]: s["place"] for s in standings}
    for prize in view["prizes"]:
        assert place_of[prize["player_id"]] == prize["place"] <= len(PAYOUTS)
    assert view["prizes"][0] == {"player_id": winners[0]["player_id"], "place": 1, "amount": pool * 50 // 100}

    for player_id in keys:
        deadline = time.monotonic() + 10
        while True:
            status, rating, _ = server.call("GET", f"/v1/players/{player_id}/rating", headers=server.admin)
            if status == 200 and any(g["game"] == "tournament" for g in rating["ratings"]):
                break
            assert time.monotonic() < deadline, rating
            time.sleep(0.2)
        [game] = [g for g in rating["ratings"] if g["game"] == "tournament"]
        assert game["games"] == 1, game
