"""What a step of the tournament's table manager costs (service.application.tournament_tables):
with the table states kept (as the follower of the log keeps them), a hand's end at one
table of many is handled by looking at that table and those its balancing touches, never
at every table; a level change is looked at on every table. Counted with a spy on the
table states the steps are given, on the memory store."""
from __future__ import annotations

import time
from collections import Counter
from functools import reduce

from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments.structure import Period
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands, tournament_tables, tournaments
from service.application.application import application
from service.application.parts import Application
from tests import playing

PLAYERS = 180  # 20 tables of 9
STACK = 1000
LEVELS = (Period.level(25, 50, 60), Period.level(50, 100, 60))


class CountingTables(tournament_tables.Tables):
    """Notes every table whose state a step is handed, however it asks."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: Counter[int] = Counter()

    def __getitem__(self, number: int) -> commands.LoadedTable:
        self.handed[number] += 1
        return super().__getitem__(number)

    def get(self, number: int) -> commands.LoadedTable | None:
        self.handed[number] += 1
        return super().get(number)

    def items(self) -> list[tuple[int, commands.LoadedTable]]:
        held = super().items()
        self.handed.update(number for number, _ in held)
        return held


def started(now: int) -> tuple[Application, str]:
    app = application(InMemoryEventStore())
    tournament_id = "steps"
    settings = tournament_commands.Settings(name="steps", structure=LEVELS, starts_at=now, starting_stack=STACK,
                                            buy_in=10, payout_percentages=("60", "40"))
    tournaments.create_tournament(app, tournament_id, settings, "holdem", "no-limit")
    for n in range(PLAYERS):
        tournaments.send(app, tournament_id, tournament_commands.Register(f"p{n}", at=now))
    tournaments.send(app, tournament_id, tournament_commands.StartTournament(at=now, seed=5))
    return app, tournament_id


def play_hand(app: Application, table_id: str) -> None:
    """Everyone to act goes all in or calls: the hand ends, often with a bust."""
    while playing.shove(app, table_id):
        pass


def test_a_hand_end_at_one_of_twenty_tables_is_handled_looking_at_that_table_and_those_it_balances_with() -> None:
    now = int(time.time())
    app, tournament_id = started(now)
    tables = CountingTables()
    tournament_tables.advance(app, tournament_id, now, tables)  # every table created and dealt
    assert len(tables) == PLAYERS // 9
    for hand in range(6):
        number = 1 + hand * 3
        table_id = tournament_tables.table_id_for(tournament_id, number)
        play_hand(app, table_id)
        tables.put(number, commands.load_table(app, table_id))  # what the follower folds from the log
        before = tournaments.load_tournament(app, tournament_id).state
        tables.handed.clear()
        recorded = tournament_tables.advance(app, tournament_id, now, tables)
        after = tournaments.load_tournament(app, tournament_id).state
        assert recorded >= 3  # the hand reported, the next one dealt and started
        moved = {n for player in set(before.seating.where) & set(after.seating.where)
                 if before.seating.where[player][0] != after.seating.where[player][0]
                 for n in (before.seating.where[player][0], after.seating.where[player][0])}
        assert set(tables.handed) <= {number} | moved, (number, sorted(tables.handed))
        assert len(tables.handed) <= 3


def test_a_level_change_is_looked_at_on_every_table() -> None:
    now = int(time.time())
    app, tournament_id = started(now)
    tables = CountingTables()
    tournament_tables.advance(app, tournament_id, now, tables)
    tables.handed.clear()
    tournaments.send(app, tournament_id, tournament_commands.StartLevel(1, at=now + 1))
    assert tournament_tables.advance(app, tournament_id, now + 1, tables) == 0  # every table plays its hand
    assert set(tables.handed) == set(range(1, PLAYERS // 9 + 1))


def test_the_tables_a_tournament_change_concerns() -> None:
    now = 1_000_000
    app, tournament_id = started(now)
    state = tournaments.load_tournament(app, tournament_id).state
    dealt = reduce(tournament_evolver.evolve, tournament_decider.decide(state, tournament_commands.DealHand(4, at=now)), state)
    assert tournament_tables.tables_concerned(state, dealt) == {4}
    assert tournament_tables.tables_concerned(dealt, dealt) == set()
    level = reduce(tournament_evolver.evolve, tournament_decider.decide(dealt, tournament_commands.StartLevel(1, at=now + 1)), dealt)
    assert tournament_tables.tables_concerned(dealt, level) is None  # every table
    assert tournament_tables.tables_concerned(None, dealt) is None
