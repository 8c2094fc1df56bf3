"""Running an event as rooms do (running-events.md): bust then rebuy, physical tables'
busts without counts, the director's start, moves called out, undo, a guarded clock."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.tournaments.commands import (
    AdjustClock,
    Bust,
    ChipCount,
    ConfirmSeated,
    CreateTournament,
    DeclineRebuy,
    Eliminate,
    ExpireRebuys,
    PauseClock,
    Rebuy,
    Register,
    ReportChipCounts,
    SetLevel,
    StartTournament,
    Undo,
)
from domain.tournaments.decider import decide
from domain.tournaments.events import ClockChangeUndone, PlayersEliminated, RebuyAwaited
from domain.tournaments.tournament import INITIAL
from tests.unit.test_tournament_decider import REBUYS, SETTINGS, T0, run, started, violation


def test_a_player_busted_in_the_rebuy_period_keeps_the_seat_until_they_rebuy() -> None:
    state = started(18, REBUYS)
    state, events = run(state, Eliminate((Bust("p3", 0),), T0 + 60))
    assert isinstance(events[0], RebuyAwaited) and "p3" in state.seating.where and state.seating.players == 18
    assert state.players_with_chips == 17
    state, events = run(state, Rebuy("p3", T0 + 70))
    assert state.stack_of("p3") == 10_000 and not state.awaiting_rebuy and state.rebuys == 1


def test_a_declined_rebuy_places_the_player_below_everyone_still_in() -> None:
    state, _ = run(started(18, REBUYS), Eliminate((Bust("p3", 0),), T0 + 60))
    state, events = run(state, DeclineRebuy("p3", T0 + 70))
    placed = next(e for e in events if isinstance(e, PlayersEliminated))
    assert placed.eliminations[0].place == 18 and "p3" not in state.seating.where


def test_at_physical_tables_the_grace_time_or_the_end_of_rebuys_ends_the_wait() -> None:
    state, _ = run(started(18, REBUYS), Eliminate((Bust("p3", 0),), T0 + 60))
    assert state.rebuys_expired(T0 + 60 + 299) == ()
    assert violation(state, ExpireRebuys(T0 + 60 + 299)).code == "nothing_expired"
    state, events = run(state, ExpireRebuys(T0 + 60 + 300))
    assert "p3" not in state.seating.where and state.standings[-1].place == 18


def test_a_double_rebuy_needs_the_setting_and_counts_twice() -> None:
    state, _ = run(started(9, REBUYS), Eliminate((Bust("p3", 0),), T0 + 60))
    assert violation(state, Rebuy("p3", T0 + 61, double=True)).code == "double_rebuy_not_offered"
    state, _ = run(started(9, replace(REBUYS, double_rebuy=True)), Eliminate((Bust("p3", 0),), T0 + 60))
    state, _ = run(state, Rebuy("p3", T0 + 61, double=True))
    assert state.rebuys == 2 and state.stack_of("p3") == 20_000
    assert violation(state, Rebuy("p3", T0 + 62)).code == "rebuy_limit"


def test_a_floor_bust_at_a_physical_table_needs_no_counts_and_chips_in_play_stay_exact() -> None:
    state, _ = run(started(18), Eliminate((Bust("p3", 0),), T0 + 60))
    assert "p3" not in state.seating.where and state.chips_in_play == 18 * 10_000
    assert state.chips_known == 17 * 10_000  # p3's chips are with someone, uncounted
    table = state.seating.where["p4"][0]
    state, _ = run(state, ReportChipCounts((ChipCount("p4", 20_000),), T0 + 70))
    assert state.chips_known == state.chips_in_play
    assert violation(state, ReportChipCounts((ChipCount("p5", 30_000),), T0 + 80)).code == "chips_not_conserved"
    assert table


def test_the_director_starts_early_with_two_players_or_more() -> None:
    state, _ = run(INITIAL, CreateTournament("t-1", SETTINGS))
    assert violation(state, StartTournament(T0 - 3600, seed=1)).code == "not_enough_players"
    state, _ = run(state, Register("a", T0 - 3600), Register("b", T0 - 3600), StartTournament(T0 - 3600, seed=1))
    assert state.status == "running"


def test_moves_at_physical_tables_are_pending_until_the_floor_confirms_or_time_passes() -> None:
    state = started(21)  # tables of 7, 7 and 7
    at_one = [p for p in state.seating.table(1).seats if p]
    state, _ = run(state, Eliminate((Bust(at_one[0], 0), Bust(at_one[1], 0)), T0 + 60))
    calls = state.pending_move_calls(T0 + 61)
    assert len(calls) == 1 and calls[0].to_table == 1 and calls[0].move_id == 1
    assert calls[0].reason == "balance"
    assert state.pending_move_calls(T0 + 60 + SETTINGS.move_call_s) == ()
    state, _ = run(state, ConfirmSeated(1, T0 + 90))
    assert state.pending_move_calls(T0 + 91) == ()
    assert violation(state, ConfirmSeated(1, T0 + 92)).code == "already_seated"


def test_an_elimination_is_undone_while_nothing_depends_on_it() -> None:
    state = started(18)
    before = state.seating.where["p3"], state.stack_of("p3")
    state, _ = run(state, Eliminate((Bust("p3", 0),), T0 + 60), Undo(T0 + 70))
    assert (state.seating.where["p3"], state.stack_of("p3")) == before and not state.standings
    assert violation(state, Undo(T0 + 80)).code == "nothing_to_undo"
    state, _ = run(state, Eliminate((Bust("p3", 0),), T0 + 90), ReportChipCounts((ChipCount("p4", 20_000),), T0 + 95))
    refused = violation(state, Undo(T0 + 99))
    assert refused.code == "undo_blocked" and refused.numbers["depends"] == "ChipsCounted"


def test_a_clock_change_is_undone_to_the_clock_as_it_was() -> None:
    state = started(9)
    state, _ = run(state, PauseClock(T0 + 100))
    state, events = run(state, Undo(T0 + 160))
    assert isinstance(events[-1], ClockChangeUndone) and not state.clock.paused
    assert state.clock.ends_at == T0 + 20 * 60  # as if never paused


def test_an_adjust_past_the_levels_length_needs_confirmation() -> None:
    state = started(9)
    refused = violation(state, AdjustClock(6000, T0 + 60, confirm=False))
    assert refused.code == "adjust_past_level_length"
    assert refused.numbers == {"seconds": 6000, "remaining_s": 1140, "length_s": 1200, "would_leave_s": 7140,
                               "period": 1, "level": 1}
    assert decide(state, AdjustClock(6000, T0 + 60, confirm=True))
    assert decide(state, AdjustClock(60, T0 + 60))


def test_previous_level_after_a_mistaken_next_restores_the_time_it_had() -> None:
    state = started(9)
    state, _ = run(state, SetLevel(1, T0 + 300), SetLevel(0, T0 + 310))
    assert state.clock.ends_at == T0 + 310 + 900  # 900 s were left when "next" was pressed


@pytest.mark.parametrize("seats", [1])
def test_re_entry_closes_with_late_registration(seats: int) -> None:
    state, _ = run(started(9), Eliminate((Bust("p3", 0),), T0 + 60))
    state, _ = run(state, Register("p3", T0 + 61, seed=seats))
    assert state.re_entries == 1
    state, _ = run(state, Eliminate((Bust("p3", 0),), T0 + 62))
    late = T0 + 20 * 60 + 20 * 60 + 10 * 60 + 1  # level 3: late registration closed after level 2 and its break
    assert violation(state, Register("p3", late)).code == "registration_closed"
