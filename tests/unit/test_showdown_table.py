"""The declared showdown at a live table: the clock runs for the player to show, and one who
lets it run out (or is away) is played as the cards speak: the first to show shows, a
later hand shows if it beats or ties every hand shown, else it is mucked (a house decision:
declarations.md names no timing)."""
from __future__ import annotations

import pytest

from domain.games import holdem
from domain.live.table import handle
from domain.live.table_commands import Act, CreateTable, ExpireClock, SitOut, StartNextHand, TableSeat
from domain.live.table_events import AutomaticAction, ClockStarted, HandClosed
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from tests.unit.test_showdown_tda import live_deck

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SALT = "ef" * 32
CLOCK_S = 30
T0 = 1_700_000_000_000


class Table:
    """Three players P0 (button), P1, P2 at a declared table with a clock."""

    def __init__(self, hole: list[str], board: str = "3s8s9hJcQd"):
        seats = tuple(TableSeat(f"P{i}", 1000) for i in range(3))
        self.now = T0
        self.events, self.state = handle(None, CreateTable("t1", "holdem", {"showdown": "declared"}, NL, seats,
                                                          False, CLOCK_S))
        self(StartNextHand(live_deck(hole, board), SALT))

    def __call__(self, command, *, after_ms: int = 0):
        self.now += after_ms
        events, self.state = handle(self.state, command, self.now)
        self.events.extend(events)
        return events

    def check_down(self):
        while self.state.hand.betting.to_act is not None:
            hand = self.state.hand
            owed = hand.betting.highest - hand.betting.bets[hand.betting.to_act]
            self(Act(self.state.to_act, "call" if owed else "check"))

    def expire(self):
        clock = self.state.clock
        return self(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms), after_ms=CLOCK_S * 1000)


def decisions(events) -> list[tuple[str, int]]:
    return [(type(e).__name__, e.position) for e in events if isinstance(e, (holdem.CardsShown, holdem.CardsMucked))]


def test_the_clock_runs_for_the_player_to_show_and_on_expiry_the_cards_speak():
    # P1 (first left of the button) holds kings, P2 aces, P0 nothing.
    table = Table(["KhKd", "AhAd", "7c2d"])
    table.check_down()
    clock = table.state.clock
    assert isinstance(clock, ClockStarted) and clock.player_id == "P1" and table.state.to_act == "P1"
    events = table.expire()
    assert any(isinstance(e, AutomaticAction) for e in events)
    assert decisions(events) == [("CardsShown", 1)], "the first to show shows"
    events = table.expire()
    assert decisions(events) == [("CardsShown", 2)], "the aces beat the kings: shown"
    events = table.expire()
    assert decisions(events) == [("CardsMucked", 0)], "nothing beats nothing shown: mucked"
    assert any(isinstance(e, HandClosed) for e in events)


def test_an_absent_player_is_played_at_the_showdown_too():
    table = Table(["KhKd", "AhAd", "7c2d"])
    table(Act("P0", "call"))
    table(SitOut("P0"))  # the computer checks for P0 from here
    table.check_down()
    table(Act("P1", "show"))
    events = table(Act("P2", "show"))
    assert decisions(events) == [("CardsShown", 2), ("CardsMucked", 0)]


def test_a_player_asks_to_see_through_the_table_and_shows_in_turn():
    table = Table(["KhKd", "AhAd", "7c2d"])
    table(Act("P0", "call"))
    table(Act("P1", "call"))
    table(Act("P2", "check"))
    for _ in range(2):
        for player in ("P1", "P2", "P0"):
            table(Act(player, "check"))
    table(Act("P1", "bet", 200))
    table(Act("P2", "call"))
    table(Act("P0", "call"))
    events = table(Act("P0", "ask_to_see"))
    assert decisions(events) == [("CardsShown", 1)]
    with pytest.raises(Violation) as refused:
        table(Act("P0", "show"))
    assert refused.value.code == "not_your_turn_to_show"


def test_a_showdown_setting_other_than_automatic_or_declared_is_refused():
    seats = tuple(TableSeat(f"P{i}", 1000) for i in range(2))
    with pytest.raises(Violation) as refused:
        handle(None, CreateTable("t2", "holdem", {"showdown": "sometimes"}, NL, seats))
    assert refused.value.code == "invalid_table"
