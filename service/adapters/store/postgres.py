"""The event store on PostgreSQL (psycopg 3 with a connection pool).

An append is one round trip: one INSERT (see _APPEND_ONE and _APPEND_BATCH) that checks
the expected version against the hash the chain continues from. Each event's data and
metadata are encoded to canonical JSON once, here; the server stores that text as jsonb,
and the store hashes the very same text (service.adapters.store.base.verify_chain recomputes it
from what is read back). The hash at the stream's head comes from what this process last
appended or read (`_StreamHeads`); without it, the append first reads it. A writer that
loses a race for the same version fails on the unique (stream_id, version) constraint;
that slow path costs a second query.

Global reading without skipping late commits: every event records the id of the
transaction that wrote it (`transaction_id xid8 DEFAULT pg_current_xact_id()`), and the
global log is ordered by (transaction_id, position). A reader only takes events whose
transaction id is below `pg_snapshot_xmin(pg_current_snapshot())`, the oldest transaction
still running: every transaction below it has finished, and every transaction that has
not yet committed has an id at or above it, so nothing can later appear below a
checkpoint. We chose this transaction-id high-water mark over serialising appends (a
table lock) because tables and tournaments are independent streams and must not queue
behind each other; the price is that a long-running writing transaction anywhere in the
database holds readers back until it ends. Positions may have gaps (a writer that lost a
version race, a rollback); readers never rely on them being dense.
"""
from __future__ import annotations

import logging
import secrets
import select
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import pq
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from service.adapters.row_macs import RowSigner
from service.adapters.store import failed_streams, gil_free_libpq, idempotency, scope
from service.adapters.store.base import (
    END,
    GENESIS_HASH,
    START,
    AppendResult,
    ChainSigner,
    Checkpoint,
    Head,
    IntegrityFailure,
    NewEvent,
    RangeVerification,
    RecordedEvent,
    Reveal,
    Snapshot,
    Verification,
    VersionConflict,
    canonical_json,
    chained_hash,
    check_append_arguments,
    check_read,
    check_storable,
    event_metadata,
    format_recorded_at,
    utc_now,
    verify_chain,
    verify_range,
)
from service.adapters.store.failed_streams import FailedStreams

log = logging.getLogger(__name__)


def open_pool(database_url: str, *, min_size: int = 1, max_size: int = 10) -> ConnectionPool:
    """A pool the store works best with: autocommit, so an append is one round trip."""
    pool = ConnectionPool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True},
        open=False,
    )
    pool.open(wait=True)
    return pool


_SQLSTATE = pq.DiagnosticField.SQLSTATE
_NO_SUCH_STATEMENT = b"26000"  # invalid_sql_statement_name

# Parameter type oids: text, integer, their arrays, timestamp with time zone.
_TEXT, _INTEGER, _TEXT_ARRAY, _INTEGER_ARRAY, _TIMESTAMPTZ = 25, 23, 1009, 1007, 1184
_OK = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)


class _PreparedStatement:
    """A statement prepared under its own name on each connection that runs it.

    A session can lose it: psycopg sends DEALLOCATE ALL after a rollback it sees once it
    holds prepared statements of its own (the store's transactions and savepoints go
    through libpq, so psycopg sees none of theirs; a caller's own may). Outside a
    transaction, a run that finds it gone prepares it again; inside the caller's own
    transaction, where a failed statement would abort it, the server is asked first; under
    the store's savepoint (`_in_savepoint`), the savepoint is undone and the run sent again.
    """

    def __init__(self, name: bytes, sql: str, parameter_types: Sequence[int]) -> None:
        self.name = name
        self._sql = sql.encode()
        self._parameter_types = parameter_types
        self._prepared_on: weakref.WeakSet[pq.abc.PGconn] = weakref.WeakSet()

    def run(self, connection: psycopg.Connection[Any], parameters: Sequence[bytes | None]) -> pq.abc.PGresult:
        """The one-row result; a failure raises psycopg's error for it (e.g. UniqueViolation)."""
        pgconn = connection.pgconn
        with connection.lock:
            if not connection.autocommit and pgconn.transaction_status == pq.TransactionStatus.IDLE:
                _checked(connection, pgconn.exec_(_begin_command(connection)))
            if pgconn.transaction_status == pq.TransactionStatus.IDLE:
                if pgconn in self._prepared_on:
                    result = pgconn.exec_prepared(self.name, parameters)
                    if result.error_field(_SQLSTATE) != _NO_SUCH_STATEMENT:
                        return _checked(connection, result)
                self._prepare(connection)
            elif pgconn not in self._prepared_on or not self._on_server(connection):
                self._prepare(connection)
            return _checked(connection, pgconn.exec_prepared(self.name, parameters))

    def _prepare(self, connection: psycopg.Connection[Any]) -> None:
        pgconn = connection.pgconn
        _checked(connection, pgconn.prepare(self.name, self._sql, self._parameter_types))
        self._prepared_on.add(pgconn)

    def send(self, pgconn: pq.abc.PGconn, run: _Run, expected: list[_PreparedStatement | None]) -> None:
        """In pipeline mode: its PREPARE first where this session has not got it, then the
        run; `expected` gets an entry per result to come (the statement for a PREPARE)."""
        if pgconn not in self._prepared_on:
            pgconn.send_prepare(self.name, self._sql, self._parameter_types)
            expected.append(self)
        pgconn.send_query_prepared(self.name, run.parameters, param_formats=run.formats)
        expected.append(None)

    def prepared(self, pgconn: pq.abc.PGconn, result: pq.abc.PGresult) -> None:
        if result.status == pq.ExecStatus.COMMAND_OK:
            self._prepared_on.add(pgconn)

    def lost(self, pgconn: pq.abc.PGconn) -> None:
        self._prepared_on.discard(pgconn)

    def _on_server(self, connection: psycopg.Connection[Any]) -> bool:
        found = _checked(connection, connection.pgconn.exec_params(
            b"SELECT FROM pg_prepared_statements WHERE name = $1", [self.name]))
        return found.ntuples == 1


@dataclass(frozen=True)
class _Run:
    """A prepared statement's parameters (text, or binary where `formats` says 1)."""
    statement: _PreparedStatement
    parameters: Sequence[bytes | None]
    formats: Sequence[int] | None = None


_SAVEPOINT = b"SAVEPOINT cardroom_statements"
_RELEASE = b"RELEASE SAVEPOINT cardroom_statements"
_UNDO = b"ROLLBACK TO SAVEPOINT cardroom_statements; RELEASE SAVEPOINT cardroom_statements"


def _in_savepoint(connection: psycopg.Connection[Any], runs: Sequence[_Run], *,
                  commit: bool = False) -> list[pq.abc.PGresult]:
    """Each run's result, in the open transaction under a savepoint, in one round trip
    (libpq's pipeline mode; a statement this session has not got is prepared in the same
    trip, the transaction's BEGIN when nothing began it yet, and with `commit` its COMMIT
    after the runs). A failed run undoes the savepoint, so the transaction goes on
    without the runs, and raises psycopg's error for it (e.g. UniqueViolation); runs that
    found their statement gone from the session are prepared and sent again, once."""
    pgconn = connection.pgconn
    with connection.lock:
        for attempt in range(2):
            begin = ([_begin_command(connection)]
                     if not connection.autocommit and pgconn.transaction_status == pq.TransactionStatus.IDLE else [])
            before, after = [*begin, _SAVEPOINT], [_RELEASE, *([b"COMMIT"] if commit else [])]
            results = _pipelined(pgconn, before, runs, after)
            failed = next((result for result in results if result.status not in _OK), None)
            if failed is None:
                return results[len(before):len(before) + len(runs)]
            if any(failed is result for result in results[:len(before)]) or (commit and failed is results[-1]):
                # The transaction itself: it had failed before, or its COMMIT did.
                raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            _checked(connection, pgconn.exec_(_UNDO))
            if attempt or failed.error_field(_SQLSTATE) != _NO_SUCH_STATEMENT:
                raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
            for run in runs:  # deallocated all at once, those after the failed one too
                run.statement.lost(pgconn)
    raise AssertionError("unreachable: the second attempt returns or raises")


def _pipelined(pgconn: pq.abc.PGconn, before: Sequence[bytes], runs: Sequence[_Run],
               after: Sequence[bytes]) -> list[pq.abc.PGresult]:
    """The results of the commands `before`, of each run and of the commands `after`: sent
    at once, then read in order (a command after a failed one is PIPELINE_ABORTED). A
    PREPARE sent on the way is left out, unless it failed: then its result is the failure."""
    expected: list[_PreparedStatement | None] = []
    pgconn.enter_pipeline_mode()
    try:
        for command in before:
            pgconn.send_query_params(command, None)
            expected.append(None)
        for run in runs:
            run.statement.send(pgconn, run, expected)
        for command in after:
            pgconn.send_query_params(command, None)
            expected.append(None)
        gil_free_libpq.pipeline_sync(pgconn)
        while pgconn.flush():  # the session is non-blocking: wait until the pipeline is sent
            if gil_free_libpq.wait_for(pgconn.socket, select.POLLIN | select.POLLOUT) & select.POLLIN:
                pgconn.consume_input()
        results = []
        for preparing in expected:
            result = gil_free_libpq.next_result(pgconn)
            if result is None:
                raise psycopg.OperationalError("the server ended a pipeline early")
            gil_free_libpq.next_result(pgconn)  # the end of this command's results
            if preparing is not None:
                preparing.prepared(pgconn, result)
            if preparing is None or result.status not in _OK:
                results.append(result)
        gil_free_libpq.next_result(pgconn)  # the pipeline's sync
    finally:
        pgconn.exit_pipeline_mode()
    return results


@contextmanager
def _libpq_transaction(connection: psycopg.Connection[Any], opened: scope.WriteScope) -> Iterator[None]:
    """The block's statements in one transaction, through libpq where the store runs them:
    begun by the first statement (psycopg sends its BEGIN itself outside autocommit; the
    store's pipelines carry theirs), committed at the end (when a statement ran) in one
    round trip with the runs `opened.sent_with_commit` holds, or rolled back when the block
    raises (and those runs never sent). libpq's BEGIN, statements and COMMIT cost a fifth
    of psycopg's client CPU (20 against 90 us for BEGIN, two statements and COMMIT), and
    psycopg, seeing no rollback, keeps every prepared statement of the session."""
    pgconn = connection.pgconn
    connection.autocommit = False
    try:
        yield
    except BaseException:
        with connection.lock:
            if pgconn.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                pgconn.exec_(b"ROLLBACK")  # the block's error is the one to tell
        raise
    else:
        with connection.lock:
            if pgconn.transaction_status == pq.TransactionStatus.INERROR:  # COMMIT would roll back silently
                pgconn.exec_(b"ROLLBACK")
                raise psycopg.errors.InFailedSqlTransaction("a statement of the transaction failed: rolled back")
        if opened.sent_with_commit:
            try:
                _in_savepoint(connection, opened.sent_with_commit, commit=True)
            except BaseException:
                with connection.lock:
                    if pgconn.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                        pgconn.exec_(b"ROLLBACK")
                raise
        elif pgconn.transaction_status == pq.TransactionStatus.INTRANS:
            with connection.lock:
                _checked(connection, pgconn.exec_(b"COMMIT"))
    finally:
        if pgconn.transaction_status == pq.TransactionStatus.IDLE:
            connection.autocommit = True
        else:  # a connection in an unknown state: the pool opens another instead
            connection.close()


def _checked(connection: psycopg.Connection[Any], result: pq.abc.PGresult) -> pq.abc.PGresult:
    if result.status in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
        return result
    raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)


def _begin_command(connection: psycopg.Connection[Any]) -> bytes:
    """The BEGIN psycopg itself sends before the first statement outside autocommit."""
    parts = ["BEGIN"]
    if connection.isolation_level is not None:
        parts.append("ISOLATION LEVEL " + connection.isolation_level.name.replace("_", " "))
    if connection.read_only is not None:
        parts.append("READ ONLY" if connection.read_only else "READ WRITE")
    if connection.deferrable is not None:
        parts.append("DEFERRABLE" if connection.deferrable else "NOT DEFERRABLE")
    return " ".join(parts).encode()


def _text_array(items: Sequence[str | None]) -> bytes:
    """A PostgreSQL array literal of texts (quoted, with " and \\ escaped; None is NULL)."""
    quoted = ("NULL" if item is None else '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'
              for item in items)
    return ("{" + ",".join(quoted) + "}").encode()


# One event (the usual append) and a batch each have their own statement, sent with libpq's
# prepared-statement call (psycopg.pq) instead of a psycopg cursor: on this machine the cursor
# machinery costs the client about 90 µs a statement, more than the server spends on the
# whole append. Parameters travel as text.
#
# The store chains the hashes itself (service.adapters.store.base.chained_hash, from the same
# canonical JSON it stores) and dates the events with its own clock, so the server only
# checks and inserts. The check: the event at the expected version still has the hash the
# chain continues from (none at version 0), and (stream_id, version) is unique, so with
# gapless versions the stream's head is the expected version. A writer that loses a race
# for a version (or a key) fails on a unique constraint; the store turns that into a
# VersionConflict or the original result. The idempotency key sits on the first event of
# an append only; the batch is found from there.
_MAY_APPEND = """$2 = 0 OR EXISTS (SELECT FROM events e
                                  WHERE e.stream_id = $1 AND e.version = $2
                                    AND e.hash = decode($8, 'hex'))"""

# $1 stream id, $2 expected version, $3 idempotency key, $4 type, $5 schema version,
# $6 data, $7 metadata (canonical JSON texts), $8 the hash chained from, $9 recorded at,
# $10 the event's hash (hex).
_APPEND_ONE = _PreparedStatement(
    b"cardroom_insert_one",
    f"""
INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                    idempotency_key, recorded_at, hash, sealed, mac)
SELECT $1, $2 + 1, $4, $5, $6::jsonb, $7::jsonb, $3, $9::timestamptz, decode($10, 'hex'),
       $11::jsonb, decode($12, 'hex')
 WHERE {_MAY_APPEND}
RETURNING position
""",
    (_TEXT, _INTEGER, _TEXT, _TEXT, _INTEGER, _TEXT, _TEXT, _TEXT, _TIMESTAMPTZ, _TEXT, _TEXT, _TEXT),
)

# $11 the sealed fields (canonical JSON, NULL when none), $12 the event's MAC (hex, NULL
# without a chain key).
#
# The same with arrays ($4 types, $5 schema versions, $6 data, $7 metadata, $10 hashes,
# $11 sealed, $12 MACs), inserted in version order.
_APPEND_BATCH = _PreparedStatement(
    b"cardroom_insert_batch",
    f"""
INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                    idempotency_key, recorded_at, hash, sealed, mac)
SELECT $1, $2 + e.i, e.type, e.schema_version, e.data::jsonb, e.metadata::jsonb,
       CASE WHEN e.i = 1 THEN $3 END, $9::timestamptz, decode(e.hash, 'hex'),
       e.sealed::jsonb, decode(e.mac, 'hex')
  FROM unnest($4::text[], $5::integer[], $6::text[], $7::text[], $10::text[], $11::text[],
              $12::text[])
       WITH ORDINALITY AS e (type, schema_version, data, metadata, hash, sealed, mac, i)
 WHERE {_MAY_APPEND}
 ORDER BY e.i
RETURNING position
""",
    (_TEXT, _INTEGER, _TEXT, _TEXT_ARRAY, _INTEGER_ARRAY, _TEXT_ARRAY, _TEXT_ARRAY, _TEXT,
     _TIMESTAMPTZ, _TEXT_ARRAY, _TEXT_ARRAY, _TEXT_ARRAY),
)

_HASH_AT = "SELECT encode(hash, 'hex') FROM events WHERE stream_id = %s AND version = %s"

_FIND_BY_KEY = """
SELECT first.version, array_agg(e.position ORDER BY e.version), max(e.version)
  FROM events first
  JOIN events e ON e.stream_id = first.stream_id AND e.version >= first.version
               AND e.metadata->>'idempotency_key' = first.idempotency_key
 WHERE first.stream_id = %s AND first.idempotency_key = %s
 GROUP BY first.version
"""

_COLUMNS = (
    "stream_id, version, position, type, schema_version, data, metadata, recorded_at, hash, mac"
)
_E_COLUMNS = ", ".join(f"e.{column.strip()}" for column in _COLUMNS.split(","))
# The sealed fields, as the read's Reveal allows: all, none, or those of events whose hand's
# closing event is in the stream. The closing check runs in the statement that reads the
# events, so both see one snapshot: a hand opened during the read is never revealed.
_ALL_SEALED = "coalesce(e.sealed, '{}')"
_NO_SEALED = "NULL::jsonb"
_SEALED_IF_CLOSED = """CASE WHEN EXISTS (SELECT FROM events c
                                 WHERE c.stream_id = e.stream_id AND c.type = {closing}
                                   AND c.metadata->>'hand_id' = e.metadata->>'hand_id')
            THEN coalesce(e.sealed, '{{}}') END"""


def _sealed_column(reveal: Reveal | None) -> str:
    if reveal is None:
        return _NO_SEALED
    if reveal.closing_type is None:
        return _ALL_SEALED
    # A literal, not a parameter: the partial index events_hand_closed is only used when
    # the planner sees the type itself.
    return _SEALED_IF_CLOSED.format(closing=_sql_text_literal(reveal.closing_type))


# What a read checks each event with (base.check_read), after the columns it returns: the
# sealed fields as stored (only when the read withholds some: with Reveal.ALL the revealed
# column is them) and the stored hash of the event before it. A read of consecutive
# versions takes the one before from the row before (lag) and the first row's from one
# probe of the index (an InitPlan or a join: never a subquery per row, whose estimated cost
# over a long stream's row estimate would have PostgreSQL JIT-compile the statement, 0.8 s);
# a hand's scattered rows (a few dozen) probe it for each row; the global log's batches
# read the few they lack in a second statement (_PREVIOUS_HASHES).
_PREVIOUS_HASH = "(SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.version = e.version - 1)"
_PREVIOUS_AFTER = """coalesce(lag(e.hash) OVER (ORDER BY e.version),
                     (SELECT p.hash FROM events p WHERE p.stream_id = %(stream)s AND p.version = %(after)s))"""
_PREVIOUS_OF_SNAPSHOT = "coalesce(lag(e.hash) OVER (ORDER BY e.version), a.hash)"
_PREVIOUS_HASHES = """
SELECT p.stream_id, p.version, p.hash FROM unnest(%s::text[], %s::integer[]) AS wanted (stream_id, version)
  JOIN events p ON p.stream_id = wanted.stream_id AND p.version = wanted.version
"""


def _checked_columns(reveal: Reveal | None, previous: str) -> str:
    """The sealed column the read's Reveal allows, then what the check needs."""
    stored = "NULL::jsonb" if reveal == Reveal.ALL else "e.sealed"
    return f"{_sealed_column(reveal)}, {stored}, {previous}"


def _sql_text_literal(text: str) -> str:
    if not text.isidentifier():
        raise ValueError(f"a closing event type is a name, not {text!r}")
    return f"'{text}'"


_READ_STREAM = """
SELECT {columns}, {checked} FROM events e
 WHERE stream_id = %(stream)s AND version > %(after)s AND version <= %(upper)s
 ORDER BY version
"""

# A hand's events: those tagged with it between its opening event and the stream's next
# one, found through the partial indexes on opening events (migration 0013), so a read
# costs the hand's events, whatever the age of the stream. The opening type is a literal
# for the planner to match the partial indexes (as _sealed_column's closing type).
_HAND_BOUNDS = """
WITH bounds AS MATERIALIZED (
    SELECT o.version AS first_version,
           -- ORDER BY ... LIMIT 1, not min(): one index probe, not one per later hand.
           coalesce((SELECT n.version FROM events n
                      WHERE n.stream_id = %(stream)s AND n.type = {opening} AND n.version > o.version
                      ORDER BY n.version LIMIT 1), 2147483647) AS next_version
      FROM events o
     WHERE o.stream_id = %(stream)s AND o.type = {opening} AND o.metadata->>'hand_id' = %(hand)s
     LIMIT 1
)"""

_READ_HAND = _HAND_BOUNDS + """
SELECT {columns}, {checked} FROM bounds b
  JOIN events e ON e.stream_id = %(stream)s AND e.version >= b.first_version
                AND e.version < b.next_version
 WHERE e.metadata->>'hand_id' = %(hand)s
 ORDER BY e.version
"""

# What a hand's chain check reads: the event before the hand, every event of its range
# (whatever its tag), and the next hand's opening event; the hand's first version on each row.
_READ_HAND_CHAIN = _HAND_BOUNDS + """
SELECT b.first_version, {columns}, {sealed} FROM bounds b
  JOIN events e ON e.stream_id = %(stream)s AND e.version >= b.first_version - 1
                AND e.version <= b.next_version
 ORDER BY e.version
"""

# $1 stream, $2 schema, $3 version: the newest snapshot at or below a version.
_NEWEST_SNAPSHOT = """
SELECT version, body, encode(mac, 'hex') FROM snapshots
 WHERE stream_id = %s AND schema = %s AND version <= %s
 ORDER BY version DESC LIMIT 1
"""

# The newest snapshot and the events after it, in one round trip: the snapshot's columns
# beside each event (its body on the first row only), or alone on one row when no event
# follows it; one row of nulls when there is neither.
_FROM_SNAPSHOT = """
WITH s AS MATERIALIZED (
    SELECT version, body, mac FROM snapshots
     WHERE stream_id = %(stream)s AND schema = %(schema)s AND version <= %(upper)s
     ORDER BY version DESC LIMIT 1
)
SELECT s.version, CASE WHEN e.version IS NULL OR e.version = min(e.version) OVER () THEN s.body END,
       encode(s.mac, 'hex'), {columns}, {checked}
  FROM (SELECT) AS one
  LEFT JOIN s ON true
  LEFT JOIN events a ON a.stream_id = %(stream)s AND a.version = s.version
  LEFT JOIN events e ON e.stream_id = %(stream)s AND e.version > coalesce(s.version, 0)
                    AND e.version <= %(upper)s
 ORDER BY e.version
"""

_SAVE_SNAPSHOT = """
INSERT INTO snapshots (stream_id, schema, version, body, mac)
VALUES (%s, %s, %s, %s, decode(%s, 'hex'))
ON CONFLICT DO NOTHING
"""

_READ_ALL = f"""
SELECT {_COLUMNS}, {_checked_columns(Reveal.ALL, "NULL::bytea")}, transaction_id::text AS transaction_id_text
  FROM events e
 WHERE (transaction_id, position) > (%s::text::xid8, %s)
   AND (transaction_id, position) <= (%s::text::xid8, %s)
   AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY transaction_id, position
 LIMIT %s
"""

_STREAM_VERSION = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"

# DISTINCT by skipping through the (stream_id, version) index: one probe per stream.
_STREAMS_OF = r"""
WITH RECURSIVE found(stream_id) AS (
    (SELECT stream_id FROM {table} WHERE stream_id LIKE %(pattern)s ORDER BY stream_id LIMIT 1)
  UNION ALL
    SELECT (SELECT t.stream_id FROM {table} t
             WHERE t.stream_id > found.stream_id AND t.stream_id LIKE %(pattern)s
             ORDER BY t.stream_id LIMIT 1)
      FROM found WHERE found.stream_id IS NOT NULL
)
SELECT stream_id FROM found WHERE stream_id IS NOT NULL
"""


def streams_of(connection: psycopg.Connection[Any], table: str, prefix: str) -> list[str]:
    """The distinct stream ids starting with `prefix` of `table` (events, log_leaves), in
    order: a skip scan of its index led by stream_id, one probe a stream, never every row."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = _STREAMS_OF.format(table=table)
    return [row[0] for row in _fetch(connection, query, {"pattern": escaped + "%"})]


_MAX_VERSION = 2**31 - 1


class _StreamHeads:
    """The latest (version, hash) this process saw of each stream, so an append needs no
    read to continue the chain. Only a hint: the append statement checks the hash against
    the database, and a stale or wrong hint only costs a read. Bounded, least recently
    used out; threads share it under a lock."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: str) -> tuple[int, str] | None:
        with self._lock:
            return self._heads.get(stream_id)

    def remember(self, stream_id: str, version: int, hash_: str) -> None:
        with self._lock:
            head = self._heads.get(stream_id)
            if head is None or head[0] <= version:
                self._heads[stream_id] = (version, hash_)
            self._heads.move_to_end(stream_id)
            if len(self._heads) > self._capacity:
                self._heads.popitem(last=False)

    def forget(self, stream_id: str) -> None:
        with self._lock:
            self._heads.pop(stream_id, None)


STREAM_HEADS_KEPT = 4096


class PostgresEventStore:
    def __init__(self, pool: ConnectionPool, clock: Callable[[], datetime] = utc_now, *,
                 signer: ChainSigner | None = None) -> None:
        self._pool = pool
        self._clock = clock
        self._heads = _StreamHeads(STREAM_HEADS_KEPT)
        self.signer = signer
        self._record_signer = RowSigner(signer, "idempotency_records") if signer else None
        self.failed_streams = FailedStreams()
        # The idempotency records' statements: this store's own names, so two stores on one
        # pool (tests) never take each other's for theirs.
        named = secrets.token_hex(4)
        self._try_lock_key, self._select_record, self._purge_records, self._insert_record = (
            _PreparedStatement(f"cardroom_{purpose}_{named}".encode(), sql, types)
            for purpose, sql, types in idempotency.STATEMENTS)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        joined = scope.joined_transaction(self)
        if joined is not None:
            return self._append_in_savepoint(joined, stream_id, expected_version, events,
                                             idempotency_key, actor)
        with self._pool.connection() as connection:
            return self.append_on(
                connection,
                stream_id,
                expected_version,
                events,
                idempotency_key=idempotency_key,
                actor=actor,
            )

    def _append_in_savepoint(
        self, connection: psycopg.Connection[Any], stream_id: str, expected_version: int,
        events: Sequence[NewEvent], idempotency_key: str | None, actor: str | None,
    ) -> AppendResult:
        """An append inside the scope's transaction, under a savepoint (in the INSERT's own
        round trip): a lost race (which a caller may retry on fresh state) undoes this
        append only, not the transaction."""
        return self.append_on(connection, stream_id, expected_version, events,
                              idempotency_key=idempotency_key, actor=actor, in_savepoint=True)

    @contextmanager
    def transaction(self) -> Iterator[scope.WriteScope]:
        """One transaction that every append (and read) of this store in the block joins,
        with the idempotency records written in it (service.adapters.store.idempotency)."""
        with self._pool.connection() as connection, scope.transaction_of(self, connection) as opened, _libpq_transaction(connection, opened):
            opened.forget_on_rollback(self.forget)
            yield opened

    def claim_key(self, owner: str, key: str, now: datetime) -> idempotency.IdempotencyRecord | None:
        """The key's lock, then its record (each statement its own snapshot, so the read
        sees whatever the lock's last holder committed), in one round trip."""
        parameters = [owner.encode(), key.encode()]
        locked, found = _in_savepoint(self._joined(), [
            _Run(self._try_lock_key, parameters),
            _Run(self._select_record, [*parameters, format_recorded_at(now).encode()])])
        if locked.get_value(0, 0) != b"t":
            raise idempotency.KeyInUse(key)
        if found.ntuples == 0:
            return None
        record, mac = idempotency.record_from_text(
            owner, key, [found.get_value(0, column) for column in range(found.nfields)])
        if self._record_signer and not self._record_signer.valid(mac, *idempotency.signed_fields(record)):
            self._record_signer.refused(f"Idempotency-Key {key!r} of {owner}")
            raise idempotency.RecordRefused(key)
        return record

    def record_answer(self, record: idempotency.IdempotencyRecord) -> None:
        """The record, and a few expired ones removed, sent with the transaction's COMMIT in
        its round trip (nothing in the transaction reads the record back)."""
        fingerprint, answer = record.fingerprint, record.answer
        created_at, expires_at = (format_recorded_at(moment).encode() for moment in (record.created_at, record.expires_at))
        self._joined()
        opened = scope.current()
        assert opened is not None  # _joined found its transaction
        mac = self._record_signer.sign(*idempotency.signed_fields(record)) if self._record_signer else None
        owner, key = record.owner.encode(), record.key.encode()
        opened.sent_with_commit.extend([
            _Run(self._purge_records, [owner, key, created_at, b"%d" % idempotency.PURGED_PER_WRITE]),
            _Run(self._insert_record, [
                owner, key, fingerprint.method.encode(), fingerprint.path.encode(),
                fingerprint.body_sha256.encode(), b"%d" % answer.status, answer.body,
                idempotency.headers_json(answer.headers).encode(), created_at, expires_at,
                None if mac is None else mac.encode()],
                 formats=idempotency.INSERT_FORMATS)])

    def _joined(self) -> psycopg.Connection[Any]:
        connection = scope.joined_transaction(self)
        if connection is None:
            raise RuntimeError("idempotency records are kept inside store.transaction() only")
        return connection

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The open transaction's connection when the block runs in one (a request reads
        what it wrote), else one from the pool."""
        joined = scope.joined_transaction(self)
        if joined is not None:
            yield joined
        else:
            with self._pool.connection() as connection:
                yield connection

    def append_on(
        self,
        connection: psycopg.Connection[Any],
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
        in_savepoint: bool = False,
    ) -> AppendResult:
        """Append inside the caller's connection (and transaction, if one is open), e.g.
        to write a read model in the same transaction. A lost race aborts that transaction,
        unless the append runs `in_savepoint` (the store's own transactions)."""
        encoded = _EncodedAppend(stream_id, expected_version, events, idempotency_key, actor,
                                 self.signer)
        head = self._heads.get(stream_id)
        if head is not None and head[0] == expected_version:
            appended = self._insert(connection, encoded, head[1], in_savepoint)
            if appended is not None:
                return appended
            self._heads.forget(stream_id)  # a wrong hint: read the hash instead
        previous_hash = (
            GENESIS_HASH if expected_version == 0
            else _fetch_hash_at(connection, stream_id, expected_version)
        )
        if previous_hash is not None:
            appended = self._insert(connection, encoded, previous_hash, in_savepoint)
            if appended is not None:
                return appended
        # The stream is behind the expected version.
        return _refusal(connection, stream_id, expected_version, idempotency_key)

    def _insert(
        self, connection: psycopg.Connection[Any], encoded: _EncodedAppend, previous_hash: str,
        in_savepoint: bool,
    ) -> AppendResult | None:
        """The append chained from `previous_hash`; None (nothing written) when the event
        at the expected version does not have that hash or does not exist."""
        stream_id, expected_version = encoded.stream_id, encoded.expected_version
        statement, parameters, last_hash = encoded.statement(previous_hash, self._clock())
        try:
            result = (_in_savepoint(connection, [_Run(statement, parameters)])[0] if in_savepoint
                      else statement.run(connection, parameters))
        except psycopg.errors.UniqueViolation:  # another writer took the version, or the key
            if in_savepoint or _outside_transaction(connection):  # the connection goes on
                return _refusal(connection, stream_id, expected_version, encoded.idempotency_key)
            with self._pool.connection() as fresh:  # the caller's transaction is aborted
                return _refusal(fresh, stream_id, expected_version, encoded.idempotency_key)
        if result.ntuples == 0:
            return None
        last_version = expected_version + result.ntuples
        if _outside_transaction(connection):  # committed: later appends may chain from it
            self._committed(stream_id, last_version, last_hash)
        elif scope.joined_transaction(self) is connection:
            scope.after_commit(lambda: self._committed(stream_id, last_version, last_hash))
        gathered = scope.current()
        if gathered is not None:  # the receipt of the request's answer
            mac = None if self.signer is None else self.signer.sign(stream_id, last_version, last_hash)
            gathered.appended(Head(stream_id, last_version, last_hash, mac))
        positions = sorted(int(result.get_value(row, 0)) for row in range(result.ntuples))
        return AppendResult(stream_id, expected_version + 1, last_version, tuple(positions))

    def _committed(self, stream_id: str, version: int, hash_: str) -> None:
        self._heads.remember(stream_id, version, hash_)

    def forget(self, stream_id: str) -> None:
        """Drop the head this process remembers of the stream (a rolled-back append)."""
        self._heads.forget(stream_id)

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None,
        *, reveal: Reveal | None = None, checked: bool = True,
    ) -> list[RecordedEvent]:
        """The events after `after_version` up to `up_to_version`, each checked before it
        is returned (base.check_read: an IntegrityFailure when one fails). `checked`
        False: as stored, for the audits that report what they find (verify, receipts)."""
        upper = _MAX_VERSION if up_to_version is None else up_to_version
        parameters = {"stream": stream_id, "after": after_version, "upper": upper}
        if not checked:
            query = _READ_STREAM.format(columns=_COLUMNS, checked=_sealed_column(reveal))
            with self._connection() as connection:
                return [_recorded(row) for row in _fetch(connection, query, parameters)]
        self.failed_streams.refuse(stream_id)
        query = _READ_STREAM.format(columns=_COLUMNS, checked=_checked_columns(reveal, _PREVIOUS_AFTER))
        with self._connection() as connection:
            rows = _fetch(connection, query, parameters)
        recorded = [self._checked(row) for row in rows]
        if recorded:
            self._heads.remember(stream_id, recorded[-1].version, recorded[-1].hash)
        return recorded

    def _checked(self, row: Sequence[Any]) -> RecordedEvent:
        """The event of a row read with _checked_columns, once base.check_read passed it."""
        event = _recorded(row[:11])
        stored_sealed, previous = row[11], row[12]
        try:
            check_read(event.stream_id, event, event.sealed if stored_sealed is None else stored_sealed,
                       None if previous is None else bytes(previous).hex(), self.signer)
        except IntegrityFailure as failed:
            raise self.failed_streams.found(failed) from None
        return event

    def refuse_failed(self, stream_id: str) -> None:
        self.failed_streams.refuse(stream_id)

    def integrity_failures(self) -> list[IntegrityFailure]:
        """The streams this process found failing their check on read (FailedStreams)."""
        return self.failed_streams.all()

    def read_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str, reveal: Reveal | None = None,
    ) -> list[RecordedEvent]:
        """The events tagged with `hand_id` (metadata), from its opening event (type
        `opened_by`) to the stream's next opening event: one statement over two small
        indexes and the hand's own rows."""
        self.failed_streams.refuse(stream_id)
        query = _READ_HAND.format(columns=_E_COLUMNS, checked=_checked_columns(reveal, _PREVIOUS_HASH),
                                  opening=_sql_text_literal(opened_by))
        with self._connection() as connection:
            rows = _fetch(connection, query, {"stream": stream_id, "hand": hand_id})
        return [self._checked(row) for row in rows]

    def verify_hand(
        self, stream_id: str, hand_id: str, *, opened_by: str,
    ) -> RangeVerification | None:
        """The chain check of one hand's range (verify_range), read in one statement that
        costs the hand's events; None when the stream has no such hand. A tail removed is
        the public log's to catch (service.application.public_log.first_difference)."""
        query = _READ_HAND_CHAIN.format(columns=_E_COLUMNS, sealed=_ALL_SEALED,
                                        opening=_sql_text_literal(opened_by))
        with self._connection() as connection:
            rows = _fetch(connection, query, {"stream": stream_id, "hand": hand_id})
        if not rows:
            return None
        return verify_range(stream_id, [_recorded(row[1:]) for row in rows], rows[0][0], opened_by,
                            self.signer)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        """Inside the open transaction when there is one (it commits or rolls back with
        the events it follows); once per (stream, schema, version), the first kept. Outside
        one, a snapshot that cannot be written is logged and let go: it is a cache."""
        mac = None if self.signer is None else self.signer.sign_snapshot(snapshot)
        parameters = (snapshot.stream_id, snapshot.schema, snapshot.version, snapshot.body, mac)
        joined = scope.joined_transaction(self)
        if joined is not None:
            _fetch_none(joined, _SAVE_SNAPSHOT, parameters)
            return
        try:
            with self._pool.connection() as connection:
                _fetch_none(connection, _SAVE_SNAPSHOT, parameters)
        except psycopg.OperationalError:
            # A cache lost, not a write: the events it follows are committed already.
            log.warning("could not keep the snapshot of %s at version %s", snapshot.stream_id,
                        snapshot.version, exc_info=True)

    def newest_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> Snapshot | None:
        """The newest snapshot at or below `up_to_version` under `schema`; with a chain
        key, one whose MAC is not the key's is passed over (and the next older read)."""
        upper = _MAX_VERSION if up_to_version is None else up_to_version
        with self._connection() as connection:
            while upper >= 1:
                rows = _fetch(connection, _NEWEST_SNAPSHOT, (stream_id, schema, upper))
                if not rows:
                    return None
                version, body, mac = rows[0]
                found = Snapshot(stream_id, version, schema, body)
                if self.signer is None or self.signer.valid_snapshot(found, mac):
                    return found
                failed_streams.snapshot_passed_over(found)
                upper = version - 1
        return None

    def read_from_snapshot(
        self, stream_id: str, schema: str, up_to_version: int | None = None,
    ) -> tuple[Snapshot | None, list[RecordedEvent]]:
        """The newest snapshot at or below `up_to_version` and the events after it up to
        that version, sealed fields revealed (the owner's replay): one statement. A newest
        snapshot whose MAC is not the chain key's is passed over as newest_snapshot does."""
        upper = _MAX_VERSION if up_to_version is None else up_to_version
        self.failed_streams.refuse(stream_id)
        query = _FROM_SNAPSHOT.format(columns=_E_COLUMNS, checked=_checked_columns(Reveal.ALL, _PREVIOUS_OF_SNAPSHOT))
        with self._connection() as connection:
            rows = _fetch(connection, query, {"stream": stream_id, "schema": schema, "upper": upper})
        version, body, mac = rows[0][:3]
        found = None if version is None else Snapshot(stream_id, version, schema, body)
        if found is not None and self.signer is not None and not self.signer.valid_snapshot(found, mac):
            failed_streams.snapshot_passed_over(found)
            older = self.newest_snapshot(stream_id, schema, found.version - 1)
            return older, self.read_stream(stream_id, 0 if older is None else older.version,
                                           up_to_version, reveal=Reveal.ALL)
        return found, [self._checked(row[3:]) for row in rows if row[3] is not None]

    def stream_version(self, stream_id: str) -> int:
        with self._connection() as connection:
            return _fetch(connection, _STREAM_VERSION, (stream_id,))[0][0]

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000, *, until: Checkpoint = END
    ) -> tuple[list[RecordedEvent], Checkpoint]:
        after = after or START
        # Inside a transaction (a follower's batch) on its connection, so the batch's
        # reads, commands and checkpoint share one transaction.
        with self._connection() as connection:
            rows = _fetch(connection, _READ_ALL, (str(after.transaction_id), after.position,
                                                  str(until.transaction_id), until.position, limit))
            if not rows:
                return [], after
            checked = self._checked_batch(connection, rows)
        last = rows[-1]
        return checked, Checkpoint(int(last[-1]), last[2])

    def _checked_batch(self, connection: psycopg.Connection[Any], rows: Sequence[Sequence[Any]]) -> list[RecordedEvent]:
        """A batch of the global log, each event checked, chained from the event before it
        in the batch or else from the stored one (read for all of them in one statement):
        the events of a stream that fails (from its failing event on, and every later
        batch's) are left out, and the failure kept, so its readers meet it when they next
        read that stream."""
        last_seen: dict[str, tuple[int, bytes]] = {}
        wanted: set[tuple[str, int]] = set()
        for row in rows:
            stream_id, version, hash_ = row[0], row[1], row[8]
            seen = last_seen.get(stream_id)
            if version > 1 and (seen is None or seen[0] != version - 1):
                wanted.add((stream_id, version - 1))
            last_seen[stream_id] = (version, hash_)
        stored = {}
        if wanted:
            streams, versions = zip(*sorted(wanted))
            stored = {(found[0], found[1]): found[2] for found in _fetch(
                connection, _PREVIOUS_HASHES, (list(streams), list(versions)))}
        before: dict[str, tuple[int, bytes]] = {}
        checked = []
        for row in rows:
            stream_id, version = row[0], row[1]
            chained = before.get(stream_id)
            previous = chained[1] if chained is not None and chained[0] == version - 1 \
                else stored.get((stream_id, version - 1))
            before[stream_id] = (version, row[8])
            if self.failed_streams.failed(stream_id):
                continue
            try:
                checked.append(self._checked([*row[:12], previous]))
            except IntegrityFailure as failed:
                log.error("left out of the global log's batch: %s", failed)
        return checked

    def verify_stream(self, stream_id: str, receipts: Sequence[Head] = ()) -> Verification:
        """The chain recomputed, every MAC checked (with a chain key), and the stream checked
        to reach every head shown (receipts). A tail removed with no receipt shown is the
        public log's to catch (service.application.public_log.first_difference)."""
        events = self.read_stream(stream_id, reveal=Reveal.ALL, checked=False)
        return verify_chain(stream_id, events, self.signer, receipts)

    def list_streams(self, prefix: str = "") -> list[str]:
        with self._connection() as connection:
            return streams_of(connection, "events", prefix)


class _EncodedAppend:
    """An append's events checked and encoded once (canonical JSON, as stored and hashed);
    `statement` chains them from a given hash."""

    def __init__(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency_key: str | None,
        actor: str | None,
        signer: ChainSigner | None,
    ) -> None:
        check_append_arguments(expected_version, events)
        self.types = [event.type for event in events]
        # libpq sends text parameters as C strings: refuse here, as the in-memory store does,
        # text PostgreSQL cannot hold (NUL, lone surrogates) rather than let a NUL cut it short.
        check_storable([stream_id, idempotency_key, *self.types])
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.idempotency_key = idempotency_key
        self.schema_versions = [event.schema_version for event in events]
        self.data = [canonical_json(event.data) for event in events]
        self.metadata = [
            canonical_json(event_metadata(event, idempotency_key, actor)) for event in events
        ]
        self.sealed = [canonical_json(event.sealed) if event.sealed else None for event in events]
        self.signer = signer

    def statement(
        self, previous_hash: str, recorded_at: datetime
    ) -> tuple[_PreparedStatement, list[bytes | None], str]:
        """The statement and its parameters, and the last event's hash."""
        moment = format_recorded_at(recorded_at)
        hashes = []
        chained_from = previous_hash
        macs: list[str | None] = []
        for offset, (type_, schema_version, data, metadata, sealed) in enumerate(
            zip(self.types, self.schema_versions, self.data, self.metadata, self.sealed), start=1
        ):
            version = self.expected_version + offset
            chained_from = chained_hash(self.stream_id, version, type_, schema_version, data,
                                        metadata, chained_from, moment, sealed)
            hashes.append(chained_from)
            macs.append(None if self.signer is None
                        else self.signer.sign(self.stream_id, version, chained_from))
        key = None if self.idempotency_key is None else self.idempotency_key.encode()
        common = [self.stream_id.encode(), b"%d" % self.expected_version, key]
        checks = [previous_hash.encode(), moment.encode()]
        if len(hashes) == 1:
            return _APPEND_ONE, [
                *common,
                self.types[0].encode(),
                b"%d" % self.schema_versions[0],
                self.data[0].encode(),
                self.metadata[0].encode(),
                *checks,
                hashes[0].encode(),
                None if self.sealed[0] is None else self.sealed[0].encode(),
                None if macs[0] is None else macs[0].encode(),
            ], chained_from
        return _APPEND_BATCH, [
            *common,
            _text_array(self.types),
            ("{" + ",".join(str(v) for v in self.schema_versions) + "}").encode(),
            _text_array(self.data),
            _text_array(self.metadata),
            *checks,
            ("{" + ",".join(hashes) + "}").encode(),
            _text_array(self.sealed),
            _text_array(macs),
        ], chained_from


def _outside_transaction(connection: psycopg.Connection[Any]) -> bool:
    return connection.pgconn.transaction_status == pq.TransactionStatus.IDLE


def _fetch_hash_at(connection: psycopg.Connection[Any], stream_id: str, version: int) -> str | None:
    rows = _fetch(connection, _HASH_AT, (stream_id, version))
    return rows[0][0] if rows else None


def _refusal(
    connection: psycopg.Connection[Any],
    stream_id: str,
    expected_version: int,
    idempotency_key: str | None,
) -> AppendResult:
    """Why an append wrote nothing: the key's first result (a retry), else the conflict."""
    if idempotency_key is not None:
        found = _found_by_key(connection, stream_id, idempotency_key)
        if found is not None:
            return found
    actual = _fetch(connection, _STREAM_VERSION, (stream_id,))[0][0]
    raise VersionConflict(stream_id, expected_version, actual)


def _found_by_key(
    connection: psycopg.Connection[Any], stream_id: str, idempotency_key: str
) -> AppendResult | None:
    """The result of the append that recorded this key, if one did."""
    rows = _fetch(connection, _FIND_BY_KEY, (stream_id, idempotency_key))
    if not rows:
        return None
    first_version, positions, last_version = rows[0]
    return AppendResult(stream_id, first_version, last_version, tuple(positions), deduplicated=True)


def _fetch(connection: psycopg.Connection[Any], query: str, params: Any) -> list[tuple[Any, ...]]:
    # Tuple rows whatever row factory the pool's owner chose for its connections.
    with connection.cursor(row_factory=tuple_row) as cursor:
        return cursor.execute(query, params, prepare=True).fetchall()


def _fetch_none(connection: psycopg.Connection[Any], query: str, params: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(query, params, prepare=True)


def _recorded(row: Sequence[Any]) -> RecordedEvent:
    (stream_id, version, position, type_, schema_version, data, metadata, recorded_at, hash_,
     mac, sealed) = row
    return RecordedEvent(
        stream_id=stream_id,
        version=version,
        position=position,
        type=type_,
        schema_version=schema_version,
        data=data,
        metadata=metadata,
        recorded_at=recorded_at,
        hash=bytes(hash_).hex(),
        sealed=sealed,
        mac=None if mac is None else bytes(mac).hex(),
    )
