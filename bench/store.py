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

`store.hand_close_*`: the same three for the write that closes a hand on an auto-deal
table, nine events in one append (the last action, the board run out, the pot awarded,
the hand ended and the next one dealt): the store's append (one statement of arrays,
the chain hashed over nine events) beside nine rows in one psycopg `executemany` (one
pipelined round trip) and nine rows in one libpq prepared INSERT (one statement, one round
trip: the floor). `*_events_per_s` counts the rows.
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

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from bench import size
from service.adapters.connection_strings import with_database
from service.adapters.migrate import drop_roles, upgrade
from service.adapters.store.base import NewEvent, canonical_json
from service.adapters.store.postgres import PostgresEventStore, open_pool

ROUNDS = size(24, smoke=2)
PER_ROUND = size(100, smoke=5)
HAND_CLOSES_PER_ROUND = size(40, smoke=3)
EVENTS_PER_STREAM = 50
DATA = {"seat": 3, "action": "raise", "amount": 450, "street": "flop"}
# What closing a six-handed hold'em hand and dealing the next writes, in size and number.
HAND_CLOSE = (
    ("ActionTaken", {"seat": 2, "action": "call", "amount": 1200, "street": "turn"}),
    ("BoardDealt", {"street": "river", "cards": ["Kd"]}),
    ("ShowdownStarted", {"order": [2, 4]}),
    ("HandShown", {"seat": 2, "cards": ["Ah", "Kc"], "rank": "two pair, kings and aces"}),
    ("HandShown", {"seat": 4, "cards": ["Qs", "Qh"], "rank": "pair of queens"}),
    ("PotAwarded", {"pot": 0, "amount": 5850, "winners": [2], "shares": [5850]}),
    ("HandEnded", {"stacks": [9800, 13250, 9900, 6100, 10000, 10950], "hand": 41}),
    ("HandStarted", {"hand": 42, "button": 3, "seats": [0, 1, 2, 3, 4, 5],
                     "stacks": [9800, 13250, 9900, 6100, 10000, 10950]}),
    ("BlindsPosted", {"small": {"seat": 4, "amount": 50}, "big": {"seat": 5, "amount": 100}}),
)
HAND_CLOSE_EVENTS = len(HAND_CLOSE)
HAND_CLOSES_PER_STREAM = 5


@contextmanager
def _server() -> Iterator[str]:
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    from service.adapters.embedded.postgres import EmbeddedPostgres

    with tempfile.TemporaryDirectory(prefix="cardroom-bench-") as scratch, EmbeddedPostgres(Path(scratch) / "data") as url:
        yield url


@contextmanager
def _scratch_database(server_url: str, suffix: str = "") -> Iterator[str]:
    """A fresh database on `server_url` for this process (one per `suffix`), dropped afterwards."""
    name = f"cardroom_bench_{os.getpid()}{suffix}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
        drop_roles(with_database(server_url, name))  # the database's own


def _stream_and_version(n: int, prefix: str) -> tuple[str, int]:
    return f"{prefix}-{n // EVENTS_PER_STREAM}", n % EVENTS_PER_STREAM


def _hand_close_stream(n: int, prefix: str) -> tuple[str, int]:
    """The stream of the n-th hand close and the version it appends after."""
    return f"{prefix}-{n // HAND_CLOSES_PER_STREAM}", n % HAND_CLOSES_PER_STREAM * HAND_CLOSE_EVENTS


def _store_appender(url: str) -> tuple[Callable[[int], None], Callable[[int], None], Callable[[], None]]:
    """One-event appends, and nine-event hand closes, through the store."""
    pool = open_pool(url, min_size=1, max_size=1)
    store = PostgresEventStore(pool)
    event = NewEvent("ActionTaken", DATA)
    hand_close = [NewEvent(type_, data) for type_, data in HAND_CLOSE]

    def append(n: int) -> None:
        stream_id, version = _stream_and_version(n, "store")
        store.append(stream_id, version, [event])

    def append_hand_close(n: int) -> None:
        stream_id, version = _hand_close_stream(n, "store-hand")
        store.append(stream_id, version, hand_close)

    return append, append_hand_close, pool.close


def _raw_inserter(url: str) -> tuple[Callable[[int], None], Callable[[int], None], Callable[[], None]]:
    """Single-row INSERTs with psycopg's cursor (prepared), and nine rows in one executemany."""
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

    rows = [("ActionTaken" if i == 0 else type_, Jsonb(data)) for i, (type_, data) in enumerate(HAND_CLOSE)]

    def append_hand_close(n: int) -> None:
        stream_id, version = _hand_close_stream(n, "raw-hand")
        with connection.cursor() as cursor:
            cursor.executemany(insert, [
                (stream_id, version + i, type_, 1, data, Jsonb({}), None,
                 hashlib.sha256(b"%d.%d" % (n, i)).digest())
                for i, (type_, data) in enumerate(rows, start=1)])

    return append, append_hand_close, connection.close


def _libpq_inserter(url: str) -> tuple[Callable[[int], None], Callable[[int], None], Callable[[], None]]:
    """The same INSERT through libpq's prepared-statement call (psycopg.pq), which skips
    psycopg's cursor machinery as the store's append does: the floor for one row; and nine
    rows in one prepared multi-row INSERT, the floor for a hand close."""
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

    columns = 8
    prepared = pgconn.prepare(
        b"raw_insert_hand_close",
        b"INSERT INTO raw_events (stream_id, version, type, schema_version, data, metadata,"
        b" idempotency_key, recorded_at, hash) VALUES "
        + b", ".join(b"($%d, $%d, $%d, $%d, $%d::jsonb, $%d::jsonb, $%d, now(), $%d::bytea)"
                     % tuple(range(row * columns + 1, row * columns + columns + 1))
                     for row in range(HAND_CLOSE_EVENTS)),
    )
    assert prepared.status == psycopg.pq.ExecStatus.COMMAND_OK, prepared.error_message
    encoded = [(type_.encode(), canonical_json(data).encode()) for type_, data in HAND_CLOSE]

    def append_hand_close(n: int) -> None:
        stream_id, version = _hand_close_stream(n, "libpq-hand")
        stream = stream_id.encode()
        parameters: list[bytes | None] = []
        for i, (type_, data) in enumerate(encoded, start=1):
            parameters += [stream, b"%d" % (version + i), type_, b"1", data, b"{}", None,
                           hashlib.sha256(b"%d.%d" % (n, i)).digest()]
        result = pgconn.exec_prepared(b"raw_insert_hand_close", parameters,
                                      [0, 0, 0, 0, 0, 0, 0, 1] * HAND_CLOSE_EVENTS)
        assert result.status == psycopg.pq.ExecStatus.COMMAND_OK, result.error_message

    return append, append_hand_close, connection.close


def _timed(append: Callable[[int], None], start: int, count: int, cpu: list[float]) -> float:
    """Wall seconds for `count` appends; adds this process's CPU seconds to cpu[0]."""
    began, began_cpu = time.perf_counter(), time.process_time()
    for n in range(start, start + count):
        append(n)
    cpu[0] += time.process_time() - began_cpu
    return time.perf_counter() - began


def _alternate(appenders: list[Callable[[int], None]], per_round: int) -> tuple[list[list[float]], list[float]]:
    """Each appender's wall seconds per round, in ROUNDS rounds taking turns, and the CPU
    seconds of this process each spent; a warm-up round first (connections, statements)."""
    for append in appenders:
        _timed(append, 0, per_round, [0.0])
    times: list[list[float]] = [[] for _ in appenders]
    cpu = [[0.0] for _ in appenders]
    for round_ in range(ROUNDS):
        start = per_round * (round_ + 1)
        for index, append in enumerate(appenders):
            times[index].append(_timed(append, start, per_round, cpu[index]))
    return times, [spent[0] for spent in cpu]


def _figures(prefix: str, times: list[list[float]], cpu: list[float], count: int) -> dict[str, float]:
    """Rates, the store's ratios to each reference (the median of the rounds' ratios) and
    the client CPU per call; `times` and `cpu` in the order store, psycopg, libpq."""
    (store, raw, libpq), names = times, ("append", "raw_insert", "libpq_insert")

    def median_ratio(reference: list[float]) -> float:
        return round(statistics.median(r / s for r, s in zip(reference, store)), 3)

    figures = {f"{prefix}{name}_per_s": round(count / sum(spent), 1) for name, spent in zip(names, times)}
    figures[f"{prefix}append_vs_raw_ratio"] = median_ratio(raw)
    figures[f"{prefix}append_vs_libpq_ratio"] = median_ratio(libpq)
    # Client CPU per call (this process): what the store costs the application.
    figures.update({f"{prefix}{name}_client_cpu_us": round(spent / count * 1e6, 1)
                    for name, spent in zip(names, cpu)})
    return figures


def run() -> dict[str, float]:
    with _server() as server_url, _scratch_database(server_url) as url:
        upgrade(url)
        store_append, store_hand_close, close_store = _store_appender(url)
        raw_insert, raw_hand_close, close_raw = _raw_inserter(url)
        libpq_insert, libpq_hand_close, close_libpq = _libpq_inserter(url)
        try:
            single, single_cpu = _alternate([store_append, raw_insert, libpq_insert], PER_ROUND)
            closes, closes_cpu = _alternate([store_hand_close, raw_hand_close, libpq_hand_close],
                                            HAND_CLOSES_PER_ROUND)
        finally:
            close_store()
            close_raw()
            close_libpq()
    figures = _figures("store.", single, single_cpu, ROUNDS * PER_ROUND)
    figures.update(_figures("store.hand_close_", closes, closes_cpu, ROUNDS * HAND_CLOSES_PER_ROUND))
    figures["store.hand_close_append_events_per_s"] = round(
        figures["store.hand_close_append_per_s"] * HAND_CLOSE_EVENTS, 1)
    figures["store.hand_close_libpq_insert_events_per_s"] = round(
        figures["store.hand_close_libpq_insert_per_s"] * HAND_CLOSE_EVENTS, 1)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<30} {value:>12}")
