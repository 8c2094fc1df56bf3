"""The tournament decider: given events, when a command, then events or a violation."""
from __future__ import annotations

from dataclasses import replace
from functools import reduce

import pytest

from domain.records import from_record, to_record
from domain.rules.violations import Violation
from domain.tournaments.clock import ClockPaused, LevelStarted
from domain.tournaments.commands import (
    AdjustClock,
    Bust,
    CancelMove,
    ChipCount,
    CreateTournament,
    DealHand,
    DeclineRebuy,
    Disqualify,
    Eliminate,
    FinishHand,
    MovePlayer,
    PauseClock,
    Rebuy,
    Register,
    ResumeClock,
    Settings,
    StartHandForHand,
    StartTournament,
    StopHandForHand,
    Unregister,
)
from domain.tournaments.decider import decide
from domain.tournaments.events import (
    EVENT_TYPES,
    BalancePending,
    FinalTableReached,
    HandDealt,
    HandForHandStarted,
    HandForHandStopped,
    MoveCancelled,
    MoveQueued,
    PlayerDisqualified,
    PlayerMoved,
    PlayerRegistered,
    PlayersBusted,
    PlayerSeated,
    PlayersEliminated,
    TableBroken,
    TournamentFinished,
)
from domain.tournaments.evolver import evolve, replay
from domain.tournaments.seating import next_big_blind
from domain.tournaments.structure import Period
from domain.tournaments.tournament import INITIAL, Tournament

T0 = 1_800_000_000.0
STRUCTURE = (
    Period.level(25, 50, minutes=20),
    Period.level(50, 100, minutes=20, ante=100, big_blind_ante=True),
    Period.pause(minutes=10),
    Period.level(100, 200, minutes=20, ante=200, big_blind_ante=True),
)
SETTINGS = Settings(
    name="Sunday", structure=STRUCTURE, starts_at=T0, starting_stack=10_000, buy_in=100,
    payout_percentages=("50", "30", "20"), table_size=9, late_registration_until_level=2,
    re_entries_allowed=1, tables="physical",
)
# Rebuys keep a busted player's seat during the rebuy period (running-events.md).
REBUYS = replace(SETTINGS, rebuy_price=100, rebuy_chips=10_000, rebuys_allowed=2, rebuy_until_level=2)


def run(state: Tournament, *commands: object) -> tuple[Tournament, list[object]]:
    """Decide and evolve each command in turn; the events of the last one are returned."""
    events: list[object] = []
    for command in commands:
        events = decide(state, command)
        state = reduce(evolve, events, state)
    return state, events


def violation(state: Tournament, command: object) -> Violation:
    with pytest.raises(Violation) as raised:
        decide(state, command)
    return raised.value


def out(state: Tournament, busts: tuple[Bust, ...], at: float, seed: int = 0) -> Eliminate:
    """Players out on one hand at a physical table, reported with the table's counts: the
    busted players' chips went to the first other player there."""
    table = state.seating.where[busts[0].player_id][0]
    players = [p for p in state.seating.table(table).seats if p]
    gone = {b.player_id for b in busts}
    winner = next(p for p in players if p not in gone)
    counts = tuple(ChipCount(p, 0 if p in gone else state.stack_of(p) + (
        sum(state.stack_of(g) for g in gone) if p == winner else 0)) for p in players)
    return Eliminate(busts, at, seed, counts)


def started(players: int, settings: Settings = SETTINGS) -> Tournament:
    commands = [CreateTournament("t-1", settings)]
    commands += [Register(f"p{i}", T0 - 60) for i in range(players)]
    commands.append(StartTournament(T0, seed=11))
    return run(INITIAL, *commands)[0]


def test_a_structure_with_decreasing_blinds_is_refused_at_creation() -> None:
    bad = (Period.level(50, 100, 20), Period.level(25, 50, 20))
    settings = Settings("x", bad, T0, 10_000, 100, ("100",))
    assert violation(INITIAL, CreateTournament("t", settings)).code == "blinds_decrease"


def test_payouts_must_sum_to_100_at_creation() -> None:
    settings = Settings("x", STRUCTURE, T0, 10_000, 100, ("60", "30"))
    assert violation(INITIAL, CreateTournament("t", settings)).code == "invalid_payouts"


def test_players_register_and_unregister_before_the_start() -> None:
    state, _ = run(INITIAL, CreateTournament("t", SETTINGS), Register("ann", T0 - 5), Register("bob", T0 - 4),
                   Unregister("ann"))
    assert state.registered == ("bob",)
    assert violation(state, Register("bob", T0 - 3)).code == "already_registered"


def test_the_start_draws_seats_from_the_seed_and_starts_level_one() -> None:
    state = started(20)
    assert state.seating.open_tables == 3 and state.seating.players == 20
    assert state.clock.period_index == 0 and state.status == "running"
    assert started(20).seating == state.seating  # same seed, same draw


def test_a_hand_is_dealt_with_the_level_in_force_when_it_starts() -> None:
    state = started(20)
    _, events = run(state, DealHand(1, T0 + 1199))
    assert isinstance(events[0], HandDealt) and events[0].period_index == 0
    _, events = run(state, DealHand(1, T0 + 1200))
    assert events[0].period_index == 1


def test_the_button_moves_on_hand_after_hand() -> None:
    state = started(9)
    state, first = run(state, DealHand(1, T0 + 1))
    state, second = run(state, FinishHand(1, T0 + 2), DealHand(1, T0 + 3))
    table = state.seating.table(1)
    expected_big_blind = next(s for s in range(1, 10) if table.seats[(first[0].positions.big_blind + s) % 9])
    assert second[0].positions.big_blind == (first[0].positions.big_blind + expected_big_blind) % 9
    assert second[0].positions.small_blind == first[0].positions.big_blind


def test_no_second_hand_while_one_is_in_progress() -> None:
    state, _ = run(started(9), DealHand(1, T0 + 1))
    assert violation(state, DealHand(1, T0 + 2)).code == "hand_in_progress"


def test_no_hand_is_dealt_while_the_clock_is_paused() -> None:
    state, _ = run(started(9), PauseClock(T0 + 10))
    assert violation(state, DealHand(1, T0 + 20)).code == "clock_stopped"
    state, _ = run(state, ResumeClock(T0 + 30), DealHand(1, T0 + 40))
    assert 1 in state.hands_in_progress


def test_an_elimination_places_the_player_and_balances_the_tables() -> None:
    state = started(18)  # two tables of nine
    table_one = [p for p in state.seating.table(1).seats if p]
    state, events = run(state, out(state, (Bust(table_one[0], 5000), Bust(table_one[1], 3000)), T0 + 60, seed=4))
    assert isinstance(events[1], PlayersEliminated)
    # Out on the same hand at one table: the bigger starting stack finishes higher.
    assert [(e.player_id, e.place) for e in events[1].eliminations] == [(table_one[0], 17), (table_one[1], 18)]
    assert any(isinstance(e, PlayerMoved) and e.move.reason == "balance" for e in events)
    assert abs(state.seating.table(1).count - state.seating.table(2).count) <= 1


def test_a_table_breaks_and_the_final_table_is_announced() -> None:
    state = started(10)  # tables of 5 and 5
    busted = next(p for p in state.seating.table(1).seats if p)
    state, events = run(state, out(state, (Bust(busted, 100),), T0 + 60, seed=1))
    assert [e.table for e in events if isinstance(e, TableBroken)] == [2]  # highest number first
    assert sum(isinstance(e, PlayerMoved) and e.move.reason == "break" for e in events) == 5
    assert isinstance(events[-1], FinalTableReached) and events[-1].players == 9
    assert state.seating.open_tables == 1


def test_moves_wait_until_the_hand_at_either_table_is_over() -> None:
    state = started(17)  # tables of nine and eight
    big, small = sorted((1, 2), key=lambda n: -state.seating.table(n).count)
    mover = next(p for p in state.seating.table(big).seats if p)
    open_seat = state.seating.table(small).seats.index(None)
    busy, events = run(state, DealHand(small, T0 + 1), MovePlayer(mover, small, open_seat, T0 + 2))
    assert events == [MoveQueued(1, mover, small, open_seat, T0 + 2)] and busy.seating.where[mover][0] == big
    assert violation(busy, DealHand(big, T0 + 3)).code == "move_pending"  # never dealt in at two tables
    moved, events = run(busy, FinishHand(small, T0 + 10))
    assert [(e.move.reason, e.move_id) for e in events if isinstance(e, PlayerMoved)] == [("floor", 1)]
    assert moved.seating.where[mover] == (small, open_seat) and moved.pending_moves == ()
    moved, events = run(state, MovePlayer(mover, small, open_seat))
    assert events[0].move.reason == "floor" and moved.seating.where[mover] == (small, open_seat)


def test_a_queued_move_is_cancelled_by_the_floor_or_when_the_player_is_out() -> None:
    state = started(16)
    mover = next(p for p in state.seating.table(2).seats if p)
    open_seat = state.seating.table(1).seats.index(None)
    busy, _ = run(state, DealHand(2, T0 + 1), MovePlayer(mover, 1, open_seat, T0 + 2))
    assert violation(busy, MovePlayer(mover, 1, open_seat, T0 + 2)).code == "move_pending"
    cancelled, events = run(busy, CancelMove(1))
    assert events == [MoveCancelled(1, "cancelled")] and cancelled.pending_moves == ()
    assert violation(cancelled, CancelMove(1)).code == "unknown_move"
    after, events = run(busy, FinishHand(2, T0 + 9, busted=(Bust(mover, 500),)))
    assert MoveCancelled(1, "player_out") in events and mover not in after.seating.where


def test_a_queued_move_whose_seat_a_table_break_fills_is_cancelled_at_once() -> None:
    # The floor moves a player from table 2 to an open seat at table 1 while both play a
    # hand; table 2's hand busts a player and the table breaks into table 1's open seats,
    # the reserved one among them: the move can never be made, and table 1 must not wait
    # for it (move_pending) once its own hand is over.
    state, _ = run(started(10), DealHand(1, T0 + 1), DealHand(2, T0 + 1))  # tables of 5 and 5
    mover, busted = players_at(state, 2)[:2]
    open_seat = state.seating.table(1).seats.index(None)
    state, events = run(state, MovePlayer(mover, 1, open_seat, T0 + 2))
    assert events == [MoveQueued(1, mover, 1, open_seat, T0 + 2)]
    state, events = run(state, FinishHand(2, T0 + 30, busted=(Bust(busted, 100),), seed=1))
    assert [e.table for e in events if isinstance(e, TableBroken)] == [2]
    assert MoveCancelled(1, "seat_taken") in events and state.pending_moves == ()
    state, _ = run(state, FinishHand(1, T0 + 40))
    assert isinstance(decide(state, DealHand(1, T0 + 41))[0], HandDealt)


def test_hand_for_hand_waits_for_every_table() -> None:
    state, _ = run(started(18), StartHandForHand(T0), DealHand(1, T0 + 1), DealHand(2, T0 + 1),
                   FinishHand(1, T0 + 5))
    assert violation(state, DealHand(1, T0 + 6)).code == "hand_for_hand"
    state, _ = run(state, FinishHand(2, T0 + 7), DealHand(1, T0 + 8))
    assert 1 in state.hands_in_progress


def players_at(state: Tournament, table: int) -> list[str]:
    return [p for p in state.seating.table(table).seats if p]


def test_balancing_waits_for_the_hand_at_the_largest_table_then_moves_its_next_big_blind() -> None:
    # TDA 11 and "moves between hands only": table 1 loses three players while table 2
    # plays a hand; table 2 gives its next big blind when that hand is over.
    state = started(18)  # two tables of nine
    state, _ = run(state, DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    out = tuple(Bust(p, 100) for p in players_at(state, 1)[:3])
    state, events = run(state, FinishHand(1, T0 + 30, busted=out, seed=2))
    assert not any(isinstance(e, PlayerMoved) for e in events)
    assert events[-1] == BalancePending((2,)) and state.balance_pending == (2,)
    table_two = state.seating.table(2)
    next_big_blind_player = table_two.seats[next_big_blind(table_two)]
    state, events = run(state, FinishHand(2, T0 + 40, seed=2))
    moves = [e.move for e in events if isinstance(e, PlayerMoved)]
    assert [(m.player_id, m.from_table, m.to_table, m.reason) for m in moves] == \
        [(next_big_blind_player, 2, 1, "balance")]
    assert state.balance_pending == () and state.seating.spread() <= 1


def test_a_table_due_to_break_plays_out_its_hand_first() -> None:
    state = started(10)  # tables of 5 and 5
    state, _ = run(state, DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    busted = players_at(state, 1)[0]
    state, events = run(state, FinishHand(1, T0 + 30, busted=(Bust(busted, 100),), seed=1))
    assert not any(isinstance(e, TableBroken) for e in events) and state.balance_pending == (2,)
    assert isinstance(decide(state, DealHand(1, T0 + 31))[0], HandDealt)  # table 1 plays on meanwhile
    state, events = run(state, FinishHand(2, T0 + 40, seed=1))
    assert [e.table for e in events if isinstance(e, TableBroken)] == [2]
    assert isinstance(events[-1], FinalTableReached) and state.seating.open_tables == 1


def test_hand_for_hand_busts_on_different_tables_share_the_places_reached() -> None:
    # TDA RP-8: two players out in the same hand-for-hand round, on two tables, share 17th.
    state, _ = run(started(18), StartHandForHand(T0), DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    first, second = players_at(state, 1)[0], players_at(state, 2)[0]
    state, events = run(state, FinishHand(1, T0 + 5, busted=(Bust(first, 3000),)))
    assert events[1] == PlayersBusted((Bust(first, 3000, table=1),), T0 + 5)
    assert first not in state.seating.where and state.standings == ()
    state, events = run(state, FinishHand(2, T0 + 7, busted=(Bust(second, 8000),)))
    placed = next(e for e in events if isinstance(e, PlayersEliminated))
    assert {(e.player_id, e.place) for e in placed.eliminations} == {(first, 17), (second, 17)}


def test_hand_for_hand_ranks_a_tables_busts_by_stack_and_busts_at_different_tables_share() -> None:
    # Two out at table 1 (5,000 and 3,000 at the start of the hand), one at table 2: the
    # 3,000 finishes below the 5,000 (same hand, same table); the 5,000 and table 2's bust
    # are out in the same round at different tables and share 16th-17th.
    state, _ = run(started(18), StartHandForHand(T0), DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    a, b = players_at(state, 1)[:2]
    c = players_at(state, 2)[0]
    state, _ = run(state, FinishHand(1, T0 + 5, busted=(Bust(a, 5000), Bust(b, 3000))),
                   FinishHand(2, T0 + 7, busted=(Bust(c, 8000),)))
    assert {(e.player_id, e.place) for e in state.standings} == {(a, 16), (c, 16), (b, 18)}


def test_everyone_out_on_the_hand_during_which_hand_for_hand_is_announced_shares() -> None:
    # TDA 2024 RP-8-A: the hands in progress at the announcement are the first round, and
    # its busts share the places reached whatever their stacks, at one table or several.
    state, _ = run(started(18), DealHand(1, T0 + 1), DealHand(2, T0 + 1), StartHandForHand(T0 + 2))
    a, b = players_at(state, 1)[:2]
    state, events = run(state, FinishHand(1, T0 + 5, busted=(Bust(a, 5000), Bust(b, 3000))))
    assert isinstance(events[1], PlayersBusted)
    assert violation(state, DealHand(1, T0 + 6)).code == "hand_for_hand"
    state, _ = run(state, FinishHand(2, T0 + 7))
    assert {(e.player_id, e.place) for e in state.standings} == {(a, 17), (b, 17)}


def test_hand_for_hand_starts_by_itself_at_the_bubble_and_stops_once_it_bursts() -> None:
    settings = Settings(**{**SETTINGS.__dict__, "hand_for_hand_at_bubble": True, "tables": "service",
                           "table_size": 4, "payout_percentages": ("30", "25", "20", "15", "10")})
    state = started(10, settings)  # tables of 4, 3 and 3; five places paid
    while state.seating.players > 6:  # down to six on two tables: the next bust is the bubble
        table = max(state.seating.open_table_numbers(), key=lambda n: state.seating.table(n).count)
        state, events = run(state, DealHand(table, T0 + 1),
                            FinishHand(table, T0 + 2, busted=(Bust(players_at(state, table)[0], 10),)))
    assert state.hand_for_hand and isinstance(events[-1], HandForHandStarted)
    state, _ = run(state, DealHand(1, T0 + 3), DealHand(2, T0 + 3), FinishHand(1, T0 + 4))
    state, events = run(state, FinishHand(2, T0 + 5, busted=(Bust(players_at(state, 2)[0], 10),)))
    assert state.seating.players == 5 and not state.hand_for_hand
    assert isinstance(events[-1], HandForHandStopped)


def test_hand_for_hand_the_floor_began_stops_once_one_table_is_left() -> None:
    # Started by the floor (no bubble setting): at the final table every hand is played
    # hand for hand anyway, and a round left on would hold its deals back for nothing.
    state, _ = run(started(10), StartHandForHand(T0), DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    busted = players_at(state, 1)[0]
    state, events = run(state, FinishHand(1, T0 + 30, busted=(Bust(busted, 100),), seed=1))
    assert state.hand_for_hand and not any(isinstance(e, HandForHandStopped) for e in events)
    state, events = run(state, FinishHand(2, T0 + 40, seed=1))
    assert [e.table for e in events if isinstance(e, TableBroken)] == [2] and state.seating.open_tables == 1
    assert isinstance(events[-1], HandForHandStopped) and not state.hand_for_hand
    assert isinstance(decide(state, DealHand(1, T0 + 41))[0], HandDealt)


def test_stopping_hand_for_hand_places_the_round_busts_together() -> None:
    state, _ = run(started(18), StartHandForHand(T0), DealHand(1, T0 + 1), DealHand(2, T0 + 1))
    first = players_at(state, 1)[0]
    state, events = run(state, FinishHand(1, T0 + 5, busted=(Bust(first, 3000),)), StopHandForHand(T0 + 6))
    assert isinstance(events[0], PlayersEliminated) and state.standings[0].player_id == first
    assert state.standings[0].place == 18 and not state.hand_for_hand


def test_a_level_may_last_seconds() -> None:
    structure = (Period.level(25, 50, minutes=0, seconds=30), Period.level(50, 100, minutes=1, seconds=15))
    state = started(4, Settings(**{**SETTINGS.__dict__, "structure": structure,
                                   "late_registration_until_level": 0}))
    assert decide(state, DealHand(1, T0 + 29))[0].period_index == 0
    assert decide(state, DealHand(1, T0 + 30))[0].period_index == 1
    zero = (Period.level(25, 50, minutes=0, seconds=0),)
    refused = violation(INITIAL, CreateTournament("t-2", Settings(**{**SETTINGS.__dict__, "structure": zero,
                                                                     "late_registration_until_level": 0})))
    assert refused.code == "invalid_structure"


def test_late_registration_seats_the_player_until_the_last_late_level() -> None:
    state = started(9)
    state, events = run(state, Register("late", T0 + 100, seed=3))
    assert isinstance(events[0], PlayerRegistered) and isinstance(events[1], PlayerSeated)
    assert "late" in state.seating.where
    # The break after the last late level still takes entries; level 3 does not.
    state, _ = run(state, Register("on_break", T0 + 40 * 60 + 1, seed=4))
    assert violation(state, Register("later", T0 + 50 * 60 + 1)).code == "registration_closed"


def test_a_busted_player_may_re_enter_once() -> None:
    state = started(9)
    state, _ = run(state, out(state, (Bust("p0", 10_000),), T0 + 10))
    state, events = run(state, Register("p0", T0 + 20, seed=1))
    assert events[0] == PlayerRegistered("p0", re_entry=True) and state.re_entries == 1
    state, _ = run(state, out(state, (Bust("p0", 10_000),), T0 + 30))
    assert violation(state, Register("p0", T0 + 40)).code == "re_entry_not_allowed"


def test_the_last_player_standing_wins_the_prizes() -> None:
    state = started(3, REBUYS)
    state, _ = run(state, Rebuy("p1", T0 + 10))
    state, _ = run(state, out(state, (Bust("p2", 100),), T0 + 20), DeclineRebuy("p2", T0 + 21))
    state, events = run(state, out(state, (Bust("p1", 100),), T0 + 30), DeclineRebuy("p1", T0 + 31))
    finished = events[-1]
    assert isinstance(finished, TournamentFinished) and finished.winner == "p0"
    assert finished.prize_pool == 400
    assert [(p.player_id, p.place, p.amount) for p in finished.prizes] == [("p0", 1, 200), ("p1", 2, 120), ("p2", 3, 80)]
    assert state.status == "finished"
    assert [f.place for f in state.rating_result("t-1").finishes] == [1, 2, 3]


def test_a_disqualified_player_takes_the_last_place_left() -> None:
    state, events = run(started(5), Disqualify("p3", "abusive conduct", T0 + 5))
    assert events[0] == PlayerDisqualified("p3", "abusive conduct", 5, T0 + 5, chips_removed=10_000)
    assert "p3" not in state.seating.where


def test_the_clock_is_paused_and_adjusted_through_events() -> None:
    state, events = run(started(9), PauseClock(T0 + 60))
    assert events == [ClockPaused(T0 + 60)]
    assert violation(state, PauseClock(T0 + 70)).code == "clock_paused"
    state, _ = run(state, ResumeClock(T0 + 100), AdjustClock(-60, T0 + 100))
    assert state.clock.ends_at == T0 + 100 + 1140 - 60


def test_the_whole_stream_replays_from_records_to_the_same_state() -> None:
    state = INITIAL
    log: list[object] = []
    commands = [CreateTournament("t-1", SETTINGS)] + [Register(f"p{i}", T0 - 1) for i in range(12)]
    commands.append(StartTournament(T0, 5))
    for command in commands:
        events = decide(state, command)
        log += events
        state = reduce(evolve, events, state)
    at_table_one = [p for p in state.seating.table(1).seats if p]
    at_table_two = [p for p in state.seating.table(2).seats if p]
    for command in [DealHand(1, T0 + 1), FinishHand(1, T0 + 2, (Bust(at_table_one[0], 10),), 8),
                    Register("late", T0 + 3, 9),
                    (at_table_two[0], at_table_two[1])]:
        if isinstance(command, tuple):
            command = out(state, (Bust(command[0], 1), Bust(command[1], 2)), T0 + 4, 2)
        events = decide(state, command)
        log += events
        state = reduce(evolve, events, state)
    rebuilt = replay(from_record(EVENT_TYPES, *to_record(e)) for e in log)
    assert rebuilt == state
    assert any(isinstance(e, LevelStarted) for e in log)
