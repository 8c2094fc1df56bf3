"""Event-store append throughput against raw psycopg, same run, same server.

`store.append_per_s`: one-event appends through PostgresEventStore (idempotency and
version check, hash chain, insert) on a pool of one autocommit connection.
`store.raw_insert_per_s`: single-row INSERTs with psycopg (autocommit, one row per
transaction) into a copy of the events table (same columns and indexes, no triggers).
Goal: append_vs_raw_ratio >= 0.8.
`store.libpq_insert_per_s`: the same INSERT through libpq's own prepared-statement call
(as the store sends its append), the floor for one row; append_vs_libpq_ratio says how
far the store is from it.
The three alternate in short rounds so drift (other load, checkpoints) hits all alike;
each ratio is the median of the rounds' ratios, which a burst of load on the machine moves
less than the ratio of totals. Uses DATABASE_URL's server if set (in a scratch database,
dropped afterwards), else an embedded PostgreSQL with default, durable settings.
"""
from __future__ import annotations

import hashlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from service.adapters.migrate import upgrade
from service.adapters.store.base import NewEvent, canonical_json
from service.adapters.store.postgres import PostgresEventStore, open_pool

ROUNDS = 24
PER_ROUND = 100
EVENTS_PER_STREAM = 50
DATA = {"seat": 3, "action": "raise", "amount": 450, "street": "flop"}


@contextmanager
def _server() -> Iterator[str]:
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    from service.adapters.embedded.postgres import EmbeddedPostgres

    with tempfile.TemporaryDirectory(prefix="cardroom-bench-") as scratch:
        with EmbeddedPostgres(Path(scratch) / "data") as url:
            yield url


@contextmanager
def _scratch_database(server_url: str) -> Iterator[str]:
    name = f"cardroom_bench_{os.getpid()}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path="/" + name))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def _stream_and_version(n: int, prefix: str) -> tuple[str, int]:
    return f"{prefix}-{n // EVENTS_PER_STREAM}", n % EVENTS_PER_STREAM


def _store_appender(url: str) -> tuple[Callable[[int], None], Callable[[], None]]:
    pool = open_pool(url, min_size=1, max_size=1)
    store = PostgresEventStore(pool)
    event = NewEvent("ActionTaken", DATA)

    def append(n: int) -> None:
        stream_id, version = _stream_and_version(n, "store")
        store.append(stream_id, version, [event])

    return append, pool.close


def _raw_inserter(url: str) -> tuple[Callable[[int], None], Callable[[], None]]:
    connection = psycopg.connect(url, autocommit=True)
    connection.execute("CREATE TABLE raw_events (LIKE events INCLUDING ALL)")
    insert = (
        "INSERT INTO raw_events (stream_id, version, type, schema_version, data, metadata,"
        " idempotency_key, recorded_at, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, now(), %s)"
    )

    def append(n: int) -> None:
        stream_id, version = _stream_and_version(n, "raw")
        connection.execute(
            insert,
            (
                stream_id,
                version + 1,
                "ActionTaken",
                1,
                Jsonb(DATA),
                Jsonb({}),
                None,
                hashlib.sha256(b"%d" % n).digest(),
            ),
            prepare=True,
        )

    return append, connection.close


def _libpq_inserter(url: str) -> tuple[Callable[[int], None], Callable[[], None]]:
    """The same INSERT through libpq's prepared-statement call (psycopg.pq), which skips
    psycopg's cursor machinery as the store's append does: the floor for one row."""
    connection = psycopg.connect(url, autocommit=True)
    pgconn = connection.pgconn
    prepared = pgconn.prepare(
        b"raw_insert",
        b"INSERT INTO raw_events (stream_id, version, type, schema_version, data, metadata,"
        b" idempotency_key, recorded_at, hash)"
        b" VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, now(), $8::bytea)",
    )
    assert prepared.status == psycopg.pq.ExecStatus.COMMAND_OK, prepared.error_message
    data = canonical_json(DATA).encode()

    def append(n: int) -> None:
        stream_id, version = _stream_and_version(n, "libpq")
        result = pgconn.exec_prepared(
            b"raw_insert",
            [stream_id.encode(), b"%d" % (version + 1), b"ActionTaken", b"1", data, b"{}", None,
             hashlib.sha256(b"%d" % n).digest()],
            [0, 0, 0, 0, 0, 0, 0, 1],
        )
        assert result.status == psycopg.pq.ExecStatus.COMMAND_OK, result.error_message

    return append, connection.close


def _timed(append: Callable[[int], None], start: int, count: int, cpu: list[float]) -> float:
    """Wall seconds for `count` appends; adds this process's CPU seconds to cpu[0]."""
    began, began_cpu = time.perf_counter(), time.process_time()
    for n in range(start, start + count):
        append(n)
    cpu[0] += time.process_time() - began_cpu
    return time.perf_counter() - began


def run() -> dict[str, float]:
    with _server() as server_url, _scratch_database(server_url) as url:
        upgrade(url)
        store_append, close_store = _store_appender(url)
        raw_insert, close_raw = _raw_inserter(url)
        libpq_insert, close_libpq = _libpq_inserter(url)
        try:
            store_cpu, raw_cpu, libpq_cpu = [0.0], [0.0], [0.0]
            _timed(store_append, 0, 100, [0.0])  # warm up: connections, prepared statements
            _timed(raw_insert, 0, 100, [0.0])
            _timed(libpq_insert, 0, 100, [0.0])
            store_times, raw_times, libpq_times = [], [], []
            for round_ in range(ROUNDS):
                start = 100 + round_ * PER_ROUND
                raw_times.append(_timed(raw_insert, start, PER_ROUND, raw_cpu))
                store_times.append(_timed(store_append, start, PER_ROUND, store_cpu))
                libpq_times.append(_timed(libpq_insert, start, PER_ROUND, libpq_cpu))
        finally:
            close_store()
            close_raw()
            close_libpq()
    appends = ROUNDS * PER_ROUND
    def median_ratio(reference: list[float]) -> float:
        return round(statistics.median(r / s for r, s in zip(reference, store_times)), 3)

    return {
        "store.append_per_s": round(appends / sum(store_times), 1),
        "store.raw_insert_per_s": round(appends / sum(raw_times), 1),
        "store.append_vs_raw_ratio": median_ratio(raw_times),
        "store.libpq_insert_per_s": round(appends / sum(libpq_times), 1),
        "store.append_vs_libpq_ratio": median_ratio(libpq_times),
        # Client CPU per append (this process): what the store costs the application.
        "store.append_client_cpu_us": round(store_cpu[0] / appends * 1e6, 1),
        "store.raw_insert_client_cpu_us": round(raw_cpu[0] / appends * 1e6, 1),
        "store.libpq_insert_client_cpu_us": round(libpq_cpu[0] / appends * 1e6, 1),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<30} {value:>12}")
