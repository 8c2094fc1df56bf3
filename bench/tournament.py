"""A simulated multi-table tournament, domain only: draw 10,000 players onto 9-max
tables, bust one player at a time at random (seeded), balance and break after each.

Figures: balancing per elimination (mean, p99), applying a new level across all tables,
the events the tournament stream would hold, and the per-elimination cost at 1,000 and
10,000 players, whose ratio shows how the seating work grows with the number of tables.
"""
from __future__ import annotations

import random
import statistics
import time

from bench import size
from domain.tournaments.clock import LevelStarted, clock_from_events, read_clock
from domain.tournaments.seating import BalancePolicy, apply_positions, draw_seating, next_positions, rebalance, remove_player, seated
from domain.tournaments.structure import Period

TABLE_SIZE = 9
SEED = 20_261_130
STRUCTURE = tuple(Period.level(25 * 2**i, 50 * 2**i, minutes=20) for i in range(20))
SMALL, LARGE = size((1_000, 10_000), smoke=(10, 100))  # players; the figures keep the full sizes' names


def _simulate(players: int) -> dict[str, float]:
    rng = random.Random(SEED)
    seats, buttons = draw_seating([f"p{i}" for i in range(players)], TABLE_SIZE, rng)
    seating = seated(TABLE_SIZE, seats, buttons)
    events = 2  # TournamentStarted (the draw and its seed) and LevelStarted
    final_table = False
    timings: list[float] = []
    alive = sorted(seating.where)
    while len(alive) > 1:
        player = alive.pop(rng.randrange(len(alive)))
        number, _ = seating.where[player]
        table = seating.table(number)
        if table.count >= 2 and table.positions is not None:
            # The bust happens in a hand, which moves that table's button and blinds on.
            seating = apply_positions(seating, number, next_positions(table.seats, table.positions))
        started = time.perf_counter()
        result = rebalance(remove_player(seating, player), rng, BalancePolicy())
        timings.append(time.perf_counter() - started)
        seating = result.seating
        events += 1 + len(result.moves) + len(result.broken)  # HandDealt is the table's stream
        if seating.open_tables == 1 and not final_table:
            final_table = True
            events += 1
    events += 1  # TournamentFinished
    timings.sort()
    return {
        "mean_ms": statistics.fmean(timings) * 1000,
        "p99_ms": timings[int(len(timings) * 0.99)] * 1000,
        "total_s": sum(timings),
        "events": events,
    }


def _level_change_ms(players: int) -> float:
    """A new level reaches every table: read the clock once, then each open table's next
    hand gets its button, blinds and the level's betting."""
    rng = random.Random(SEED)
    seats, buttons = draw_seating([f"p{i}" for i in range(players)], TABLE_SIZE, rng)
    seating = seated(TABLE_SIZE, seats, buttons)
    clock = clock_from_events(STRUCTURE, [LevelStarted(0, 0.0)])
    started = time.perf_counter()
    reading = read_clock(clock, 1200.0)
    assert reading.level_in_force is not None
    betting = STRUCTURE[reading.level_in_force].betting()
    hands = [
        (next_positions(table.seats, table.positions), betting)
        for table in seating.tables if table is not None and table.positions is not None
    ]
    elapsed = (time.perf_counter() - started) * 1000
    assert len(hands) == seating.open_tables
    return elapsed


def run() -> dict[str, float]:
    small = _simulate(SMALL)
    large = _simulate(LARGE)
    return {
        "tournament.balance_ms_per_elimination_mean": large["mean_ms"],
        "tournament.balance_ms_per_elimination_p99": large["p99_ms"],
        "tournament.level_change_ms": _level_change_ms(LARGE),
        "tournament.events_total": large["events"],
        "tournament.players_1000.balance_ms_per_elimination_mean": small["mean_ms"],
        "tournament.players_1000.total_s": small["total_s"],
        "tournament.players_10000.balance_ms_per_elimination_mean": large["mean_ms"],
        "tournament.players_10000.total_s": large["total_s"],
        # Ten times the tables; linear seating work shows a ratio of about 10 or less.
        "tournament.mean_ratio_10000_over_1000": large["mean_ms"] / small["mean_ms"],
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<60} {value:,.3f}")
