"""The table right after a decision's last HandClosed, as the decider hands it to the snapshot
(domain.live.table.decided), is the table the decision's events fold to from the state
before, up to that HandClosed: equal, and encoded to the same snapshot body, whatever
follows the close in the same decision (an auto-deal table's next hand, absent players'
plays closing it again, a cash player leaving, the table finishing), for every game."""
from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

import pytest

from domain.live import table, table_commands, table_events, table_state
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_texts
from domain.rules.violations import Violation
from service.application import snapshots, views
from tests.unit import test_table_games as games
from tests.unit import test_table_mixed_properties as mixed_play
from tests.unit.test_table_games import SeededDraws

NL = BettingStructure("no-limit", small_blind=5, big_blind=10)
T0 = 1_800_000_000_000


def _checked_decided(state: table_state.TableState | None, command: Any, now_ms: int | None = None,
                     draws: Any = None, seen: Counter[str] | None = None) -> table.Decided:
    decided = table.decided(state, command, now_ms, draws)
    closes = [i for i, event in enumerate(decided.events) if type(event) is table_events.HandClosed]
    if not closes:
        assert decided.closed is None
        return decided
    refolded = functools.reduce(table_state.evolve, decided.events[:closes[-1] + 1], state)
    assert decided.closed == (closes[-1], refolded)
    assert snapshots.encode(decided.closed[1], {}) == snapshots.encode(refolded, {})
    if seen is not None:
        seen["closes"] += 1
        seen["closes twice"] += len(closes) > 1
        after = {type(event).__name__ for event in decided.events[closes[-1] + 1:]}
        seen.update(f"then {name}" for name in after)
    return decided


def _act(state: table_state.TableState, rng: random.Random) -> table_commands.Act:
    legal = views.legal_actions_view(state)["legal"]
    moves = [table_commands.Act(state.to_act, a) for a in ("check", "call", "fold") if legal.get(a)]
    for name in ("bet", "raise"):
        if legal.get(name):
            moves += [table_commands.Act(state.to_act, name, to) for to in {legal[name]["min_to"], legal[name]["max_to"]}]
    return rng.choice(moves)


def _other_command(state: table_state.TableState, rng: random.Random, now: int) -> Any:
    """Now and then something besides an action: a player away or back, a clock run out,
    a cash player standing up, the table closed."""
    seated = [p for p in state.players if p != table_state.EMPTY_SEAT]
    roll = rng.random() if seated else 1.0
    if roll < 0.3 and state.clock is not None:
        return table_commands.ExpireClock(state.clock.hand_id, state.clock.seat, state.clock.deadline_at_ms), \
            state.clock.deadline_at_ms
    if roll < 0.5:
        return table_commands.SitOut(rng.choice(seated)), now
    if roll < 0.7:
        return table_commands.ReturnToSeat(rng.choice(seated)), now
    if roll < 0.9 and state.cash:
        return table_commands.StandUp(rng.choice(seated)), now
    if roll < 0.92:
        return table_commands.CloseTable(), now
    return None, now


def _drive(create: table_commands.CreateTable, seed: int, steps: int, seen: Counter[str]) -> None:
    rng, draws = random.Random(seed), SeededDraws(seed)
    state = _checked_decided(None, create).state
    now = T0
    for _ in range(steps):
        if state.finished:
            return
        now += 1000
        command: Any = None
        if rng.random() < 0.15:
            command, now = _other_command(state, rng, now)
        if command is None and state.hand_in_progress and state.to_act is not None:
            command = _act(state, rng)
        if command is None and not state.hand_in_progress:
            if state.cash and sum(1 for s in state.stacks if s > 0) < 2:
                command = table_commands.SitDown(f"n{now}", create.min_buy_in or 0)
            else:
                command = table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt())
        if command is None:
            continue
        try:
            state = _checked_decided(state, command, now, draws, seen).state
        except Violation:
            continue


def _seats(stacks: list[int]) -> tuple[table_commands.TableSeat, ...]:
    return tuple(table_commands.TableSeat(f"p{i}", stack) for i, stack in enumerate(stacks))


@pytest.mark.parametrize("auto_deal", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_closed_state_of_a_holdem_table_is_the_refolded_state(auto_deal, seed):
    seen: Counter[str] = Counter()
    for number in range(8):
        stacks = [random.Random(seed * 100 + number).randint(30, 600) for _ in range(2 + number % 5)]
        create = table_commands.CreateTable(f"t{number}", "holdem", {}, NL, _seats(stacks),
                                            action_clock_s=30, auto_deal=auto_deal, time_bank_s=10)
        _drive(create, seed * 100 + number, 400, seen)
    assert seen["closes"] > 20
    assert seen["then TableFinished"]
    if auto_deal:
        assert seen["then HandOpened"]


def test_the_closed_state_of_cash_tables_is_the_refolded_state():
    """A player who stood up during the hand leaves right after its HandClosed; a table
    closed during a hand finishes right after it; an auto-deal table deals on."""
    seen: Counter[str] = Counter()
    for seed in range(16):
        create = table_commands.CreateTable(f"c{seed}", "holdem", {}, NL, _seats([200, 300, 400, 250]),
                                            action_clock_s=20, auto_deal=seed % 2 == 0,
                                            min_buy_in=100, max_buy_in=1000)
        _drive(create, seed, 300, seen)
    assert seen["then PlayerLeftTable"] and seen["then TableFinished"] and seen["then HandOpened"]
    assert seen["closes twice"]


def test_the_closed_state_of_tournament_tables_is_the_refolded_state():
    """Away players' hands are dead at a tournament's table, folded the moment their turn comes."""
    seen: Counter[str] = Counter()
    for seed in range(10):
        seats = (*_seats([300, 500, 200]), table_commands.TableSeat(table_state.EMPTY_SEAT, 0))
        create = table_commands.CreateTable(f"m{seed}", "holdem", {}, NL, seats, action_clock_s=30,
                                            tournament_id="tour")
        _drive(create, seed, 300, seen)
    assert seen["closes"] > 50


@pytest.mark.parametrize("game, settings_, stacks", [
    ("five-card-draw", {"hands": 4, "ante": 5, "opening": "jacks_or_better"}, (500, 500, 500)),
    ("palace", {"small_bet": 10, "big_bet": 20}, (200, 200, 200)),
    ("dice", {}, (0, 0)),
])
def test_the_closed_state_of_the_other_games_is_the_refolded_state(game, settings_, stacks, monkeypatch):
    seen: Counter[str] = Counter()
    monkeypatch.setattr(table, "handle", lambda *args: _checked_decided(*args, seen=seen)[:2])
    games._play_table(game, settings_, stacks, 5)
    assert seen["closes"] >= 1


@pytest.mark.parametrize("game", ["stud_hi_lo", "omaha_hi_lo", "deuce_seven_triple_draw", "horse", "eight_game"])
def test_the_closed_state_of_the_mixed_games_is_the_refolded_state(game, monkeypatch):
    seen: Counter[str] = Counter()
    monkeypatch.setattr(table, "handle", lambda *args: _checked_decided(*args, seen=seen)[:2])
    for seed in range(3):
        mixed_play._play(game, [120, 200, 150], seed)
    assert seen["closes"] >= 3
