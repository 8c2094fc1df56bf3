"""A tournament run as an organiser and the floor run one, end to end: gunicorn serves
HTTP, a real `celery worker -B` deals every hand, and scripted players act through HTTP.

30 entries on five tables of six (28 at the start, two late), re-entries, rebuys and
add-ons, a pause, the level set back and forward, five floor moves asked while the
player's hand is being played (each made after that hand), a scheduled colour-up, and
hand-for-hand at the bubble, during which everybody is all in so that players bust in one
round at different tables. At every check the chips at the tables are the ledger's
(entries x stack + rebuys x rebuy chips + add-ons x add-on chips - chips raced off); at
the end the places and prizes follow tournaments.md and each player is rated once.

The scripted players only act when the test lets them, so "mid-hand" is a hand the test
has stopped acting in: nothing else moves it (the tables' action clocks are off).
"""
from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from domain.records import from_record
from domain.tournaments import events as tournament_events
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments import tournament
from domain.tournaments.payouts import payout_amounts
from service.application import tournament_tables, tournaments
from tests import applications
from tests.e2e.conftest import Server, scripted_players
from tests.integration.conftest import CeleryWorker

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("clock_worker")]

EARLY, LATE = 28, 2
TABLE_SIZE = 6  # three tables at the bubble: a round there busts players at more than one
STACK = 2000
REBUY_CHIPS, ADD_ON_CHIPS = 2000, 3000
BUY_IN, REBUY_PRICE, ADD_ON_PRICE = 100, 100, 50
PAID = 12  # the bubble comes with 13 players left, on three tables
PAYOUTS = ["20", "15", "12", "10", "8", "7", "6", "5", "5", "4", "4", "4"]
LONG_S, TURBO_S = 900, 3
TIME_LIMIT_S = 420


def structure() -> list[dict]:
    """Levels 1 and 2 are long (the test moves the clock itself), then a break for the
    add-ons, level 3 colours up the 25s, and turbo levels play it down."""
    turbo = [(200, 400), (300, 600), (500, 1000), (1000, 2000), (2000, 4000), (4000, 8000),
             (8000, 16000), (15000, 30000), (30000, 60000), (60000, 120000)]
    return [
        {"small_blind": 25, "big_blind": 50, "seconds": LONG_S},
        {"small_blind": 50, "big_blind": 100, "seconds": LONG_S},
        {"break": True, "seconds": LONG_S},
        {"small_blind": 100, "big_blind": 200, "seconds": TURBO_S, "colour_up": 100},
        *({"small_blind": sb, "big_blind": bb, "seconds": TURBO_S} for sb, bb in turbo),
    ]


class Floor:
    """The organiser's and the floor's calls, and the scripted players at the tables."""

    def __init__(self, server: Server, store, keys: dict[str, dict], worker: CeleryWorker) -> None:
        self.server, self.store, self.keys, self.worker = server, store, keys, worker
        self.rng = random.Random(30)
        self.tournament_id = ""
        self.started = time.monotonic()
        self.checks = 0

    def call(self, method: str, path: str, body: dict | None = None, expect: tuple[int, ...] = (200, 201)) -> dict:
        status, answer, _ = self.server.call(method, f"/v1/tournaments/{self.tournament_id}{path}", body,
                                             self.server.admin)
        assert status in expect, (method, path, body, status, answer)
        return answer

    def view(self) -> dict:
        return self.call("GET", "")

    def in_time(self, what: str) -> None:
        if time.monotonic() - self.started < TIME_LIMIT_S:
            return
        last = [f"{type(e).__name__} {e}" for e in read_tournament_events(self.store, self.tournament_id)[-15:]]
        raise AssertionError(f"{what}: not within {TIME_LIMIT_S} s; the tournament's last events:\n"
                             + "\n".join(last) + "\nthe worker:\n" + self.worker.text()[-3000:])

    def settled(self) -> dict:
        """The tournament's view once the worker has nothing left to do and every player
        sits where the tournament seats them (nobody between two tables): the tournament
        and every table unchanged over 0.3 s (the players only act when the test says)."""
        previous = None
        while True:
            self.in_time("a settled tournament")
            view = self.view()
            current = (view["version"], tuple(self.legal(t["table_id"])[1] for t in view["tables"]))
            # Once finished, the last table keeps its busted seats: nobody moves any more.
            waiting = [] if view["status"] == "finished" else \
                [t["table_id"] for t in view["tables"]
                 if self.seated_at(t["table_id"]) != {p["player_id"] for p in t["players"]}]
            if current == previous and not waiting:
                return view
            for table_id in waiting:  # players sit down there once its hand is over
                self.act(table_id, shove=0.0, call=0.0)
            previous = current
            time.sleep(0.3)

    def seated_at(self, table_id: str) -> set[str]:
        status, shown, _ = self.server.call("GET", f"/v1/tables/{table_id}", headers=self.server.admin)
        return {seat["player_id"] for seat in shown["seats"] if seat.get("player_id")} if status == 200 else set()

    def assert_chips_conserved(self) -> dict:
        """The tables hold what the ledger says is in play, and the ledger adds up."""
        view = self.settled()
        chips = view["chips"]
        assert chips["issued"] == (view["entries"] * STACK + chips["rebuys"] * REBUY_CHIPS
                                   + chips["add_ons"] * ADD_ON_CHIPS), chips
        assert chips["in_play"] == chips["issued"] - chips["removed"], chips
        counted, _ = tournament_tables.chips_in_play(applications.of(self.store), self.tournament_id)
        assert counted == chips["in_play"], (counted, chips)
        self.checks += 1
        return view

    def seated(self, view: dict) -> dict[str, tuple[int, str]]:
        """player -> (table number, live table id)"""
        return {p["player_id"]: (t["number"], t["table_id"]) for t in view["tables"] for p in t["players"]}

    def legal(self, table_id: str) -> tuple[dict, str]:
        """Who is to act and how; nobody at a table the worker has not opened yet."""
        status, legal, headers = self.server.call("GET", f"/v1/tables/{table_id}/legal-actions",
                                                  headers=self.server.admin)
        if status == 404:
            return {"to_act": None}, ""
        assert status == 200, legal
        return legal, headers["ETag"]

    def act(self, table_id: str, shove: float, call: float, limit: int = 1000, heads_up: bool = False) -> int:
        """Plays the table's hand on until nobody is to act (or `limit` actions). With
        `heads_up`, once a bet is called everybody else folds: at most one player busts."""
        acted, called = 0, False
        while acted < limit:
            legal, etag = self.legal(table_id)
            if legal["to_act"] is None:
                return acted
            # Heads-up: nobody raises a bet (a raise over a blind that put a player all in
            # would make three players all in), and the first call closes the hand to others.
            body = self.choose(legal["legal"], shove, 0.0 if heads_up and called else call,
                               raise_over_bet=not heads_up)
            called |= body["action"] == "call"
            status, answer, _ = self.server.call("POST", f"/v1/tables/{table_id}/actions", body,
                                                 {**self.keys[legal["to_act"]], "If-Match": etag})
            if status != 201:  # the table moved on meanwhile (a deal): look again
                return acted
            acted += 1
        return acted

    def choose(self, legal: dict, shove: float, call: float, raise_over_bet: bool = True) -> dict:
        facing_bet = legal["call"] is not None
        if facing_bet and self.rng.random() > call:
            return {"action": "fold"}
        span = legal["raise"] or legal["bet"]
        if span and (raise_over_bet or not facing_bet) and self.rng.random() < shove:
            return {"action": "raise" if legal["raise"] else "bet", "to": span["max_to"]}
        return {"action": "call"} if facing_bet else {"action": "check"}

    def play_round(self, shove: float = 0.3, call: float = 0.4, heads_up_from: int = 0) -> None:
        """A hand at each table; at `heads_up_from` players left or fewer (looked at before
        each table's hand) at most one player busts a hand."""
        for shown in self.view()["tables"]:
            heads_up = self.view()["players_left"] <= heads_up_from
            self.act(shown["table_id"], shove, call, heads_up=heads_up)
        time.sleep(0.05)

    def hand_in_progress(self, table_id: str) -> bool:
        legal, _ = self.legal(table_id)
        return legal["to_act"] is not None

    def wait_for_hands(self) -> dict:
        """Every open table has a hand dealt (the worker deals them)."""
        while True:
            self.in_time("hands dealt")
            view = self.view()
            if all(self.hand_in_progress(t["table_id"]) for t in view["tables"]):
                return view
            time.sleep(0.1)

    def stack(self, player_id: str) -> int:
        for shown in self.view()["tables"]:
            for seat in shown["players"]:
                if seat["player_id"] == player_id:
                    return seat["chips"]
        raise AssertionError(f"{player_id} is not seated")


def read_tournament_events(store, tournament_id: str) -> list[object]:
    return [from_record(tournament_events.EVENT_TYPES, r.type, r.data)
            for r in store.read_stream(tournaments.stream_id(tournament_id))]


def test_an_event_with_rebuys_moves_a_colour_up_and_hand_for_hand_at_the_bubble(server, worker, store):
    players = scripted_players(server, EARLY + LATE, "Entrant")
    keys = dict(players)
    floor = Floor(server, store, keys, worker)
    status, created, _ = server.call("POST", "/v1/tournaments", {
        "name": "Thirty with everything", "game": "holdem", "levels": structure(),
        "starting_stack": STACK, "buy_in": BUY_IN, "table_size": TABLE_SIZE, "starts_at": "now",
        "late_registration_until_level": 2, "re_entries_allowed": 1,
        "rebuy_price": REBUY_PRICE, "rebuy_chips": REBUY_CHIPS, "rebuys_allowed": 2, "rebuy_until_level": 2,
        "add_on_price": ADD_ON_PRICE, "add_on_chips": ADD_ON_CHIPS, "add_on_until_level": 2,
        "denominations": [25, 100, 500, 1000], "payout_percentages": PAYOUTS,
        "hand_for_hand_at_bubble": True}, server.admin)
    assert status == 201, created
    floor.tournament_id = created["id"]
    for player_id, _ in players[:EARLY]:
        floor.call("POST", "/registrations", {"player_id": player_id})
    floor.call("POST", "/start", {})
    view = floor.wait_for_hands()
    assert len(view["tables"]) == -(-EARLY // TABLE_SIZE) and view["clock"]["level"] == 1

    # Late registration: two more are seated at the tables with a free seat.
    for player_id, _ in players[EARLY:]:
        floor.call("POST", "/registrations", {"player_id": player_id})
    floor.assert_chips_conserved()

    # A pause stops the clock; resuming goes on from the time left.
    paused = floor.call("POST", "/clock/pause", {})
    assert paused["events"]
    left = floor.view()["clock"]
    assert left["paused"] and left["ends_at"] is None
    time.sleep(1.2)
    assert floor.view()["clock"]["remaining_s"] == left["remaining_s"]
    floor.call("POST", "/clock/resume", {})
    assert not floor.view()["clock"]["paused"]

    # Five floor moves, each asked while the player's hand is being played: queued (202),
    # made after that hand and before the table's next deal.
    moves_made = 0
    while moves_made < 5:
        floor.in_time("five floor moves")
        view = floor.wait_for_hands()
        free = [(t["number"], seat) for t in view["tables"]
                for seat in range(1, TABLE_SIZE + 1) if seat not in {p["seat"] for p in t["players"]}]
        sizes = {t["number"]: len(t["players"]) for t in view["tables"]}
        # From a fuller table to an emptier one, so balancing does not send them back.
        # (A player busted in the rebuy period keeps the seat, and is not moved, until they rebuy.)
        movers = [(p["player_id"], t) for t in view["tables"] for p in t["players"]
                  if not p["awaiting_rebuy"] and any(sizes[t["number"]] > sizes[number] for number, _ in free)]
        if not movers:
            floor.play_round()
            continue
        player_id, from_table = floor.rng.choice(movers)
        to_table, to_seat = next((n, s) for n, s in free if sizes[n] < sizes[from_table["number"]])
        assert floor.hand_in_progress(from_table["table_id"])
        queued = floor.call("POST", "/moves", {"player_id": player_id, "to_table": to_table, "to_seat": to_seat},
                            expect=(202, 422))
        if queued.get("code") == "seat_taken":
            continue  # the tables play on: a bust's balancing filled that seat since the view was read
        assert "move" in queued, queued
        move_id = queued["move"]["move_id"]
        assert move_id in [m["move_id"] for m in floor.view()["pending_moves"]]
        assert floor.seated(floor.view())[player_id][0] == from_table["number"]  # not while the hand plays
        to_table_id = next(t["table_id"] for t in view["tables"] if t["number"] == to_table)
        while move_id in [m["move_id"] for m in floor.view()["pending_moves"]]:
            floor.in_time(f"move {move_id}")  # made once both tables are between hands
            # The mover's table as it is now: a table break may have seated them elsewhere.
            mover_at = floor.seated(floor.view()).get(player_id)
            for table_id in {to_table_id, *([mover_at[1]] if mover_at else [])}:
                floor.act(table_id, shove=0.0, call=0.2)
            time.sleep(0.05)
        made = [e for e in read_tournament_events(store, floor.tournament_id)
                if isinstance(e, tournament_events.PlayerMoved) and e.move_id == move_id]
        if made:  # else cancelled: the player busted in that hand, or the seat was taken
            assert (made[0].move.player_id, made[0].move.to_table, made[0].move.reason) == (player_id, to_table, "floor")
            moves_made += 1
        floor.assert_chips_conserved()

    # Rebuys (at or below the starting stack) and re-entries (after a bust) while level 1
    # and 2 last; a rebuy asked mid-hand is credited after the hand.
    rebought: Counter[str] = Counter()
    re_entered: set[str] = set()
    while len(rebought) < 3 or not re_entered:
        floor.in_time("rebuys and re-entries")
        view = floor.wait_for_hands()
        seated = floor.seated(view)
        for player_id, (_, table_id) in seated.items():
            if rebought[player_id] < 1 and floor.stack(player_id) <= STACK and len(rebought) < 3:
                before = floor.stack(player_id)
                taken = floor.call("POST", "/rebuys", {"player_id": player_id})
                assert taken["events"]
                rebought[player_id] += 1
                floor.act(table_id, shove=0.0, call=0.0)  # folds to the end of the hand
                floor.wait_for_hands()
                if player_id in floor.seated(floor.view()):
                    assert floor.stack(player_id) >= before - STACK + REBUY_CHIPS  # credited between hands
        busted = [s["player_id"] for s in floor.view()["standings"]]
        for player_id in busted:
            if player_id not in re_entered:
                floor.call("POST", "/registrations", {"player_id": player_id})
                re_entered.add(player_id)
        floor.play_round(shove=0.5, call=0.5)
        floor.assert_chips_conserved()

    # The level set forward (its full time) and back: level 1 gets the time it had when
    # the clock left it (a mistaken "next" undone, running-events.md).
    had = floor.view()["clock"]["remaining_s"]
    floor.call("POST", "/clock/level", {"level": 2})
    assert floor.view()["clock"]["level"] == 2
    floor.call("POST", "/clock/level", {"level": 1})
    clock = floor.view()["clock"]
    assert clock["level"] == 1 and had - 5 <= clock["remaining_s"] <= had
    floor.call("POST", "/clock/level", {"step": 2})  # level 1 -> level 2 -> the break
    assert floor.view()["clock"]["on_break"]

    # Add-ons in the break after level 2 (no hands are dealt in it: the hands of level 2
    # still playing are played out first), for the biggest stack of each table.
    for shown in floor.view()["tables"]:
        floor.act(shown["table_id"], shove=0.0, call=0.0)
    # The stacks once the worker has recorded every hand's end: a hand's end reaches the
    # tournament a moment after the table, and a stack read before it would never match.
    view = floor.settled()
    adders = [max(t["players"], key=lambda p: p["chips"])["player_id"] for t in view["tables"]]
    stacks = {p["player_id"]: p["chips"] for t in view["tables"] for p in t["players"]}
    for player_id in adders:
        floor.call("POST", "/add-ons", {"player_id": player_id})
    while any(floor.stack(p) != stacks[p] + ADD_ON_CHIPS for p in adders):
        floor.in_time("add-on chips at the tables")
        time.sleep(0.1)
    floor.assert_chips_conserved()

    # Level 3 begins with the colour-up of the 25s: a chip race at every table.
    floor.call("POST", "/clock/level", {"level": 3})
    while not any(isinstance(e, tournament_events.ChipsRaced) for e in read_tournament_events(store, floor.tournament_id)):
        floor.in_time("the colour-up")
        floor.play_round(shove=0.0, call=0.2)
    view = floor.assert_chips_conserved()

    # Turbo levels down to the end. Near the bubble one player at most busts a hand, so
    # the field reaches the bubble (hand-for-hand starts at one player more than the
    # places paid); during hand-for-hand everybody is all in, so that players bust in one
    # round at more than one table.
    while True:
        floor.in_time("the end")
        view = floor.view()
        if view["status"] == "finished":
            break
        if view["hand_for_hand"]:
            floor.play_round(shove=1.0, call=1.0)
        else:
            floor.play_round(shove=0.5, call=0.5, heads_up_from=PAID + 6)
        floor.assert_chips_conserved()
    assert floor.checks > 10

    events = read_tournament_events(store, floor.tournament_id)
    state, table_of, field, rounds, at_the_bubble = tournament.INITIAL, {}, [], [], False
    for event in events:
        at_the_bubble |= state.seating.players == PAID + 1 and state.seating.open_tables > 1
        if isinstance(event, (tournament_events.PlayersEliminated, tournament_events.PlayersBusted, tournament_events.HandForHandStarted)):
            field.append((type(event).__name__, state.seating.players, state.seating.open_tables))
        if isinstance(event, tournament_events.PlayersEliminated) and state.hand_for_hand:
            by_place: dict[int, set[int]] = {}
            for out in event.eliminations:
                by_place.setdefault(out.place, set()).add(table_of[out.player_id])
            rounds.append(by_place)
        state = tournament_evolver.evolve(state, event)
        table_of.update({player: where[0] for player, where in state.seating.where.items()})
    entries = EARLY + LATE + len(re_entered)
    assert view["entries"] == entries
    assert view["chips"]["rebuys"] == sum(rebought.values()) and view["chips"]["add_ons"] == len(adders)
    assert sum(isinstance(e, tournament_events.ChipsRaced) for e in events) >= 1
    assert view["chips"]["removed"] == sum(e.removed for e in events if isinstance(e, tournament_events.ChipsRaced))

    # Hand-for-hand: players out in one round at different tables share the places they
    # reached and split those prizes (TDA 2024 RP-8-A); it was on at the bubble and off once
    # it burst.
    # The play near the bubble busts one player a hand at most, but a blind that puts a
    # short stack all in can still make two; a field that steps over the bubble in one
    # hand never stands at it, and then needs no hand-for-hand.
    started_at = [i for i, e in enumerate(events) if isinstance(e, tournament_events.HandForHandStarted)]
    stopped_at = [i for i, e in enumerate(events) if isinstance(e, tournament_events.HandForHandStopped)]
    print(f"the field at each bust (players, tables): {field}")
    assert bool(started_at) == at_the_bubble, field
    if started_at:
        assert stopped_at and stopped_at[-1] > started_at[0], field
    pool = BUY_IN * entries + REBUY_PRICE * sum(rebought.values()) + ADD_ON_PRICE * len(adders)
    assert view["prize_pool"] == pool
    amounts = payout_amounts(pool, tuple(PAYOUTS))
    standings = view["standings"]
    assert {s["player_id"] for s in standings} == set(keys)
    places = sorted(s["place"] for s in standings)
    assert places[0] == 1 and places.count(1) == 1
    assert all(place == 1 + sum(1 for other in places if other < place) for place in places), places
    prize_of = {p["player_id"]: p["amount"] for p in view["prizes"]}
    assert sum(prize_of.values()) == pool
    by_place: dict[int, list[str]] = {}
    for s in standings:
        by_place.setdefault(s["place"], []).append(s["player_id"])
    for place, sharing in by_place.items():
        shared = amounts[place - 1: place - 1 + len(sharing)]
        paid = sorted(prize_of.get(p, 0) for p in sharing)
        assert sum(paid) == sum(shared) and paid[-1] - paid[0] <= 1, (place, sharing, paid, shared)
    # The cards decide whether a round's busts fall at one table or several (all in at
    # three tables, several do about 6 times in 7): where they fall at several, those
    # tables share a place.
    assert bool(rounds) == bool(started_at), f"nobody was out during hand-for-hand: {field}"
    for by_place in rounds:
        tables_out = set().union(*by_place.values())
        if len(tables_out) > 1:
            assert any(len(tables) > 1 for tables in by_place.values()), (by_place, field)
    print(f"hand-for-hand rounds with busts, place -> tables: {rounds}")

    # Each player is rated once for the tournament, re-entries or not.
    for player_id in keys:
        deadline = time.monotonic() + 20
        while True:
            status, rating, _ = server.call("GET", f"/v1/players/{player_id}/rating", headers=server.admin)
            if status == 200 and any(g["game"] == "tournament" for g in rating["ratings"]):
                break
            assert time.monotonic() < deadline, rating
            time.sleep(0.2)
        [game] = [g for g in rating["ratings"] if g["game"] == "tournament"]
        assert game["games"] == 1, game
