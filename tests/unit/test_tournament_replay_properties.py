"""The decider's promise to the event store, over random commands: whatever decide accepts,
evolve applies (a stored stream always replays), and decide answers a command it cannot
take with a refusal, never another exception (over HTTP a 4xx, never a 500)."""
from __future__ import annotations

import random
from dataclasses import replace
from functools import reduce

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.tournaments.commands import (
    AddOn,
    Bust,
    ChipCount,
    CreateTournament,
    DealHand,
    DeclineRebuy,
    Disqualify,
    Eliminate,
    ExpireRebuys,
    FinishHand,
    MovePlayer,
    Rebuy,
    Register,
    ReportChipCounts,
    StartHandForHand,
    StartTournament,
    StopHandForHand,
    Undo,
)
from domain.tournaments.decider import decide
from domain.tournaments.evolver import evolve, replay
from domain.tournaments.structure import Period
from domain.tournaments.tournament import INITIAL, Tournament
from tests.unit.test_tournament_decider import REBUYS, T0

# Small tables (many moves and breaks), rebuys, an add-on, a short grace to rebuy.
SETTINGS = replace(
    REBUYS,
    structure=(Period.level(25, 50, minutes=20), Period.level(50, 100, minutes=20), Period.pause(minutes=10),
               Period.level(100, 200, minutes=20)),
    starting_stack=1000, rebuy_chips=1000, table_size=4, add_on_price=50, add_on_chips=500, add_ons_allowed=1,
    add_on_until_level=2, rebuy_grace_s=120,
)
STEP = st.tuples(st.integers(0, 15), st.integers(0, 2**32 - 1))  # the kind of command, the draws that fill it


def command(state: Tournament, kind: int, draws: random.Random, at: float) -> object:
    """A command as the tables and the floor could send it: mostly about players and
    tables there are, sometimes about ones there are not (a stale screen, a bad client)."""
    players = [*sorted(state.seating.where), "ghost"]
    tables = list(range(len(state.seating.tables) + 2))
    table = draws.choice(sorted(state.hands_in_progress) or tables) if draws.random() < 0.8 else draws.choice(tables)
    here = [p for p in (state.seating.tables[table - 1].seats if 0 < table <= len(state.seating.tables)
                        and state.seating.tables[table - 1] else ()) if p]
    def player() -> str:
        return draws.choice(here if here and draws.random() < 0.8 else players)
    seed = draws.randrange(5)
    if kind in (0, 1):
        return DealHand(draws.choice(tables), at)
    if kind in (2, 3, 4):
        busted = tuple(Bust(player(), draws.choice([0, 500, 1000]), busted_by=draws.choice([None, player()]))
                       for _ in range(draws.randrange(3)))
        stacks = tuple(ChipCount(player(), draws.choice([-1, 0, 500, 1000, 2000])) for _ in range(draws.randrange(4)))
        return FinishHand(table, at, busted, seed, stacks)
    if kind == 5:
        return Eliminate(tuple(Bust(player(), 0, busted_by=draws.choice([None, player()]))
                               for _ in range(1 + draws.randrange(3))), at, seed)
    simple = {
        6: lambda: Rebuy(player(), at, seed=seed), 7: lambda: DeclineRebuy(player(), at, seed),
        8: lambda: Undo(at), 9: lambda: ExpireRebuys(at, seed), 10: lambda: Disqualify(player(), "x", at, seed),
        11: lambda: MovePlayer(player(), draws.choice(tables), draws.randrange(5), at),
        12: lambda: Register(f"late{draws.randrange(4)}", at, seed),
        13: lambda: draws.choice([StartHandForHand(at), StopHandForHand(at, seed)]),
        14: lambda: ReportChipCounts(tuple(ChipCount(player(), draws.choice([0, 1000]))
                                           for _ in range(1 + draws.randrange(2))), at),
        15: lambda: AddOn(player(), at),
    }
    return simple[kind]()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["service", "physical"]), st.sampled_from(["starting_stack", "shared"]),
       st.integers(2, 10), st.lists(STEP, max_size=40))
def test_every_event_list_decide_returns_is_accepted_by_evolve(tables: str, ranking: str, players: int,
                                                               steps: list[tuple[int, int]]) -> None:
    setup = [CreateTournament("t", replace(SETTINGS, tables=tables, bust_ranking=ranking)),
             *(Register(f"p{i}", T0 - 10) for i in range(players)), StartTournament(T0, seed=players)]
    history: list[object] = []
    state = INITIAL
    for c in setup:
        events = decide(state, c)
        history += events
        state = reduce(evolve, events, state)
    at = T0
    for kind, draw in steps:
        draws = random.Random(draw)
        at += draws.choice([0, 5, 60, 600])
        asked = command(state, kind, draws, at)
        try:
            events = decide(state, asked)
        except Violation:
            continue  # a refusal: nothing written
        state = reduce(evolve, events, state)  # raises if an accepted event cannot be applied
        history += events
    assert replay(history) == state
