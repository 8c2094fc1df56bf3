"""The event store on PostgreSQL (psycopg 3 with a connection pool).

An append is one round trip: the `append_event` function (or `append_events` for a
batch, see migration 0001) checks the idempotency key and the expected version, chains
the hash and inserts, in one statement per event. Each event's data and metadata are
encoded to canonical JSON once, here; the server stores that text as jsonb and hashes
the very same text (service.store.base.verify_chain recomputes it from what is read
back). A writer that loses a race for the same version fails on the unique
(stream_id, version) constraint; that slow path costs a second query.

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

from typing import Any, Sequence

import psycopg
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


# One event (the usual append) goes as plain parameters, which cost the client about half
# what arrays do; a batch goes as arrays, in binary: no quoting of the JSON texts.
_APPEND_ONE = (
    "SELECT outcome, stream_version, first_version, positions"
    " FROM append_event(%s, %s::integer, %s, %s, %s::integer, %s, %s)"
)
_APPEND_BATCH = (
    "SELECT outcome, stream_version, first_version, positions"
    " FROM append_events(%s, %s::integer, %s, %b, %b::integer[], %b, %b)"
)

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
        query, params = self._append_statement(
            stream_id, expected_version, events, idempotency_key, actor
        )
        try:
            with connection.cursor(row_factory=tuple_row) as cursor:
                outcome, version, first_version, positions = cursor.execute(
                    query, params, prepare=True
                ).fetchone()
        except psycopg.errors.UniqueViolation:
            return self._after_lost_race(stream_id, expected_version, idempotency_key)
        if outcome == "conflict":
            raise VersionConflict(stream_id, expected_version, version)
        return AppendResult(
            stream_id,
            first_version,
            version,
            tuple(positions),
            deduplicated=outcome == "duplicate",
        )

    @staticmethod
    def _append_statement(
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency_key: str | None,
        actor: str | None,
    ) -> tuple[str, tuple[Any, ...]]:
        check_append_arguments(expected_version, events)
        types: list[str] = []
        schema_versions: list[int] = []
        data: list[str] = []
        metadata: list[str] = []
        for event in events:
            types.append(event.type)
            schema_versions.append(event.schema_version)
            data.append(canonical_json(event.data))
            metadata.append(canonical_json(event_metadata(event, idempotency_key, actor)))
        # The server quotes the stream id and the types for the hash; refuse here, as the
        # in-memory store does, text PostgreSQL cannot hold (NUL, lone surrogates).
        canonical_json([stream_id, *types])
        if len(events) == 1:
            return _APPEND_ONE, (
                stream_id,
                expected_version,
                idempotency_key,
                types[0],
                schema_versions[0],
                data[0],
                metadata[0],
            )
        return _APPEND_BATCH, (
            stream_id,
            expected_version,
            idempotency_key,
            types,
            schema_versions,
            data,
            metadata,
        )

    def _after_lost_race(
        self, stream_id: str, expected_version: int, idempotency_key: str | None
    ) -> AppendResult:
        """Another writer took the version (or, retrying, the same key) first."""
        with self._pool.connection() as connection:
            if idempotency_key is not None:
                rows = _fetch(
                    connection,
                    """
                    SELECT first.version, array_agg(e.position ORDER BY e.version), max(e.version)
                      FROM events first
                      JOIN events e ON e.stream_id = first.stream_id AND e.version >= first.version
                                   AND e.metadata->>'idempotency_key' = first.idempotency_key
                     WHERE first.stream_id = %s AND first.idempotency_key = %s
                     GROUP BY first.version
                    """,
                    (stream_id, idempotency_key),
                )
                if rows:
                    first_version, positions, last_version = rows[0]
                    return AppendResult(
                        stream_id, first_version, last_version, tuple(positions), deduplicated=True
                    )
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
