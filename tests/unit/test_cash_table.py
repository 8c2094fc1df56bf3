"""Cash tables (live.md): sit down with a buy-in, top up, stand up and close, between
hands and within the buy-in limits; and chips conserved over any sequence of them."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.live.table import event_types, fresh_deal, handle
from domain.live.table_commands import Act, CloseTable, CreateTable, SitDown, StandUp, StartNextHand, TableSeat, TopUp
from domain.live.table_events import ChipsAdjusted, HandClosed, PlayerLeftTable, PlayerSeatedAtTable, StandUpQueued, TableClosing, TableFinished
from domain.live.table_state import EMPTY_SEAT, replay
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation
from tests.unit.test_table_games import SeededDraws

NL = BettingStructure("no-limit", small_blind=5, big_blind=10)
SALT = "cd" * 32
MIN_BUY_IN, MAX_BUY_IN = 200, 1000


def cash_table(*stacks: int, seats: int = 6):
    taken = tuple(TableSeat(f"P{i}", stack) for i, stack in enumerate(stacks))
    empty = (TableSeat(EMPTY_SEAT, 0),) * (seats - len(stacks))
    return handle(None, CreateTable("c1", "holdem", {}, NL, taken + empty,
                                    min_buy_in=MIN_BUY_IN, max_buy_in=MAX_BUY_IN))[1]


def deal(state, seed: int = 1):
    deck = tuple(format_card(c) for c in shuffled(new_deck(), random.Random(seed)))
    return handle(state, StartNextHand(deck, SALT))[1]


def refused(state, command) -> Violation:
    with pytest.raises(Violation) as caught:
        handle(state, command)
    return caught.value


def test_a_player_sits_down_in_an_empty_seat_with_a_buy_in_within_the_limits():
    events, state = handle(cash_table(500, 500), SitDown("Ann", 300))
    assert events == [PlayerSeatedAtTable(2, "Ann", 300)]
    assert state.players[:3] == ("P0", "P1", "Ann") and state.stacks[2] == 300
    events, state = handle(state, SitDown("Bob", 1000, seat=5))
    assert events == [PlayerSeatedAtTable(5, "Bob", 1000)]


@pytest.mark.parametrize("buy_in", [199, 1001, 0, -5])
def test_a_buy_in_outside_the_limits_is_refused_with_the_limits(buy_in):
    violation = refused(cash_table(500, 500), SitDown("Ann", buy_in))
    assert violation.code == "buy_in_out_of_range"
    assert violation.numbers == {"buy_in": buy_in, "min_buy_in": 200, "max_buy_in": 1000}


def test_a_taken_seat_a_full_table_and_a_second_seat_are_refused():
    state = cash_table(500, 500, seats=3)
    assert refused(state, SitDown("Ann", 300, seat=1)).code == "seat_taken"
    assert refused(state, SitDown("P0", 300)).code == "already_seated"
    full = handle(state, SitDown("Ann", 300))[1]
    assert refused(full, SitDown("Bob", 300)).code == "table_full"


def test_a_player_who_sits_down_during_a_hand_is_dealt_in_from_the_next_and_may_leave_before():
    state = deal(cash_table(500, 500, 500))
    events, state = handle(state, SitDown("Ann", 300))
    # The hand being played is not theirs: their chips are not in play until the next.
    assert events == [PlayerSeatedAtTable(3, "Ann", 300)] and 3 not in state.hand_seats
    assert handle(state, StandUp("Ann"))[0] == [PlayerLeftTable(3, "Ann", 300)]
    while state.hand_in_progress:
        state = handle(state, Act(state.to_act, "fold"))[1]
    assert 3 in deal(state, seed=2).hand_seats


def test_a_player_in_the_hand_tops_up_after_it_and_a_stand_up_waits_for_its_end():
    state = deal(cash_table(500, 500, 500))
    assert refused(state, TopUp("P0", 100)).code == "hand_in_progress"
    events, state = handle(state, StandUp("P0"))
    assert events == [StandUpQueued(0, "P0", state.hand_id)] and state.players[0] == "P0"
    assert refused(state, StandUp("P0")).code == "already_leaving"
    while state.hand_in_progress:
        events, state = handle(state, Act(state.to_act, "fold"))
    left = [e for e in events if isinstance(e, PlayerLeftTable)]
    assert [(e.seat, e.player_id) for e in left] == [(0, "P0")] and state.players[0] == EMPTY_SEAT
    assert left[0].stack == sum(e.stacks[0].stack for e in events if isinstance(e, HandClosed))
    assert state.leaving == ()
    events, state = handle(state, TopUp("P1", 100))
    assert isinstance(events[0], ChipsAdjusted) and events[0].reason == "top_up"


def test_on_an_auto_deal_table_a_stand_up_leaves_before_the_next_hand_is_dealt():
    # Found by playing: the next hand was dealt in the write that closed the last, so a
    # player at an auto-deal cash table was always in a hand and could never leave.
    taken = tuple(TableSeat(f"P{i}", 500) for i in range(3)) + (TableSeat(EMPTY_SEAT, 0),) * 3
    state = handle(None, CreateTable("c1", "holdem", {}, NL, taken, auto_deal=True,
                                     min_buy_in=MIN_BUY_IN, max_buy_in=MAX_BUY_IN))[1]
    draws = SeededDraws(3)
    state = handle(state, fresh_deal(state, draws), draws=draws)[1]
    state = handle(state, StandUp("P2"), draws=draws)[1]
    first = state.hand_id
    while state.hand_id == first:
        state = handle(state, Act(state.to_act, "fold"), draws=draws)[1]
    assert state.hand_in_progress and 2 not in state.hand_seats and state.players[2] == EMPTY_SEAT


def test_a_top_up_may_bring_the_stack_to_the_maximum_and_no_further():
    state = cash_table(900, 500)
    assert handle(state, TopUp("P0", 100))[1].stacks[0] == 1000
    violation = refused(state, TopUp("P0", 101))
    assert violation.code == "top_up_over_max"
    assert violation.numbers == {"stack": 900, "amount": 101, "max_buy_in": 1000}
    assert refused(state, TopUp("P0", 0)).code == "invalid_top_up"
    assert refused(state, TopUp("Nobody", 10)).code == "not_seated"


def test_a_stack_over_the_maximum_takes_no_top_up_and_is_told_so():
    won = cash_table(1000, 500)
    state = replace(won, stacks=(1500, *won.stacks[1:]))  # P0 won 500 in a hand
    violation = refused(state, TopUp("P0", 10))
    assert violation.code == "top_up_over_max" and "already at or over" in violation.detail
    assert violation.numbers == {"stack": 1500, "amount": 10, "max_buy_in": 1000}


def test_standing_up_takes_the_stack_away_and_frees_the_seat():
    events, state = handle(cash_table(500, 700), StandUp("P1"))
    assert events == [PlayerLeftTable(1, "P1", 700)]
    assert state.players[1] == EMPTY_SEAT and state.stacks[1] == 0
    assert handle(state, SitDown("Ann", 400, seat=1))[1].players[1] == "Ann"


def test_a_cash_table_does_not_finish_when_one_player_is_left():
    state = deal(cash_table(500, 500))
    while state.hand_in_progress:
        state = handle(state, Act(state.to_act, "fold"))[1]
    state = handle(state, StandUp("P0"))[1]
    assert not state.finished
    assert refused(state, StartNextHand(("As",), SALT)).code == "not_enough_players"


def test_an_auto_deal_cash_table_takes_the_call_that_busts_a_player_and_waits_for_the_next():
    # Found by playing: the call that left one player with chips was refused with
    # not_enough_players, because the auto-deal tried to open a hand for one player.
    taken = (TableSeat("P0", 500), TableSeat("P1", 300)) + (TableSeat(EMPTY_SEAT, 0),) * 4
    state = handle(None, CreateTable("c1", "holdem", {}, NL, taken, auto_deal=True,
                                     min_buy_in=MIN_BUY_IN, max_buy_in=MAX_BUY_IN))[1]
    draws = SeededDraws(7)
    state = handle(state, fresh_deal(state, draws), draws=draws)[1]
    state = handle(state, Act(state.to_act, "raise", 500), draws=draws)[1]
    events, state = handle(state, Act(state.to_act, "call"), draws=draws)
    assert any(type(event) is HandClosed for event in events)
    assert not state.hand_in_progress and not state.finished
    assert sorted(state.stacks[:2]) == [0, 800]
    # A new player sits down and the next hand is dealt by hand.
    state = handle(state, SitDown("Ann", 300), draws=draws)[1]
    assert handle(state, fresh_deal(state, draws), draws=draws)[1].hand_in_progress


def test_closing_between_hands_finishes_the_table_at_once():
    events, state = handle(cash_table(500, 500), CloseTable())
    assert [type(e) for e in events] == [TableFinished] and state.finished
    assert refused(state, SitDown("Ann", 300)).code == "table_finished"


def test_closing_during_a_hand_finishes_the_table_when_the_hand_ends():
    state = deal(cash_table(500, 500))
    events, state = handle(state, CloseTable())
    assert events == [TableClosing(state.hand_id)] and not state.finished
    assert refused(state, SitDown("Ann", 300)).code == "table_closing"
    assert refused(state, CloseTable()).code == "table_closing"
    while state.hand_in_progress:
        events, state = handle(state, Act(state.to_act, "fold"))
    assert type(events[-1]) is TableFinished and state.finished


def test_only_cash_tables_take_sit_downs_and_limits_must_make_sense():
    plain = handle(None, CreateTable("t", "holdem", {}, NL, (TableSeat("A", 100), TableSeat("B", 100))))[1]
    assert refused(plain, SitDown("Ann", 300)).code == "not_cash_table"
    for low, high in ((0, 100), (300, 200), (100, None)):
        with pytest.raises(Violation) as caught:
            handle(None, CreateTable("c", "holdem", {}, NL, (TableSeat("A", 150), TableSeat(EMPTY_SEAT, 0)),
                                     min_buy_in=low, max_buy_in=high))
        assert caught.value.code == "invalid_table"
    with pytest.raises(Violation) as caught:
        cash_table(1500, 500)
    assert caught.value.code == "buy_in_out_of_range"


def test_cash_events_replay_from_their_records():
    events, state = handle(None, CreateTable("c1", "holdem", {}, NL, (TableSeat("P0", 500), TableSeat(EMPTY_SEAT, 0)),
                                             min_buy_in=MIN_BUY_IN, max_buy_in=MAX_BUY_IN))
    for command in (SitDown("Ann", 300), TopUp("Ann", 100), StandUp("P0")):
        more, state = handle(state, command)
        events += more
    types = event_types("holdem")
    again = replay(from_record(types, *to_record(e)) for e in events)
    assert again == state


# ----------------------------------------------------------------- chips conserved

PLAYERS = [f"X{i}" for i in range(5)]
moves = st.lists(st.one_of(
    st.tuples(st.just("sit"), st.sampled_from(PLAYERS), st.integers(100, 1100), st.none() | st.integers(0, 5)),
    st.tuples(st.just("stand"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("top_up"), st.sampled_from(PLAYERS), st.integers(-10, 900)),
    st.tuples(st.just("deal"), st.integers(0, 10**6)),
    st.tuples(st.just("act"), st.sampled_from(["fold", "check", "call", "raise"]), st.integers(0, 1000)),
    st.tuples(st.just("close")),
), max_size=60)


def command_for(state, move):
    kind = move[0]
    if kind == "sit":
        return SitDown(move[1], move[2], move[3])
    if kind == "stand":
        return StandUp(move[1])
    if kind == "top_up":
        return TopUp(move[1], move[2])
    if kind == "deal":
        deck = tuple(format_card(c) for c in shuffled(new_deck(), random.Random(move[1])))
        return StartNextHand(deck, SALT)
    if kind == "act":
        to = None if move[1] != "raise" else move[2]
        return Act(state.to_act or "nobody", move[1], to)
    return CloseTable()


@settings(max_examples=150, deadline=None)
@given(moves)
def test_chips_brought_less_chips_taken_away_are_the_chips_on_the_table(sequence):
    state = cash_table(500, 300)
    brought, taken = 800, 0
    for move in sequence:
        try:
            events, state = handle(state, command_for(state, move))
        except Violation:
            continue  # refused: nothing changed
        for event in events:
            if isinstance(event, PlayerSeatedAtTable):
                brought += event.stack
            elif isinstance(event, ChipsAdjusted):
                brought += event.amount
            elif isinstance(event, PlayerLeftTable):
                taken += event.stack
        assert brought - taken == state.chips
        assert all(stack >= 0 for stack in state.live_stacks)
