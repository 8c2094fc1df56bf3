"""An away player at a tournament's table has a dead hand (TDA 2024 30): dealt in, their
blinds posted, the hand folded at their first turn even with a check free, so it never
reaches a showdown or wins a pot; for every game a tournament deals. A present player who
lets the clock run out still checks when free (the clock's rule, TDA 2024 29), and away
from a tournament the computer still stands in for an absent player."""
from __future__ import annotations

import random

import pytest

from domain import registry
from domain.live.table import DEAD_HAND, handle
from domain.live.table_commands import Act, CreateTable, ExpireClock, SitOut, StartNextHand, TableSeat
from domain.live.table_events import AutomaticAction
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck, shuffled
from service.application import replay

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SALT = "ab" * 32
CLOCK_S = 30
T0 = 1_700_000_000_000
TOURNAMENT_GAMES = registry.names(lambda game: game.in_tournaments)


def test_every_game_a_tournament_deals_can_kill_a_dead_hand():
    assert TOURNAMENT_GAMES  # hold'em and Omaha today
    assert all(registry.table_rules(name).dead_hand is not None for name in TOURNAMENT_GAMES)


def heads_up(game: str, *, tournament: bool) -> tuple[list, object]:
    """Two players, P0 on the button (small blind) and P1 in the big blind, on the clock."""
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    events, state = handle(None, CreateTable("t1", game, {}, NL, seats, False, CLOCK_S,
                                             tournament_id="t" if tournament else None))
    return events, state


def played_for(events) -> list[tuple[str, int, str]]:
    """(why, position, action) of each action the computer played in `events`."""
    return [(marker.reason, action.position, action.action) for marker, action in zip(events, events[1:])
            if isinstance(marker, AutomaticAction)]


def start(state, command=None):
    deck = tuple(format_card(c) for c in shuffled(new_deck(), random.Random(7)))
    return handle(state, command or StartNextHand(deck, SALT), T0)


@pytest.mark.parametrize("game", TOURNAMENT_GAMES)
def test_an_away_big_blind_with_a_free_check_folds_at_once_and_loses_the_blind(game):
    _, state = heads_up(game, tournament=True)
    _, state = handle(state, SitOut("P1"), T0)
    _, state = start(state)
    events, state = handle(state, Act("P0", "call"), T0 + 1_000)  # the big blind could check
    kinds = [type(event).__name__ for event in events]
    assert AutomaticAction("t1.1", 1, "P1", DEAD_HAND) in events
    assert played_for(events) == [(DEAD_HAND, 1, "fold")]
    assert "ClockStarted" not in kinds[kinds.index("AutomaticAction"):]  # never waited for
    assert not state.hand_in_progress
    assert state.stacks == (1100, 900)  # the blind posted and lost, no showdown


@pytest.mark.parametrize("game", TOURNAMENT_GAMES)
def test_a_table_where_everyone_is_away_is_not_dealt(game):
    """Every hand dead, the blinds would go round an empty table hand after hand deciding
    nothing: the tournament deals such a table no hand until a player is back."""
    from domain.live.table import everyone_away
    from domain.live.table_commands import ReturnToSeat

    _, state = heads_up(game, tournament=True)
    _, state = handle(state, SitOut("P0"), T0)
    assert not everyone_away(state)
    _, state = handle(state, SitOut("P1"), T0)
    assert everyone_away(state)
    _, state = handle(state, ReturnToSeat("P1"), T0)
    assert not everyone_away(state)


@pytest.mark.parametrize("game", TOURNAMENT_GAMES)
def test_a_player_marked_away_before_their_turn_to_show_has_the_hand_mucked_unseen(game):
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    _, state = handle(None, CreateTable("t1", game, {"showdown": "declared"}, NL, seats, False, CLOCK_S,
                                        tournament_id="t"))
    _, state = start(state)
    for player, action in [("P0", "call"), ("P1", "check"), ("P1", "check"), ("P0", "check"),
                           ("P1", "check"), ("P0", "check"), ("P1", "check")]:
        _, state = handle(state, Act(player, action), T0)
    _, state = handle(state, Act("P0", "bet", 100), T0)
    _, state = handle(state, Act("P1", "call"), T0)  # P0, the bettor, shows first
    _, state = handle(state, SitOut("P1"), T0)
    events, state = handle(state, Act("P0", "show"), T0)
    kinds = [type(event).__name__ for event in events]
    assert AutomaticAction("t1.1", 1, "P1", DEAD_HAND) in events
    assert kinds[kinds.index("AutomaticAction") + 1] == "CardsMucked" and kinds.count("CardsShown") == 1
    assert state.stacks == (1200, 800)


@pytest.mark.parametrize("game", TOURNAMENT_GAMES)
def test_a_present_player_whose_clock_runs_out_still_checks_when_free(game):
    _, state = heads_up(game, tournament=True)
    _, state = start(state)
    _, state = handle(state, Act("P0", "call"), T0 + 1_000)
    clock = state.clock
    events, state = handle(state, ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                           clock.deadline_at_ms)
    assert played_for(events) == [("clock_expired", 1, "check")]
    assert state.hand_in_progress  # on to the flop


def test_away_from_a_tournament_the_computer_still_checks_for_an_absent_player():
    _, state = heads_up("holdem", tournament=False)
    _, state = handle(state, SitOut("P1"), T0)
    _, state = start(state)
    events, state = handle(state, Act("P0", "call"), T0 + 1_000)
    assert played_for(events)[0] == ("sitting_out", 1, "check")  # the big blind's free check
    assert state.hand_in_progress


def test_the_floors_replay_says_the_hand_is_dead_and_why():
    caption = replay._caption("AutomaticAction", {"hand_id": "t1.1", "seat": 1, "player_id": "P1",
                                                  "reason": DEAD_HAND}, str, lambda seat: f"seat {seat + 1}")
    assert caption == "seat 2 is away: the hand is dead (TDA 2024 30)"
