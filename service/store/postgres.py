"""The event store on PostgreSQL (psycopg 3 with a connection pool).

An append is one round trip: one statement (see _APPEND_ONE and _APPEND_BATCH) checks
the idempotency key and the expected version, chains the hash and inserts. Each event's
data and metadata are encoded to canonical JSON once, here; the server stores that text
as jsonb and hashes the very same text (service.store.base.verify_chain recomputes it
from what is read back). A writer that loses a race for the same version fails on the
unique (stream_id, version) constraint; that slow path costs a second query.

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

import weakref
from typing import Any, Sequence

import psycopg
from psycopg import pq
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from service.store.base import (
    START,
    AppendResult,
    Checkpoint,
    NewEvent,
    RecordedEvent,
    Verification,
    VersionConflict,
    canonical_json,
    check_append_arguments,
    check_storable,
    event_metadata,
    verify_chain,
)


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

# Parameter type oids: text, integer and their arrays.
_TEXT, _INTEGER, _TEXT_ARRAY, _INTEGER_ARRAY = 25, 23, 1009, 1007


class _PreparedStatement:
    """A statement prepared under its own name on each connection that runs it.

    A session can lose it: psycopg sends DEALLOCATE ALL after a rollback once it holds
    prepared statements of its own. Outside a transaction, a run that finds it gone
    prepares it again; inside one, where a failed statement would abort the caller's
    transaction, the server is asked first.
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

    def _on_server(self, connection: psycopg.Connection[Any]) -> bool:
        found = _checked(connection, connection.pgconn.exec_params(
            b"SELECT FROM pg_prepared_statements WHERE name = $1", [self.name]))
        return found.ntuples == 1


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


def _text_array(items: Sequence[str]) -> bytes:
    """A PostgreSQL array literal of texts (quoted, with " and \\ escaped)."""
    quoted = ('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in items)
    return ("{" + ",".join(quoted) + "}").encode()


# One event (the usual append) and a batch each have their own statement, sent with libpq's
# prepared-statement call (psycopg.pq) instead of a psycopg cursor: on this machine the cursor
# machinery costs the client about 90 µs a statement, more than the server spends on the
# whole append. Parameters and results travel as text; the one row comes back as
# (head version, idempotency key seen, positions inserted).
#
# In one snapshot the statement finds the stream's head, checks the expected version and
# the idempotency key, chains the hash and inserts. The hashed document is the one
# service.store.base.event_hash hashes, byte for byte: integers print alike in both,
# and to_json() escapes a string exactly as Python's json.dumps(ensure_ascii=False) does
# (", \, \b \f \n \r \t, \u00XX for the other control characters, everything else as is).
# now() is the transaction's start, so every event of a batch has the same recorded_at in
# its column and in its hash. The idempotency key sits on the first event of an append
# only; the batch is found from there. A writer that loses a race for a version (or a key)
# fails on a unique constraint instead; the store turns that into a VersionConflict or the
# original result.


def _document_hash(*, data: str, metadata: str, previous_hash: str, schema_version: str,
                   type_: str, version: str) -> str:
    return f"""sha256(convert_to(
               '{{"data":' || {data} || ',"metadata":' || {metadata} || ',"previous_hash":"'
            || coalesce(encode({previous_hash}, 'hex'), repeat('0', 64))
            || '","recorded_at":"' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            || '","schema_version":' || {schema_version} || ',"stream_id":' || to_json($1::text)
            || ',"type":' || to_json({type_}::text) || ',"version":' || {version} || '}}', 'UTF8'))"""


_HEAD_AND_KEY = """
    head AS (
        SELECT e.version, e.hash FROM events e
         WHERE e.stream_id = $1 ORDER BY e.version DESC LIMIT 1
    ), keyed AS (
        SELECT EXISTS (SELECT FROM events e
                        WHERE e.stream_id = $1 AND e.idempotency_key = $3) AS seen
    )"""
_MAY_APPEND = (
    "coalesce((SELECT h.version FROM head h), 0) = $2 AND NOT (SELECT k.seen FROM keyed k)"
)

# $1 stream id, $2 expected version, $3 idempotency key, $4 type, $5 schema version,
# $6 data, $7 metadata (canonical JSON texts).
_APPEND_ONE = _PreparedStatement(
    b"cardroom_append_one",
    f"""
WITH {_HEAD_AND_KEY}, inserted AS (
    INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                        idempotency_key, recorded_at, hash)
    SELECT $1, $2 + 1, $4, $5, $6::jsonb, $7::jsonb, $3, now(),
           {_document_hash(data="$6", metadata="$7", previous_hash="(SELECT h.hash FROM head h)",
                           schema_version="$5", type_="$4", version="($2 + 1)")}
     WHERE {_MAY_APPEND}
    RETURNING events.position
)
SELECT coalesce((SELECT h.version FROM head h), 0), (SELECT k.seen FROM keyed k),
       (SELECT n.position FROM inserted n)
""",
    (_TEXT, _INTEGER, _TEXT, _TEXT, _INTEGER, _TEXT, _TEXT),
)

# The same with arrays ($4 types, $5 schema versions, $6 data, $7 metadata): each event's
# hash needs the one before it, hence the recursion.
_APPEND_BATCH = _PreparedStatement(
    b"cardroom_append_batch",
    f"""
WITH RECURSIVE {_HEAD_AND_KEY}, chain (i, hash) AS (
        SELECT 0, (SELECT h.hash FROM head h) WHERE {_MAY_APPEND}
      UNION ALL
        SELECT c.i + 1,
               {_document_hash(data="$6[c.i + 1]", metadata="$7[c.i + 1]", previous_hash="c.hash",
                               schema_version="$5[c.i + 1]", type_="$4[c.i + 1]",
                               version="($2 + c.i + 1)")}
          FROM chain c WHERE c.i < cardinality($4)
    ), inserted AS (
        INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                            idempotency_key, recorded_at, hash)
        SELECT $1, $2 + c.i, $4[c.i], $5[c.i], $6[c.i]::jsonb, $7[c.i]::jsonb,
               CASE WHEN c.i = 1 THEN $3 END, now(), c.hash
          FROM chain c WHERE c.i > 0 ORDER BY c.i
        RETURNING events.position
    )
SELECT coalesce((SELECT h.version FROM head h), 0), (SELECT k.seen FROM keyed k),
       (SELECT array_agg(n.position ORDER BY n.position) FROM inserted n)
""",
    (_TEXT, _INTEGER, _TEXT, _TEXT_ARRAY, _INTEGER_ARRAY, _TEXT_ARRAY, _TEXT_ARRAY),
)

_FIND_BY_KEY = """
SELECT first.version, array_agg(e.position ORDER BY e.version), max(e.version)
  FROM events first
  JOIN events e ON e.stream_id = first.stream_id AND e.version >= first.version
               AND e.metadata->>'idempotency_key' = first.idempotency_key
 WHERE first.stream_id = %s AND first.idempotency_key = %s
 GROUP BY first.version
"""

_COLUMNS = (
    "stream_id, version, position, type, schema_version, data, metadata, recorded_at, hash"
)

_READ_STREAM = f"""
SELECT {_COLUMNS} FROM events
 WHERE stream_id = %s AND version > %s AND version <= %s
 ORDER BY version
"""

_READ_ALL = f"""
SELECT {_COLUMNS}, transaction_id::text AS transaction_id_text FROM events
 WHERE (transaction_id, position) > (%s::text::xid8, %s)
   AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY transaction_id, position
 LIMIT %s
"""

_STREAM_VERSION = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"

# DISTINCT by skipping through the (stream_id, version) index: one probe per stream.
_LIST_STREAMS = r"""
WITH RECURSIVE found(stream_id) AS (
    (SELECT stream_id FROM events WHERE stream_id LIKE %(pattern)s ORDER BY stream_id LIMIT 1)
  UNION ALL
    SELECT (SELECT e.stream_id FROM events e
             WHERE e.stream_id > found.stream_id AND e.stream_id LIKE %(pattern)s
             ORDER BY e.stream_id LIMIT 1)
      FROM found WHERE found.stream_id IS NOT NULL
)
SELECT stream_id FROM found WHERE stream_id IS NOT NULL
"""

_MAX_VERSION = 2**31 - 1


class PostgresEventStore:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        with self._pool.connection() as connection:
            return self.append_on(
                connection,
                stream_id,
                expected_version,
                events,
                idempotency_key=idempotency_key,
                actor=actor,
            )

    def append_on(
        self,
        connection: psycopg.Connection[Any],
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        actor: str | None = None,
    ) -> AppendResult:
        """Append inside the caller's connection (and transaction, if one is open), e.g.
        to write a read model in the same transaction. A lost race aborts that transaction."""
        statement, parameters = _append_statement(
            stream_id, expected_version, events, idempotency_key, actor
        )
        try:
            result = statement.run(connection, parameters)
        except psycopg.errors.UniqueViolation:
            return self._after_lost_race(stream_id, expected_version, idempotency_key)
        head_version, key_seen, positions = (result.get_value(0, column) for column in range(3))
        if positions is not None:
            numbers = tuple(int(p) for p in positions.strip(b"{}").split(b","))
            return AppendResult(
                stream_id, expected_version + 1, expected_version + len(events), numbers
            )
        if key_seen == b"t":
            assert idempotency_key is not None
            found = _found_by_key(connection, stream_id, idempotency_key)
            assert found is not None, "the key was seen in the same snapshot"
            return found
        raise VersionConflict(stream_id, expected_version, int(head_version))

    def _after_lost_race(
        self, stream_id: str, expected_version: int, idempotency_key: str | None
    ) -> AppendResult:
        """Another writer took the version (or, retrying, the same key) first."""
        with self._pool.connection() as connection:
            if idempotency_key is not None:
                found = _found_by_key(connection, stream_id, idempotency_key)
                if found is not None:
                    return found
            actual = _fetch(connection, _STREAM_VERSION, (stream_id,))[0][0]
        raise VersionConflict(stream_id, expected_version, actual)

    def read_stream(
        self, stream_id: str, after_version: int = 0, up_to_version: int | None = None
    ) -> list[RecordedEvent]:
        upper = _MAX_VERSION if up_to_version is None else up_to_version
        with self._pool.connection() as connection:
            rows = _fetch(connection, _READ_STREAM, (stream_id, after_version, upper))
        return [_recorded(row) for row in rows]

    def stream_version(self, stream_id: str) -> int:
        with self._pool.connection() as connection:
            return _fetch(connection, _STREAM_VERSION, (stream_id,))[0][0]

    def read_all(
        self, after: Checkpoint | None = None, limit: int = 1000
    ) -> tuple[list[RecordedEvent], Checkpoint]:
        after = after or START
        with self._pool.connection() as connection:
            rows = _fetch(connection, _READ_ALL, (str(after.transaction_id), after.position, limit))
        if not rows:
            return [], after
        last = rows[-1]
        return [_recorded(row[:-1]) for row in rows], Checkpoint(int(last[-1]), last[2])

    def verify_stream(self, stream_id: str) -> Verification:
        return verify_chain(stream_id, self.read_stream(stream_id))

    def list_streams(self, prefix: str = "") -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._pool.connection() as connection:
            rows = _fetch(connection, _LIST_STREAMS, {"pattern": escaped + "%"})
        return [row[0] for row in rows]


def _append_statement(
    stream_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    idempotency_key: str | None,
    actor: str | None,
) -> tuple[_PreparedStatement, list[bytes | None]]:
    check_append_arguments(expected_version, events)
    types = [event.type for event in events]
    # libpq sends text parameters as C strings: refuse here, as the in-memory store does,
    # text PostgreSQL cannot hold (NUL, lone surrogates) rather than let a NUL cut it short.
    check_storable([stream_id, idempotency_key, *types])
    data = [canonical_json(event.data) for event in events]
    metadata = [canonical_json(event_metadata(event, idempotency_key, actor)) for event in events]
    key = None if idempotency_key is None else idempotency_key.encode()
    if len(events) == 1:
        return _APPEND_ONE, [
            stream_id.encode(),
            b"%d" % expected_version,
            key,
            types[0].encode(),
            b"%d" % events[0].schema_version,
            data[0].encode(),
            metadata[0].encode(),
        ]
    schema_versions = ",".join(str(event.schema_version) for event in events)
    return _APPEND_BATCH, [
        stream_id.encode(),
        b"%d" % expected_version,
        key,
        _text_array(types),
        ("{" + schema_versions + "}").encode(),
        _text_array(data),
        _text_array(metadata),
    ]


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


def _recorded(row: Sequence[Any]) -> RecordedEvent:
    stream_id, version, position, type_, schema_version, data, metadata, recorded_at, hash_ = row
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
    )
