"""When the tournament follower wakes by the clock, and which streams it follows: rules
it decides from the tournament's state alone (service.application.process_managers)."""
from __future__ import annotations

from functools import reduce

from hypothesis import given
from hypothesis import strategies as st

from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import events as tournament_events
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments import tournament
from domain.tournaments.structure import Period
from service.application.process_managers import OVERDUE_RETRY_S, START_RETRY_S, next_deadline, tournament_of_table

STARTS_AT = 1_000_000
LEVELS = (Period.level(25, 50, 10), Period.level(50, 100, 10), Period.level(100, 200, 10))


def registered(players: int, starts_at: int = STARTS_AT, auto_start: bool = True) -> tournament.Tournament:
    settings = tournament_commands.Settings(name="t", structure=LEVELS, starts_at=starts_at, starting_stack=1000,
                                            buy_in=10, payout_percentages=("100",), auto_start=auto_start)
    commands = [tournament_commands.CreateTournament("t", settings, None),
                *(tournament_commands.Register(f"p{n}", at=0) for n in range(players))]
    return reduce(lambda state, command: reduce(tournament_evolver.evolve, tournament_decider.decide(state, command), state),
                  commands, tournament.INITIAL)


def started(at: int) -> tournament.Tournament:
    state = registered(4)
    return reduce(tournament_evolver.evolve, tournament_decider.decide(state, tournament_commands.StartTournament(at=at, seed=1)), state)


def test_a_registering_tournament_wakes_the_follower_at_its_start_time() -> None:
    assert next_deadline(registered(3), STARTS_AT - 60) == STARTS_AT


def test_without_auto_start_the_start_is_no_deadline_the_director_starts_it() -> None:
    assert next_deadline(registered(3, auto_start=False), STARTS_AT - 60) is None


def test_a_busted_players_time_to_rebuy_wakes_the_follower() -> None:
    settings = tournament_commands.Settings(name="t", structure=LEVELS, starts_at=STARTS_AT, starting_stack=1000,
                                            buy_in=10, payout_percentages=("100",), tables="physical", rebuy_price=10,
                                            rebuy_chips=1000, rebuy_until_level=2, rebuy_grace_s=60)
    state = reduce(tournament_evolver.evolve, [tournament_events.TournamentCreated("t", settings)], tournament.INITIAL)
    for command in [*(tournament_commands.Register(f"p{n}", at=0) for n in range(4)),
                    tournament_commands.StartTournament(at=STARTS_AT, seed=1),
                    tournament_commands.Eliminate((tournament_commands.Bust("p1", 0),), at=STARTS_AT + 10)]:
        state = reduce(tournament_evolver.evolve, tournament_decider.decide(state, command), state)
    assert next_deadline(state, STARTS_AT + 20) == STARTS_AT + 70


def test_a_start_that_is_due_with_one_player_is_looked_at_again_later_not_at_once() -> None:
    assert next_deadline(registered(1), STARTS_AT + 3) == STARTS_AT + 3 + START_RETRY_S


def test_a_running_level_wakes_the_follower_when_it_ends() -> None:
    state = started(STARTS_AT)
    assert next_deadline(state, STARTS_AT + 5) == STARTS_AT + 600


def test_an_overdue_level_end_is_tried_again_shortly() -> None:
    state = started(STARTS_AT)
    assert next_deadline(state, STARTS_AT + 601) == STARTS_AT + 601 + OVERDUE_RETRY_S


def test_the_last_level_and_a_paused_clock_set_no_deadline() -> None:
    state = started(STARTS_AT)
    last = reduce(tournament_evolver.evolve, tournament_decider.decide(state, tournament_commands.StartLevel(2, at=STARTS_AT + 1200)), state)
    assert next_deadline(last, STARTS_AT + 1300) is None
    paused = reduce(tournament_evolver.evolve, tournament_decider.decide(state, tournament_commands.PauseClock(at=STARTS_AT + 5)), state)
    assert next_deadline(paused, STARTS_AT + 6) is None


@given(st.text(alphabet="abc-0123456789", min_size=1, max_size=12), st.integers(min_value=1, max_value=2000))
def test_a_tournament_table_stream_names_its_tournament_and_number(tournament_id: str, number: int) -> None:
    assert tournament_of_table(f"{tournament_id}-table-{number}") == (tournament_id, number)


def test_a_cash_table_is_not_a_tournament_table() -> None:
    assert tournament_of_table("0b8e6c1a-5d5f-4b3e-9a63-4f0e1c1a2b3c") is None
    assert tournament_of_table("-table-3") is None
    assert tournament_of_table("t-table-x") is None
