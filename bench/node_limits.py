"""One PostgreSQL node's limits, the figures docs/SCALING.md projects from.

- `node.appends_per_s_<n>w`, `node.hand_close_events_per_s_<n>w`: appends through
  PostgresEventStore by n writer processes at once (each its own connection and streams),
  one event per append, and the 9-event batch a hand's close writes, each commit durable
  (flushed to disk before the answer, the server's default). `node.async_...`: the same
  with `synchronous_commit = off` for the writers' sessions, which leaves out the disk
  flush: what the CPUs alone allow. On this machine the writers and the server share
  the same 2 cores, so the figures are the machine's, client included.
- `node.read_stream_events_per_s`: one 10,000-event stream read whole, as a cold table load.
- `node.read_all_events_per_s`: the global log paged 1,000 at a time (the followers' read).
- `node.connect_ms`, `node.max_connections`: what a new connection costs and how many the
  server allows; `node.bytes_per_event`: the events table with its indexes, per event.
- `node.clock_sweep_ms_<n>_past_clocks`: one run of the action-clock sweep's query
  (service.application.clock_deadlines.due_clocks, every second in production) with n
  clocks in the log that have all ended: flat since migration 0011 (it read every clock
  ever started before: 2.7, 22 and 126 ms for 1,000, 10,000 and 40,000).
Uses DATABASE_URL's server if set (a scratch database, dropped afterwards), else an
embedded PostgreSQL with default, durable settings. About 30 s.
`python -m bench node_limits`
"""
from __future__ import annotations

import multiprocessing
import time
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from bench import size
from bench.store import _scratch_database, _server
from service.adapters.migrate import upgrade
from service.adapters.store.base import NewEvent
from service.adapters.store.postgres import PostgresEventStore, open_pool

WRITE_S = size(2.0, smoke=0.1)
WRITERS = size((1, 4, 16), smoke=(1, 2))
HAND_CLOSE_EVENTS = 9
EVENTS_PER_STREAM = 200
LONG_STREAM = size(10_000, smoke=200)  # appended 100 at a time
ACTION = NewEvent("ActionTaken", {"seat": 3, "action": "raise", "amount": 450, "street": "flop"})


def _write(url: str, writer: str, batch: int, durable: bool, seconds: float, counted: Any) -> None:
    """One writer process: appends of `batch` events to streams of its own for `seconds`."""
    options = {} if durable else {"options": "-c synchronous_commit=off"}
    pool = ConnectionPool(url, min_size=1, max_size=1, kwargs={"autocommit": True, **options}, open=True)
    pool.wait()
    store = PostgresEventStore(pool)
    events = [ACTION] * batch
    appends = 0
    per_stream = EVENTS_PER_STREAM // batch
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        stream, version = divmod(appends, per_stream)
        store.append(f"w{writer}-b{batch}-{stream}", version * batch, events)
        appends += 1
    pool.close()
    counted.put(appends)


def _appends_per_s(url: str, writers: int, batch: int, durable: bool) -> float:
    # fork: the writers start at once with the imports done (the parent holds no connection yet).
    context = multiprocessing.get_context("fork")
    counted = context.Queue()
    run = f"{'d' if durable else 'a'}{writers}x"
    processes = [context.Process(target=_write, args=(url, f"{run}{index}", batch, durable, WRITE_S, counted))
                 for index in range(writers)]
    for process in processes:
        process.start()
    total = sum(counted.get(timeout=60) for _ in processes)
    for process in processes:
        process.join()
    # Each writer counts its own WRITE_S seconds of writing, after its start-up.
    return total / WRITE_S


def _reads(url: str) -> dict[str, float]:
    pool = open_pool(url, max_size=1)
    store = PostgresEventStore(pool)
    try:
        for version in range(0, LONG_STREAM, 100):
            store.append("long", version, [ACTION] * 100)
        store.read_stream("long")  # warm: the plan, the pages in shared buffers
        began = time.perf_counter()
        events = store.read_stream("long")
        stream_s = time.perf_counter() - began
        began, read, checkpoint = time.perf_counter(), 0, None
        while True:
            page, checkpoint = store.read_all(checkpoint, limit=1000)
            if not page:
                break
            read += len(page)
        all_s = time.perf_counter() - began
        with pool.connection() as connection:
            size, count = connection.execute(
                "SELECT pg_total_relation_size('events'), count(*) FROM events").fetchone()
            max_connections = int(connection.execute("SHOW max_connections").fetchone()[0])
    finally:
        pool.close()
    began = time.perf_counter()
    for _ in range(20):
        psycopg.connect(url).close()
    return {
        "node.read_stream_events_per_s": round(len(events) / stream_s),
        "node.read_all_events_per_s": round(read / all_s),
        "node.read_all_events": read,
        "node.bytes_per_event": round(size / count),
        "node.connect_ms": round((time.perf_counter() - began) / 20 * 1000, 2),
        "node.max_connections": max_connections,
    }


PAST_CLOCKS = size((1_000, 10_000, 40_000), smoke=(10, 20))

# Clocks that ended long ago (each table's ClockStarted closed by its HandClosed), written
# in one statement as the server's owner: the sweep reads deadlines, not hashes.
_PAST_CLOCKS = """
INSERT INTO events (stream_id, version, type, data, hash)
SELECT 'table-clocked-' || n, v.version, v.type,
       CASE WHEN v.version = 1
            THEN jsonb_build_object('hand_id', 'h', 'seat', 0, 'player_id', 'p', 'deadline_at_ms', 1000 + n)
            ELSE '{}' END,
       sha256(('clocked' || n || '.' || v.version)::bytea)
  FROM generate_series(%s, %s - 1) AS n,
       (VALUES (1, 'ClockStarted'), (2, 'HandClosed')) AS v (version, type)
"""


def _clock_sweep(url: str) -> dict[str, float]:
    from service.application.clock_deadlines import due_clocks

    pool = open_pool(url, max_size=1)
    figures = {}
    written = 0
    try:
        for past in PAST_CLOCKS:
            with pool.connection() as connection:
                connection.execute(_PAST_CLOCKS, (written, past))
                connection.execute("ANALYZE events")
            written = past
            due_clocks(pool, 2**62, 500)
            began = time.perf_counter()
            for _ in range(5):
                assert due_clocks(pool, 2**62, 500) == []
            figures[f"node.clock_sweep_ms_{past}_past_clocks"] = round((time.perf_counter() - began) / 5 * 1000, 1)
    finally:
        pool.close()
    return figures


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    with _server() as server_url, _scratch_database(server_url) as url:
        upgrade(url)
        for durable, prefix in ((True, "node."), (False, "node.async_")):
            for writers in WRITERS:
                figures[f"{prefix}appends_per_s_{writers}w"] = round(_appends_per_s(url, writers, 1, durable), 1)
                hand_closes = _appends_per_s(url, writers, HAND_CLOSE_EVENTS, durable)
                figures[f"{prefix}hand_close_events_per_s_{writers}w"] = round(hand_closes * HAND_CLOSE_EVENTS, 1)
        figures.update(_reads(url))
        figures.update(_clock_sweep(url))
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<40} {value:>12}")
