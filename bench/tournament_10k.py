"""A 10,000-player tournament on 1,112 live tables, driven through the application layer
on the PostgreSQL store (DATABASE_URL's server in a scratch database, else an embedded
one), its manager the follower of the log (service.application.process_managers).

Players act through `commands.execute` as the HTTP layer does (at a table the first to act
goes all in, the next calls, the others fold: a bust about every other hand); after each
hand the follower handles the batch of the log that hand wrote, in one transaction with
its tracking record: the table's FinishHand on the tournament with its balancing and
breaking, the removals and seatings they call for between hands, the next deal. Figures:
- `bust_ms` p50/p99: that batch, for hands with a bust (reading the log, deciding,
  balancing and every write included), beside the same bust in a 100-player event
  (12 tables) in the same run; `bust_cpu_ms` p50/p99: this process's CPU time in the
  same batches (the machine is shared: wall figures move with its load, CPU less so);
- `level_change_ms`: the follower woken by a level's end (LevelStarted recorded, the
  1,112 tables looked at for what the new level calls for), beside the same on 12 tables,
  and beside the stateless advance the sweep used to run, which reads every table stream;
- `open_tables_s`: creating the 1,112 tables and dealing their first hands;
- events written, counted in the store (`SELECT count(*) FROM events` between phases),
  per bust batch and in all.

The follower's clock is a variable the benchmark moves (to a level's end), so the run is
bounded by the work and not by the structure's minutes.
"""
from __future__ import annotations

import random
import statistics
import time
from typing import Any, cast

import psycopg

from bench import size
from bench.store import _scratch_database, _server
from domain.live import table_commands, table_state
from domain.records import to_record
from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments.structure import Period
from service.adapters.migrate import upgrade
from service.adapters.store import trackings
from service.adapters.store.base import START, NewEvent
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import commands, process_managers, tournament_tables, tournaments
from service.application.application import application
from service.application.parts import Application

SEED = 20_261_202
BIG, SMALL = size((10_000, 100), smoke=(100, 20))  # players; the figures keep the full sizes' names
BUSTS = {BIG: size(200, smoke=2), SMALL: size(60, smoke=2)}
LEVEL_CHANGES = size(3, smoke=1)
STACK = 10_000
STRUCTURE = tuple(Period.level(25 * 2**i, 50 * 2**i, minutes=20) for i in range(12))
REGISTRATIONS_PER_APPEND = size(500, smoke=40)  # smoke: several appends
IDLE_PICKS = 2000


class _Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def _events_written(url: str) -> int:
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT count(*) FROM events").fetchone()
    assert row is not None
    return int(row[0])


def _new_tournament(app: Application, players: int, now: float) -> str:
    """Registered and started; the registrations are set up in chunks (the domain decides
    each one, the store appends 500 at a time), which is not what is measured."""
    tournament_id = f"bench{players}x{random.Random(players).randrange(10**6)}"
    settings = tournament_commands.Settings(name=f"{players} players", structure=STRUCTURE, starts_at=int(now),
                                            starting_stack=STACK, buy_in=100, payout_percentages=("50", "30", "20"))
    tournaments.create_tournament(app, tournament_id, settings, "holdem", "no-limit")
    loaded = tournaments.load_tournament(app, tournament_id)
    state, version = loaded.state, loaded.version
    stream = tournaments.stream_id(tournament_id)
    for first in range(0, players, REGISTRATIONS_PER_APPEND):
        events = []
        for n in range(first, min(players, first + REGISTRATIONS_PER_APPEND)):
            for event in tournament_decider.decide(state, tournament_commands.Register(f"{tournament_id}p{n}", at=int(now))):
                state = tournament_evolver.evolve(state, event)
                events.append(NewEvent(*to_record(event)))
        version = app.store.append(stream, version, events).last_version
    tournaments.send(app, tournament_id, tournament_commands.StartTournament(at=int(now), seed=SEED),
                     expected_version=version)
    return tournament_id


def _follower_at_the_head(app: Application, name: str, clock: _Clock) -> process_managers.TournamentFollower:
    store = cast(PostgresEventStore, app.store)
    at = START
    while True:
        records, following = store.read_all(at, 5000)
        if not records:
            break
        at = following
    tracking = trackings.PostgresTracking()
    with store.transaction():
        tracking.claim(name)
        tracking.move(name, at)
    return process_managers.TournamentFollower(app, tracking, name=name, clock=clock)


def _play_hand(app: Application, table_id: str) -> bool:
    """The first to act goes all in, the next calls, the rest fold; False if no hand plays."""
    acted = 0
    while True:
        state = commands.load_table(app, table_id).state
        if state is None or state.to_act is None:
            return acted > 0
        legal = table_state.game_rules(state.game).module.legal_actions(state.hand)
        if acted == 0 and legal.raise_ is not None:
            act = table_commands.Act(state.to_act, "raise", legal.raise_.max_to)
        elif acted == 1 and legal.call is not None:
            act = table_commands.Act(state.to_act, "call")
        elif legal.call is not None:
            act = table_commands.Act(state.to_act, "fold")
        else:
            act = table_commands.Act(state.to_act, "check")
        commands.execute(app, table_id, None, act)
        acted += 1


def _drain(follower: process_managers.TournamentFollower) -> int:
    recorded = 0
    while True:
        batch = follower.handle_batch()
        recorded += batch.recorded
        if not (batch.recorded or batch.full):
            return recorded


def _level_change(app: Application, follower: process_managers.TournamentFollower, clock: _Clock,
                  tournament_id: str) -> float:
    """Move the clock to the running level's end and time the batch that records the next."""
    state = tournaments.load_tournament(app, tournament_id).state
    clock.now = state.clock.ends_at + 0.5
    started = time.perf_counter()
    follower.handle_batch()
    elapsed = time.perf_counter() - started
    after = tournaments.load_tournament(app, tournament_id).state
    assert after.clock.period_index == (state.clock.period_index or 0) + 1, "the level did not change"
    _drain(follower)
    return elapsed


def _tournament(app: Application, url: str, players: int) -> dict[str, float]:
    clock = _Clock()
    tournament_id = _new_tournament(app, players, clock.now)
    follower = _follower_at_the_head(app, f"bench-{tournament_id}", clock)
    written = _events_written(url)
    started = time.perf_counter()
    _drain(follower)
    open_s = time.perf_counter() - started
    state = tournaments.load_tournament(app, tournament_id).state
    tables = len(state.seating.tables)
    opened_events = _events_written(url) - written

    rng = random.Random(SEED + players)
    bust_times: list[float] = []
    bust_cpu: list[float] = []
    bust_events: list[int] = []
    other_times: list[float] = []
    hands = idle = 0
    while len(bust_times) < BUSTS[players]:
        # The follower reads the log up to the oldest transaction still open on the
        # server: another client's long transaction holds it (and this loop) back.
        if idle > IDLE_PICKS:
            raise RuntimeError(f"no table had a hand to play {IDLE_PICKS} times running")
        state = tournaments.load_tournament(app, tournament_id).state
        open_tables = [t.number for t in state.seating.tables if t is not None]
        number = rng.choice(open_tables)
        if not _play_hand(app, tournament_tables.table_id_for(tournament_id, number)):
            _drain(follower)  # a table waiting for players moved in: its deal comes with them
            idle += 1
            continue
        hands, idle = hands + 1, 0
        left = state.seating.players
        written = _events_written(url)
        started, cpu = time.perf_counter(), time.process_time()
        follower.handle_batch()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        busted = tournaments.load_tournament(app, tournament_id).state.seating.players < left
        (bust_times if busted else other_times).append(elapsed)
        if busted:
            bust_cpu.append(cpu)
            bust_events.append(_events_written(url) - written)
        _drain(follower)

    level_times = [_level_change(app, follower, clock, tournament_id) for _ in range(LEVEL_CHANGES)]
    started = time.perf_counter()
    tournament_tables.advance(app, tournament_id, clock.now)  # the old sweep's step: every stream read
    stateless_s = time.perf_counter() - started
    return {
        "tables": tables,
        "open_tables_s": open_s,
        "open_tables_events": opened_events,
        "bust_ms_p50": statistics.median(bust_times) * 1000,
        "bust_ms_p99": _percentile(bust_times, 0.99) * 1000,
        "bust_cpu_ms_p50": statistics.median(bust_cpu) * 1000,
        "bust_cpu_ms_p99": _percentile(bust_cpu, 0.99) * 1000,
        "busts": len(bust_times),
        "hand_without_bust_ms_p50": statistics.median(other_times) * 1000 if other_times else 0.0,
        "events_per_bust_batch_mean": statistics.fmean(bust_events),
        "level_change_ms_median": statistics.median(level_times) * 1000,
        "stateless_advance_ms": stateless_s * 1000,
        "events_in_store": _events_written(url),
        "hands": hands,
    }


def run() -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with _server() as server_url, _scratch_database(server_url) as url:
        upgrade(url)
        pool = open_pool(url, max_size=4)
        try:
            app = application(PostgresEventStore(pool))
            small = _tournament(app, url, SMALL)
            big = _tournament(app, url, BIG)
        finally:
            pool.close()
    for key in big:
        figures[f"tournament_10k.{key}"] = big[key]
        figures[f"tournament_10k.{key}_100_players"] = small[key]
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<60} {value:,.3f}" if isinstance(value, float) else f"{key:<60} {value:,}")
