"""FinishHand names what a table's hand did: every input the tournament cannot apply is a
refusal with a code and the numbers, never an exception (over HTTP a 4xx, not a 500);
and an Undo is accepted only when its events can be applied."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.tournaments.commands import Bust, ChipCount, DealHand, Eliminate, FinishHand, Undo
from domain.tournaments.events import Elimination, EliminationUndone, PlayersEliminated, RebuyAwaited
from domain.tournaments.evolver import evolve
from domain.tournaments.tournament import Tournament
from tests.unit.test_tournament_decider import REBUYS, SETTINGS, T0, run, started, violation

SERVICE_REBUYS = replace(REBUYS, tables="service")


def in_hand(state: Tournament, at: float = T0 + 1) -> tuple[Tournament, list[str]]:
    state, _ = run(state, DealHand(1, at))
    return state, [p for p in state.seating.table(1).seats if p]


def test_a_player_waiting_to_rebuy_was_not_dealt_in_and_cannot_bust_again() -> None:
    state, players = in_hand(started(9, SERVICE_REBUYS))
    state, events = run(state, FinishHand(1, T0 + 2, busted=(Bust(players[0], 10_000),)))
    assert any(isinstance(e, RebuyAwaited) for e in events)
    state, _ = in_hand(state, T0 + 3)
    refused = violation(state, FinishHand(1, T0 + 4, busted=(Bust(players[0], 10_000),)))
    assert refused.code == "awaiting_rebuy" and refused.numbers == {"table": 1, "player": players[0]}


def test_a_player_named_twice_among_the_busted_is_refused() -> None:
    state, players = in_hand(started(9, replace(REBUYS, tables="service", rebuy_price=0, rebuy_chips=0, rebuys_allowed=0,
                                                rebuy_until_level=0)))
    refused = violation(state, FinishHand(1, T0 + 2, busted=(Bust(players[0], 10_000), Bust(players[0], 0))))
    assert refused.code == "duplicate_player" and refused.numbers == {"table": 1, "player": players[0]}


def test_a_player_counted_twice_is_refused() -> None:
    state, players = in_hand(started(9, SERVICE_REBUYS))
    refused = violation(state, FinishHand(1, T0 + 2, stacks=(ChipCount(players[0], 1), ChipCount(players[0], 2))))
    assert refused.code == "duplicate_player" and refused.numbers == {"table": 1, "player": players[0]}


def test_a_busted_player_ends_the_hand_with_no_chips() -> None:
    state, players = in_hand(started(9, SERVICE_REBUYS))
    refused = violation(state, FinishHand(1, T0 + 2, busted=(Bust(players[0], 10_000),),
                                          stacks=(ChipCount(players[0], 500),)))
    assert refused.code == "busted_with_chips"
    assert refused.numbers == {"table": 1, "player": players[0], "chips": 500}


def test_a_negative_stack_is_refused() -> None:
    state, players = in_hand(started(9, SERVICE_REBUYS))
    refused = violation(state, FinishHand(1, T0 + 2, stacks=(ChipCount(players[0], -1),)))
    assert refused.code == "invalid_counts" and refused.numbers == {"table": 1, "player": players[0], "chips": -1}


@pytest.mark.parametrize("table", [0, -1, 2, 99])
def test_a_table_with_no_hand_in_progress_is_refused(table: int) -> None:
    state, _ = in_hand(started(9, SERVICE_REBUYS))
    assert violation(state, FinishHand(table, T0 + 2)).code == "no_hand_in_progress"


def test_players_not_at_the_table_are_refused() -> None:
    state, _ = in_hand(started(18, SERVICE_REBUYS))
    elsewhere = next(p for p in state.seating.where if state.seating.where[p][0] == 2)
    for command in (FinishHand(1, T0 + 2, busted=(Bust(elsewhere, 1),)),
                    FinishHand(1, T0 + 2, stacks=(ChipCount(elsewhere, 1),)),
                    FinishHand(1, T0 + 2, busted=(Bust("nobody", 1),))):
        assert violation(state, command).code == "not_seated"


def test_a_stack_not_reported_keeps_the_chips_last_known() -> None:
    state, players = in_hand(started(9, SERVICE_REBUYS))
    state, _ = run(state, FinishHand(1, T0 + 2, stacks=(ChipCount(players[0], 5_000), ChipCount(players[1], 15_000))))
    assert [state.stack_of(p) for p in players[:3]] == [5_000, 15_000, 10_000]


def test_an_undo_that_would_seat_a_player_twice_restores_them_once() -> None:
    """Streams written before FinishHand refused a waiting player's second bust hold an
    elimination naming one player twice, in a hand that left another player waiting to
    rebuy: the undo puts the player back once (replaying it used to fail, seat_taken)."""
    state, _ = run(started(9, REBUYS), Eliminate((Bust("p4", 0),), T0 + 60))
    twice = PlayersEliminated((Elimination("p3", 8), Elimination("p3", 8)), T0 + 60)
    state = evolve(evolve(state, RebuyAwaited("p5", 1, 10_000, T0 + 60)), twice)
    seat = state.undoable.seats[0] if state.undoable else None
    state, events = run(state, Undo(T0 + 70))
    undone = next(e for e in events if isinstance(e, EliminationUndone))
    assert undone.seats == (seat,) and state.seating.where["p3"] == (seat.table, seat.seat) if seat else False
    assert state.awaiting_players == {"p4", "p5"}


def test_an_undo_whose_seat_another_player_holds_is_refused() -> None:
    state, _ = run(started(9, SETTINGS), Eliminate((Bust("p3", 0),), T0 + 60))
    restored = state.undoable.seats[0] if state.undoable else None
    assert restored is not None
    # A stream written by an older decider: someone sits in the seat the undo gives back.
    holder = replace(state.seating, where=state.seating.where.updated({"p3": None}))
    table = state.seating.table(restored.table)
    seats = tuple("late" if i == restored.seat else p for i, p in enumerate(table.seats))
    tables = tuple(replace(t, seats=seats) if t is not None and t.number == restored.table else t
                   for t in state.seating.tables)
    state = replace(state, seating=replace(holder, tables=tables, where=holder.where.updated(
        {"late": (restored.table, restored.seat)})))
    refused = violation(state, Undo(T0 + 70))
    assert refused.code == "undo_blocked"
    assert refused.numbers == {"undoing": "elimination", "depends": "seat_taken", "player": "p3",
                               "table": restored.table, "seat": restored.seat + 1, "held_by": "late"}
