"""The event store's SQL (service.adapters.store.postgres runs it): the append statements,
prepared through libpq (service.adapters.store.libpq_pipeline), and the reads, run through
psycopg's cursors with `prepare=True`, with the columns each read checks its events by.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.rows import tuple_row

from service.adapters.store.base import RecordedEvent, Reveal
from service.adapters.store.libpq_pipeline import INTEGER, INTEGER_ARRAY, TEXT, TEXT_ARRAY, TIMESTAMPTZ

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

# Each append notifies listeners (service.adapters.notifications) itself, with the
# stream and its last version, at commit (migration 0022): nothing when nothing was written.
_NOTIFY = "pg_notify('cardroom_events', $1 || ' ' || version)"

# $1 stream id, $2 expected version, $3 idempotency key, $4 type, $5 schema version,
# $6 data, $7 metadata (canonical JSON texts), $8 the hash chained from, $9 recorded at,
# $10 the event's hash (hex), $11 the sealed fields (canonical JSON, NULL when none), $12 the
# event's MAC (hex, NULL without a chain key).
_INSERT_ONE = f"""
WITH appended AS (
INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                    idempotency_key, recorded_at, hash, sealed, mac)
SELECT $1, $2 + 1, $4, $5, $6::jsonb, $7::jsonb, $3, $9::timestamptz, decode($10, 'hex'),
       $11::jsonb, decode($12, 'hex')
 WHERE {_MAY_APPEND}
RETURNING position, version
)"""
_ONE_TYPES = (TEXT, INTEGER, TEXT, TEXT, INTEGER, TEXT, TEXT, TEXT, TIMESTAMPTZ, TEXT, TEXT, TEXT)
APPEND_ONE = ("insert_one", f"{_INSERT_ONE}\nSELECT position, {_NOTIFY} FROM appended\n", _ONE_TYPES)

# The same with arrays ($4 types, $5 schema versions, $6 data, $7 metadata, $10 hashes,
# $11 sealed, $12 MACs), inserted in version order.
_INSERT_BATCH = f"""
WITH appended AS (
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
RETURNING position, version
)"""
_BATCH_TYPES = (TEXT, INTEGER, TEXT, TEXT_ARRAY, INTEGER_ARRAY, TEXT_ARRAY, TEXT_ARRAY, TEXT,
                TIMESTAMPTZ, TEXT_ARRAY, TEXT_ARRAY, TEXT_ARRAY)
APPEND_BATCH = (
    "insert_batch",
    f"{_INSERT_BATCH}\nSELECT position, CASE WHEN version = $2 + cardinality($4::text[]) THEN {_NOTIFY} END"
    " FROM appended\n",
    _BATCH_TYPES,
)

# The same appends, for the round trip that ends in the transaction's COMMIT (an idempotent
# write's first append: service.adapters.store.held_back): one row, and a failure when
# nothing was appended (events_require_appended, migration 0023), which aborts the
# transaction so the COMMIT sent behind it commits nothing.
_REQUIRED = ("SELECT events_require_appended(count(*), $1, $2),"
             " pg_notify('cardroom_events', $1 || ' ' || max(version)) FROM appended\n")
APPEND_ONE_REQUIRED = ("insert_one_required", f"{_INSERT_ONE}\n{_REQUIRED}", _ONE_TYPES)
APPEND_BATCH_REQUIRED = ("insert_batch_required", f"{_INSERT_BATCH}\n{_REQUIRED}", _BATCH_TYPES)
APPEND_BATCH_FORMATS = (0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1)
"""The text arrays of texts ($4 types, $6 data, $7 metadata, $11 sealed, $12 MACs) travel in
the binary format (libpq_pipeline.text_array); every other parameter as text."""

HASH_AT = "SELECT encode(hash, 'hex') FROM events WHERE stream_id = %s AND version = %s"

FIND_BY_KEY = """
SELECT first.version, array_agg(e.position ORDER BY e.version), max(e.version)
  FROM events first
  JOIN events e ON e.stream_id = first.stream_id AND e.version >= first.version
               AND e.metadata->>'idempotency_key' = first.idempotency_key
 WHERE first.stream_id = %s AND first.idempotency_key = %s
 GROUP BY first.version
"""

COLUMNS = (
    "stream_id, version, position, type, schema_version, data, metadata, recorded_at, hash, mac"
)
E_COLUMNS = ", ".join(f"e.{column.strip()}" for column in COLUMNS.split(","))
# The sealed fields, as the read's Reveal allows: all, none, or those of events whose hand's
# closing event is in the stream. The closing check runs in the statement that reads the
# events, so both see one snapshot: a hand opened during the read is never revealed.
ALL_SEALED = "coalesce(e.sealed, '{}')"
_NO_SEALED = "NULL::jsonb"
_SEALED_IF_CLOSED = """CASE WHEN EXISTS (SELECT FROM events c
                                 WHERE c.stream_id = e.stream_id AND c.type = {closing}
                                   AND c.metadata->>'hand_id' = e.metadata->>'hand_id')
            THEN coalesce(e.sealed, '{{}}') END"""


def sealed_column(reveal: Reveal | None) -> str:
    if reveal is None:
        return _NO_SEALED
    if reveal.closing_type is None:
        return ALL_SEALED
    # A literal, not a parameter: the partial index events_hand_closed is only used when
    # the planner sees the type itself.
    return _SEALED_IF_CLOSED.format(closing=sql_text_literal(reveal.closing_type))


# What a read checks each event with (base.check_read), after the columns it returns: the
# sealed fields as stored (only when the read withholds some: with Reveal.ALL the revealed
# column is them) and the stored hash of the event before it. A read of consecutive
# versions takes the one before from the row before (lag) and the first row's from one
# probe of the index (an InitPlan or a join: never a subquery per row, whose estimated cost
# over a long stream's row estimate would have PostgreSQL JIT-compile the statement, 0.8 s);
# a hand's scattered rows (a few dozen) probe it for each row; the global log's batches
# read the few they lack in a second statement (PREVIOUS_HASHES).
PREVIOUS_HASH = "(SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.version = e.version - 1)"
PREVIOUS_AFTER = """coalesce(lag(e.hash) OVER (ORDER BY e.version),
                     (SELECT p.hash FROM events p WHERE p.stream_id = %(stream)s AND p.version = %(after)s))"""
PREVIOUS_OF_SNAPSHOT = "coalesce(lag(e.hash) OVER (ORDER BY e.version), a.hash)"
PREVIOUS_HASHES = """
SELECT p.stream_id, p.version, p.hash FROM unnest(%s::text[], %s::integer[]) AS wanted (stream_id, version)
  JOIN events p ON p.stream_id = wanted.stream_id AND p.version = wanted.version
"""


def checked_columns(reveal: Reveal | None, previous: str) -> str:
    """The sealed column the read's Reveal allows, then what the check needs."""
    stored = "NULL::jsonb" if reveal == Reveal.ALL else "e.sealed"
    return f"{sealed_column(reveal)}, {stored}, {previous}"


def sql_text_literal(text: str) -> str:
    if not text.isidentifier():
        raise ValueError(f"a closing event type is a name, not {text!r}")
    return f"'{text}'"


READ_STREAM = """
SELECT {columns}, {checked} FROM events e
 WHERE stream_id = %(stream)s AND version > %(after)s AND version <= %(upper)s
 ORDER BY version
"""

# A hand's events: those tagged with it between its opening event and the stream's next
# one, found through the partial indexes on opening events (migration 0013), so a read
# costs the hand's events, whatever the age of the stream. The opening type is a literal
# for the planner to match the partial indexes (as sealed_column's closing type).
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

READ_HAND = _HAND_BOUNDS + """
SELECT {columns}, {checked} FROM bounds b
  JOIN events e ON e.stream_id = %(stream)s AND e.version >= b.first_version
                AND e.version < b.next_version
 WHERE e.metadata->>'hand_id' = %(hand)s
 ORDER BY e.version
"""

# What a hand's chain check reads: the event before the hand, every event of its range
# (whatever its tag), and the next hand's opening event; the hand's first version on each row.
READ_HAND_CHAIN = _HAND_BOUNDS + """
SELECT b.first_version, {columns}, {sealed} FROM bounds b
  JOIN events e ON e.stream_id = %(stream)s AND e.version >= b.first_version - 1
                AND e.version <= b.next_version
 ORDER BY e.version
"""

# $1 stream, $2 schema, $3 version: the newest snapshot at or below a version.
NEWEST_SNAPSHOT = """
SELECT version, body, encode(mac, 'hex') FROM snapshots
 WHERE stream_id = %s AND schema = %s AND version <= %s
 ORDER BY version DESC LIMIT 1
"""

# The newest snapshot and the events after it, in one round trip: the snapshot's columns
# beside each event (its body on the first row only), or alone on one row when no event
# follows it; one row of nulls when there is neither.
FROM_SNAPSHOT = """
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

# Prepared through libpq as the appends are: in the store's transaction it goes in the
# COMMIT's round trip ($1 stream, $2 schema, $3 version, $4 body, $5 MAC in hex or NULL).
SAVE_SNAPSHOT = (
    "save_snapshot",
    """
INSERT INTO snapshots (stream_id, schema, version, body, mac)
VALUES ($1, $2, $3, $4, decode($5, 'hex'))
ON CONFLICT DO NOTHING
""",
    (TEXT, TEXT, INTEGER, TEXT, TEXT),
)

READ_ALL = f"""
SELECT {COLUMNS}, {checked_columns(Reveal.ALL, "NULL::bytea")}, transaction_id::text AS transaction_id_text
  FROM events e
 WHERE (transaction_id, position) > (%s::text::xid8, %s)
   AND (transaction_id, position) <= (%s::text::xid8, %s)
   AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY transaction_id, position
 LIMIT %s
"""

STREAM_VERSION = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"

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
    return [row[0] for row in fetch(connection, query, {"pattern": escaped + "%"})]


MAX_VERSION = 2**31 - 1

def fetch(connection: psycopg.Connection[Any], query: str, params: Any) -> list[tuple[Any, ...]]:
    # Tuple rows whatever row factory the pool's owner chose for its connections.
    with connection.cursor(row_factory=tuple_row) as cursor:
        return cursor.execute(query, params, prepare=True).fetchall()


def recorded(row: Sequence[Any]) -> RecordedEvent:
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
