"""The listings read model (migration 0008): what its trigger adds to an append, and what
a page of `GET /v1/tables` costs when the database holds many tables.

- `listings.append_us_with_trigger` / `..._without_trigger`: one single-event append (an
  action, which the listing ignores) through the PostgreSQL store to one of 100 table
  streams, the trigger on and off (the same database, ROUNDS rounds, who goes first
  alternating, median of the rounds).
- `listings.first_page_ms`, `listings.deep_page_ms`, `listings.player_page_ms`: a page of
  50 of TABLES tables (the newest, one far down by cursor position, and one player's),
  through service.application.listings, median of PAGE_READS reads."""
from __future__ import annotations

import statistics
import time

from bench import size
from bench.store import _scratch_database, _server  # the store bench's scratch database
from service.adapters.migrate import upgrade
from service.adapters.store.base import NewEvent
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import listings

STREAMS = size(100, smoke=3)
APPENDS = size(1000, smoke=10)
ROUNDS = size(4, smoke=2)  # smoke: each of trigger on and off first once
TABLES = size(5000, smoke=120)  # smoke: more than two pages of 50
PAGE_READS = size(50, smoke=2)


def _created(n: int) -> NewEvent:
    return NewEvent("TableCreated", {"table_id": str(n), "game": "holdem",
                                     "seats": [{"player_id": f"p{n % 97}", "stack": 1000},
                                               {"player_id": f"p{n % 89}", "stack": 1000}]})


def _append_us(store: PostgresEventStore, versions: dict[str, int]) -> float:
    event = NewEvent("ActionTaken", {"seat": 0, "action": "call", "to": 100, "adds": 100})
    started = time.perf_counter()
    for n in range(APPENDS):
        stream = f"table-bench-{n % STREAMS}"
        store.append(stream, versions[stream], [event])
        versions[stream] += 1
    return (time.perf_counter() - started) / APPENDS * 1e6


def _median_ms(read) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(PAGE_READS):
        started = time.perf_counter()
        read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run() -> dict[str, float]:
    with _server() as server, _scratch_database(server) as url:
        upgrade(url)
        pool = open_pool(url, min_size=1, max_size=2)
        try:
            store = PostgresEventStore(pool)
            versions = {f"table-bench-{i}": 0 for i in range(STREAMS)}
            for stream in versions:
                store.append(stream, 0, [_created(0)])
                versions[stream] = 1
            timings: dict[bool, list[float]] = {True: [], False: []}
            for turn in range(ROUNDS):
                for trigger in (turn % 2 == 0, turn % 2 == 1):  # who goes first alternates
                    with pool.connection() as connection:
                        connection.execute(f"ALTER TABLE events {'ENABLE' if trigger else 'DISABLE'} "
                                           "TRIGGER events_listing")
                    _append_us(store, versions)  # unmeasured: the statement is prepared again
                    timings[trigger].append(_append_us(store, versions))
            with pool.connection() as connection:
                connection.execute("ALTER TABLE events ENABLE TRIGGER events_listing")
            for n in range(TABLES):
                store.append(f"table-many-{n}", 0, [_created(n)])
            with pool.connection() as connection:
                connection.execute("ANALYZE listings")
            newest, _ = listings.page(pool, "table", 50)
            deep = newest[0].position - TABLES // 2 * 2  # about half way down (two events a table apart at most)
            return {
                "listings.append_us_with_trigger": round(statistics.median(timings[True]), 1),
                "listings.append_us_without_trigger": round(statistics.median(timings[False]), 1),
                "listings.first_page_ms": round(_median_ms(lambda: listings.page(pool, "table", 50)), 2),
                "listings.deep_page_ms": round(_median_ms(lambda: listings.page(pool, "table", 50, before=deep)), 2),
                "listings.player_page_ms": round(_median_ms(
                    lambda: listings.page(pool, "table", 50, player_id="p7")), 2),
            }
        finally:
            pool.close()
