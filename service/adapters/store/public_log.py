"""The public log's tree on PostgreSQL (migration 0021_merkle_log): leaves, complete
subtrees, signed checkpoints and cosignatures, added and read, never changed.

The integrator writes inside the store transaction that is open (`store.transaction()`,
the tracking record's), so a batch's leaves, nodes and checkpoint of the global log
commit together or not at all; everything else reads on a connection of the pool.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from service.adapters.store import scope
from service.adapters.store.event_sql import streams_of

_SIZE = "SELECT coalesce(max(index) + 1, 0) FROM log_leaves"
_NODES = """
SELECT n.level, n.index, n.hash FROM log_nodes n
  JOIN unnest(%s::smallint[], %s::bigint[]) AS wanted (level, index)
    ON n.level = wanted.level AND n.index = wanted.index
"""
_NEWEST_CHECKPOINTS = """
SELECT c.size, c.note, c.vkey FROM log_checkpoints c
 WHERE (SELECT count(*) FROM log_cosignatures s WHERE s.size = c.size) >= %s
 ORDER BY c.size DESC LIMIT %s
"""
_CHECKPOINT = "SELECT note, vkey FROM log_checkpoints WHERE size = %s"
_COSIGNATURES = "SELECT witness, line, received_at FROM log_cosignatures WHERE size = %s ORDER BY witness"
BACKLOG_COUNTED = 100_000
_BACKLOG = """
SELECT count(*) FROM (
    SELECT 1 FROM events e
     WHERE (e.transaction_id, e.position) > coalesce(
               (SELECT (t.transaction_id, t.position) FROM process_trackings t WHERE t.name = %s),
               ('0'::xid8, 0::bigint))
     LIMIT %s) AS behind
"""
_LAST_COSIGNED = "SELECT witness, max(received_at) FROM log_cosignatures GROUP BY witness"


INTEGRATOR_LOCK = int.from_bytes(b"crd-tlog", "big")
"""The integrator's advisory lock (pg_advisory_xact_lock's key): one integrates at a time."""


class ForgedRows(Exception):
    """Rows of the tree were there before the integrator wrote them: added in SQL."""


class PostgresPublicLog:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """The open store transaction's connection, else one of the pool's."""
        joined = scope.current_connection()
        if joined is not None:
            yield joined
            return
        with self._pool.connection() as connection:
            yield connection

    def lock(self) -> None:
        """Wait for the integrator's lock, held until the open transaction ends. An advisory
        lock gives the transaction no id: it holds back no reader of the log (a row lock would,
        for the whole batch); the batch's transaction takes one only at its first write."""
        connection = scope.current_connection()
        if connection is None:
            raise RuntimeError("the integrator's lock is taken inside store.transaction() only")
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (INTEGRATOR_LOCK,))

    def size(self) -> int:
        with self._connection() as connection:
            return int(connection.execute(_SIZE).fetchone()[0])

    def nodes(self, wanted: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """The complete subtrees asked for (those stored), by (level, index)."""
        if not wanted:
            return {}
        levels, indexes = zip(*wanted)
        with self._connection() as connection:
            rows = connection.execute(_NODES, (list(levels), list(indexes))).fetchall()
        return {(level, index): bytes(hash_) for level, index, hash_ in rows}

    def append(self, leaves: Sequence[tuple[int, str, int, bytes]], nodes: Sequence[tuple[int, int, bytes]]) -> None:
        """Leaves (index, stream, version, leaf) and the nodes they complete, in the open
        transaction (COPY: a batch's rows in one stream, no statement per row). Each row
        must be new: one already there was added by someone else, and the batch fails."""
        connection = scope.current_connection()
        if connection is None:
            raise RuntimeError("the public log is appended to inside store.transaction() only")
        try:
            with connection.cursor() as cursor:
                with cursor.copy("COPY log_leaves (index, stream_id, version, leaf) FROM STDIN") as copy:
                    for row in leaves:
                        copy.write_row(row)
                with cursor.copy("COPY log_nodes (level, index, hash) FROM STDIN") as copy:
                    for row in nodes:
                        copy.write_row(row)
        except psycopg.errors.UniqueViolation as taken:
            raise ForgedRows(f"a row of the leaves {leaves[0][0]}..{leaves[-1][0]} was in the tree before the "
                             f"integrator wrote it ({taken.diag.message_detail})") from None

    def leaf(self, index: int) -> bytes | None:
        with self._connection() as connection:
            row = connection.execute("SELECT leaf FROM log_leaves WHERE index = %s", (index,)).fetchone()
        return None if row is None else bytes(row[0])

    def leaf_of(self, stream_id: str, version: int) -> tuple[int, bytes] | None:
        with self._connection() as connection:
            row = connection.execute("SELECT index, leaf FROM log_leaves WHERE stream_id = %s AND version = %s",
                                     (stream_id, version)).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def leaves_of(self, stream_id: str) -> list[tuple[int, int, bytes]]:
        """(index, version, leaf) of every leaf of the stream, by version."""
        with self._connection() as connection:
            rows = connection.execute("SELECT index, version, leaf FROM log_leaves WHERE stream_id = %s"
                                      " ORDER BY version", (stream_id,)).fetchall()
        return [(int(index), int(version), bytes(leaf)) for index, version, leaf in rows]

    def streams(self, prefix: str = "") -> list[str]:
        """Every stream with a leaf in the tree whose id starts with `prefix`, in order: a
        skip scan of the (stream_id, version) index, a probe a stream, never every leaf."""
        with self._connection() as connection:
            return streams_of(connection, "log_leaves", prefix)

    def newest_checkpoints(self, cosigned_by: int = 0, count: int = 1) -> list[tuple[int, str, str]]:
        """(size, signed note, verifier key) of the largest trees signed that have at least
        `cosigned_by` cosignature rows (each still to be verified), largest first."""
        with self._connection() as connection:
            rows = connection.execute(_NEWEST_CHECKPOINTS, (cosigned_by, count)).fetchall()
        return [(int(size), note, vkey) for size, note, vkey in rows]

    def checkpoint(self, size: int) -> tuple[str, str] | None:
        with self._connection() as connection:
            row = connection.execute(_CHECKPOINT, (size,)).fetchone()
        return None if row is None else (row[0], row[1])

    def add_checkpoint(self, size: int, note: str, vkey: str) -> None:
        """Signed after its nodes committed; a second integrator signing the same tree
        writes the same note (Ed25519 is deterministic), so the first one kept is it."""
        with self._pool.connection() as connection:
            connection.execute("INSERT INTO log_checkpoints (size, note, vkey) VALUES (%s, %s, %s)"
                               " ON CONFLICT (size) DO NOTHING", (size, note, vkey))

    def cosignatures(self, size: int) -> dict[str, str]:
        """witness verifier key -> its cosignature line on the checkpoint of `size`."""
        with self._connection() as connection:
            return {witness: line for witness, line, _ in connection.execute(_COSIGNATURES, (size,))}

    def add_cosignature(self, size: int, witness: str, line: str) -> None:
        with self._pool.connection() as connection:
            connection.execute("INSERT INTO log_cosignatures (size, witness, line) VALUES (%s, %s, %s)"
                               " ON CONFLICT DO NOTHING", (size, witness, line))

    def backlog(self, integrator: str) -> int:
        """Events of the global log the integrator has not read yet (counted up to BACKLOG_COUNTED)."""
        with self._connection() as connection:
            return int(connection.execute(_BACKLOG, (integrator, BACKLOG_COUNTED)).fetchone()[0])

    def last_cosigned(self) -> dict[str, float]:
        """witness verifier key -> when its newest cosignature came (seconds since the epoch)."""
        with self._connection() as connection:
            return {witness: at.timestamp() for witness, at in connection.execute(_LAST_COSIGNED)}
