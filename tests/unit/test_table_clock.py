"""Action clocks and absent players at a live table: given the table's events, when a
command at a given time, then events (or a violation)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.live.table import automatic_flags, event_types, handle
from domain.live.table_commands import Act, CreateTable, ExpireClock, ReturnToSeat, SitOut, StartNextHand, TableSeat
from domain.live.table_events import AutomaticAction, ClockExpired, ClockStarted, HandClosed, PlayerReturned, PlayerSatOut
from domain.live.table_state import replay
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation
from domain.tournaments.clock import ClockPaused, ClockResumed, LevelStarted, clock_from_events, read_clock
from domain.tournaments.structure import Period

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SALT = "cd" * 32
CLOCK_S = 30
T0 = 1_700_000_000_000  # ms since the epoch


def deck(seed: int = 1) -> tuple[str, ...]:
    return tuple(format_card(c) for c in shuffled(new_deck(), random.Random(seed)))


class Table:
    """A clocked table's events, the state they replay to, and the time (ms)."""

    def __init__(self, players: int = 2, clock_s: int | None = CLOCK_S):
        seats = tuple(TableSeat(f"P{i}", 1000) for i in range(players))
        self.now = T0
        self.events, self.state = handle(None, CreateTable("t1", "holdem", {}, NL, seats, False, clock_s))

    def __call__(self, command, *, after_ms: int = 0):
        self.now += after_ms
        events, self.state = handle(self.state, command, self.now)
        self.events.extend(events)
        return events

    def start(self, seed: int = 1):
        return self(StartNextHand(deck(seed), SALT))

    def expire(self, *, after_ms: int = CLOCK_S * 1000):
        clock = self.state.clock
        return self(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms), after_ms=after_ms)

    def refused(self, command, *, after_ms: int = 0) -> Violation:
        before = (list(self.events), self.state)
        with pytest.raises(Violation) as raised:
            self(command, after_ms=after_ms)
        assert (self.events, self.state) == before
        return raised.value


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


# ------------------------------------------------------------------------ the clock


def test_starting_a_hand_starts_the_first_players_clock_in_the_same_append():
    table = Table()
    events = table.start()
    # Heads-up the button (seat 0) posts the small blind and acts first pre-flop.
    assert events[-1] == ClockStarted("t1.1", 0, "P0", T0 + CLOCK_S * 1000)
    assert table.state.clock == events[-1]


def test_a_table_without_a_clock_records_no_deadline():
    table = Table(clock_s=None)
    events = table.start()
    table(Act("P0", "call"))
    assert not any(isinstance(e, ClockStarted) for e in table.events)
    assert table.state.clock is None and events


def test_an_action_in_time_starts_the_next_players_clock_from_the_time_of_the_action():
    table = Table()
    table.start()
    events = table(Act("P0", "call"), after_ms=4_000)
    assert events[-1] == ClockStarted("t1.1", 1, "P1", T0 + 4_000 + CLOCK_S * 1000)


def test_the_clock_of_a_player_who_acted_in_time_can_no_longer_expire():
    table = Table()
    table.start()
    first = table.state.clock
    table(Act("P0", "call"), after_ms=4_000)
    refused = table.refused(ExpireClock(first.hand_id, first.seat, first.deadline_at_ms), after_ms=60_000)
    assert refused.code == "clock_not_running"


def test_a_clock_cannot_expire_before_its_deadline():
    table = Table()
    table.start()
    clock = table.state.clock
    refused = table.refused(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                            after_ms=CLOCK_S * 1000 - 1)
    assert refused.code == "clock_not_expired"
    assert refused.numbers == {"deadline_at_ms": clock.deadline_at_ms, "now_ms": clock.deadline_at_ms - 1}


def test_on_expiry_facing_a_bet_the_hand_is_folded_automatically():
    table = Table()
    table.start()
    events = table.expire()
    assert kinds(events)[:3] == ["ClockExpired", "AutomaticAction", "ActionTaken"]
    assert events[0] == ClockExpired("t1.1", 0, "P0", T0 + 30_000, T0 + 30_000)
    assert events[1] == AutomaticAction("t1.1", 0, "P0", "clock_expired")
    assert (events[2].position, events[2].action) == (0, "fold")
    assert isinstance(events[-1], HandClosed) and [e.stack for e in events[-1].stacks] == [950, 1050]


def test_a_clock_expires_exactly_once():
    table = Table()
    table.start()
    clock = table.state.clock
    table.expire()
    refused = table.refused(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms), after_ms=1)
    assert refused.code == "clock_not_running"
    assert sum(isinstance(e, ClockExpired) for e in table.events) == 1


def test_on_expiry_with_nothing_to_call_the_player_checks_and_the_next_clock_starts():
    table = Table()
    table.start()
    table(Act("P0", "call"))
    events = table.expire()  # the big blind may check
    assert (events[2].position, events[2].action) == (1, "check")
    assert any(isinstance(e, holdem.BoardDealt) for e in events)
    # After the flop the big blind acts first heads-up: a fresh clock from the expiry.
    assert events[-1] == ClockStarted("t1.1", 1, "P1", T0 + 30_000 + 30_000)


def test_a_late_expiry_records_when_it_was_acted_on():
    table = Table()
    table.start()
    events = table.expire(after_ms=30_750)
    assert events[0].expired_at_ms - events[0].deadline_at_ms == 750


def test_only_the_computers_action_is_marked_automatic():
    table = Table()
    table.start()
    events = table.expire()
    flags = dict(zip(kinds(events), automatic_flags(events)))
    assert flags == {"ClockExpired": False, "AutomaticAction": False, "ActionTaken": True,
                     "UncalledReturned": True, "PotAwarded": True, "HandEnded": True, "HandClosed": False}


# -------------------------------------------------------------------- missed clocks


def test_two_missed_clocks_in_a_row_make_the_player_absent():
    table = Table()
    table.start()
    table(Act("P0", "call"))
    table.expire()  # P1 checks on the timeout: first miss
    events = table.expire()  # P1 again, after the flop: second miss in a row
    assert kinds(events)[:3] == ["ClockExpired", "PlayerSatOut", "AutomaticAction"]
    assert events[1] == PlayerSatOut(1, "P1", "missed_clocks")
    assert table.state.sitting_out == (False, True)


def test_an_action_in_time_between_two_missed_clocks_forgives_the_first():
    table = Table()
    table.start()
    table(Act("P0", "call"))
    table.expire()  # P1 misses once (checks)
    table(Act("P1", "check"))  # ... then acts in time on the flop
    table(Act("P0", "check"))
    events = table.expire()  # P1 misses on the turn: one in a row, not two
    assert not any(isinstance(e, PlayerSatOut) for e in events)
    assert table.state.missed_clocks == (0, 1)


def test_missed_clocks_count_across_hands():
    table = Table()
    table.start()
    table.expire()  # P0 folds the small blind: one miss
    table.start(seed=2)  # P1 is the button now and acts first
    table.expire()  # P1 folds: one miss
    table.start(seed=3)
    events = table.expire()  # P0 again: the second in a row
    assert PlayerSatOut(0, "P0", "missed_clocks") in events


# ---------------------------------------------------------------------- absence


def test_an_absent_player_is_played_by_the_computer_as_soon_as_their_turn_comes():
    table = Table(players=3)
    table(SitOut("P1"))
    table.start()  # button P0; blinds P1 and P2; P0 to act
    events = table(Act("P0", "call"))
    # P1 (small blind, no pair, facing 50 more) is folded for at once; P2's clock starts.
    assert kinds(events)[1:3] == ["AutomaticAction", "ActionTaken"]
    assert events[1] == AutomaticAction("t1.1", 1, "P1", "sitting_out")
    assert (events[2].position, events[2].action) == (1, "fold")
    assert events[-1] == ClockStarted("t1.1", 2, "P2", T0 + 30_000)


def test_sitting_out_on_your_turn_hands_the_turn_to_the_computer_at_once():
    table = Table()
    table.start()
    events = table(SitOut("P0"), after_ms=2_000)
    assert kinds(events)[:3] == ["PlayerSatOut", "AutomaticAction", "ActionTaken"]
    assert events[0] == PlayerSatOut(0, "P0", "requested")
    refused = table.refused(ExpireClock("t1.1", 0, T0 + 30_000), after_ms=60_000)
    assert refused.code == "clock_not_running"


def test_sitting_out_while_another_player_acts_leaves_their_clock_running():
    table = Table(players=3)
    table.start()
    clock = table.state.clock
    assert table(SitOut("P2"), after_ms=1_000) == [PlayerSatOut(2, "P2", "requested")]
    assert table.state.clock == clock


def test_a_returning_player_gets_the_same_seat_back_and_acts_for_themselves_again():
    table = Table(players=3)
    table(SitOut("P1"))
    events = table(ReturnToSeat("P1"))
    assert events == [PlayerReturned(1, "P1")]
    assert table.state.players[1] == "P1" and table.state.sitting_out == (False, False, False)
    table.start()
    table(Act("P0", "call"))
    assert table.state.clock.player_id == "P1"


def test_sitting_out_twice_or_returning_without_leaving_is_refused():
    table = Table()
    table(SitOut("P0"))
    assert table.refused(SitOut("P0")).code == "already_sitting_out"
    assert table.refused(ReturnToSeat("P1")).code == "not_sitting_out"
    assert table.refused(SitOut("nobody")).code == "not_seated"


def test_a_table_of_absent_players_plays_its_hand_out_by_itself():
    table = Table(clock_s=None)
    table(SitOut("P0"))
    table(SitOut("P1"))
    table.start()
    assert not table.state.hand_in_progress
    assert sum(table.state.stacks) == 2000


def test_clock_events_survive_the_store_round_trip():
    table = Table()
    table(SitOut("P1"))
    table.start()
    table.expire()
    types = event_types("holdem")
    rebuilt = [from_record(types, *to_record(e)) for e in table.events]
    assert rebuilt == table.events
    assert replay(rebuilt) == table.state


# --------------------------------------------------------------------- invariants

MOVES = st.lists(st.tuples(st.sampled_from(["act", "expire", "early", "stale", "sit_out", "return", "start"]),
                           st.integers(0, 2), st.integers(0, 40_000)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(MOVES, st.integers(0, 50))
def test_a_clock_runs_for_exactly_the_present_player_to_act_and_expires_at_most_once(moves, seed):
    table = Table(players=3)
    table.start(seed)
    old_clocks = []
    for move, who, wait in moves:
        player = f"P{who}"
        clock = table.state.clock
        try:
            if move == "act" and table.state.to_act:
                table(Act(table.state.to_act, "check" if _may_check(table) else "call"), after_ms=wait)
            elif move == "expire" and clock:
                table(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                      after_ms=max(wait, clock.deadline_at_ms - table.now))
            elif move == "early" and clock and table.now + wait < clock.deadline_at_ms:
                assert table.refused(ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                                     after_ms=wait).code == "clock_not_expired"
            elif move == "stale" and old_clocks:
                stale = old_clocks[wait % len(old_clocks)]
                assert table.refused(ExpireClock(stale.hand_id, stale.seat, stale.deadline_at_ms),
                                     after_ms=wait).code == "clock_not_running"
            elif move == "sit_out" and not table.state.sitting_out[who]:
                table(SitOut(player), after_ms=wait)
            elif move == "return" and table.state.sitting_out[who]:
                table(ReturnToSeat(player), after_ms=wait)
            elif move == "start" and not table.state.hand_in_progress and not table.state.finished:
                table.start(seed + len(table.events))
        except Violation as refused:
            assert refused.code not in ("clock_not_running", "clock_not_expired")
        if clock is not None and table.state.clock != clock:
            old_clocks.append(clock)
        state = table.state
        if state.hand_in_progress and state.seat_to_act is not None:
            assert state.clock is not None and state.clock.seat == state.seat_to_act
            assert not state.sitting_out[state.seat_to_act]
        else:
            assert state.clock is None
    started = [e for e in table.events if isinstance(e, ClockStarted)]
    expired = [(e.hand_id, e.seat, e.deadline_at_ms) for e in table.events if isinstance(e, ClockExpired)]
    assert len(expired) == len(set(expired))
    assert set(expired) <= {(c.hand_id, c.seat, c.deadline_at_ms) for c in started}
    assert sum(table.state.live_stacks) + sum(table.state.hand.betting.committed if table.state.hand_in_progress else ()) == 3000


def _may_check(table: Table) -> bool:
    return holdem.legal_actions(table.state.hand).check


# --------------------------------------------------------------- the level clock


def test_a_paused_level_clock_keeps_its_remaining_time_until_resumed():
    periods = (Period.level(50, 100, minutes=10), Period.level(100, 200, minutes=10))
    events = [LevelStarted(0, at=1000.0), ClockPaused(at=1000.0 + 240)]
    assert read_clock(clock_from_events(periods, events), now=1000.0 + 3600).remaining_s == 360
    events.append(ClockResumed(at=1000.0 + 3600))
    reading = read_clock(clock_from_events(periods, events), now=1000.0 + 3600 + 60)
    assert (reading.level, reading.remaining_s) == (1, 300)


@pytest.mark.parametrize("game", ["five-card-draw", "dice"])
def test_a_games_own_turn_time_limit_is_the_tables_action_clock(game):
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    events, state = handle(None, CreateTable("t1", game, {"turn_time_limit_s": 30}, NL, seats, False, None))

    assert events[0].action_clock_s == 30 and state.action_clock_s == 30


def test_the_action_clock_and_the_turn_time_limit_must_agree_when_both_are_given():
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    agreed, _ = handle(None, CreateTable("t1", "five-card-draw", {"turn_time_limit_s": 30}, NL, seats, False, 30))
    assert agreed[0].action_clock_s == 30

    with pytest.raises(Violation) as refused:
        handle(None, CreateTable("t1", "five-card-draw", {"turn_time_limit_s": 30}, NL, seats, False, 60))
    assert refused.value.code == "invalid_table"
    assert "action_clock_s 60" in refused.value.detail and "turn_time_limit_s 30" in refused.value.detail


def test_a_time_bank_extends_the_clock_once_then_the_clock_acts():
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    table = Table()
    table.events, table.state = handle(None, CreateTable("t1", "holdem", {}, NL, seats, False, CLOCK_S,
                                                         tournament_id="t", time_bank_s=60))
    assert kinds(table.events) == ["TableCreated", "TimeBankSet"]
    table.start()
    first = table.state.clock
    events = table.expire()
    assert kinds(events) == ["TimeBankUsed", "ClockStarted"]
    assert events[-1].deadline_at_ms == first.deadline_at_ms + 60_000
    events = table.expire(after_ms=60_000)
    assert kinds(events)[:2] == ["ClockExpired", "AutomaticAction"]  # the bank is spent: the clock acts
    refused = pytest.raises(Violation, handle, None, CreateTable("t2", "holdem", {}, NL, seats, False, None,
                                                                  tournament_id="t", time_bank_s=60))
    assert refused.value.code == "invalid_table"  # a bank needs a clock
