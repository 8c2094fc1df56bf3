"""Tracking records on PostgreSQL (migration 0011): where each follower of the global log
stands, kept in the transaction of the commands its batches send.

`claim` locks the follower's row inside the store transaction that is open
(`store.transaction()`): a second follower of the same name waits on the lock until the
first commits, then reads the checkpoint it committed, so no position is handled twice;
`move` writes the new checkpoint in that same transaction.
"""
from __future__ import annotations

from typing import Any

from psycopg.rows import tuple_row

from service.adapters.store import scope
from service.adapters.store.base import Checkpoint

_CREATE = """
INSERT INTO process_trackings (name, transaction_id, position) VALUES (%s, '0'::xid8, 0)
ON CONFLICT (name) DO NOTHING
"""
_CLAIM = "SELECT transaction_id::text, position FROM process_trackings WHERE name = %s FOR UPDATE"
_MOVE = """
UPDATE process_trackings SET transaction_id = %s::text::xid8, position = %s, moved_at = now()
 WHERE name = %s
"""


class PostgresTracking:
    def claim(self, name: str) -> Checkpoint:
        """The follower's checkpoint, its row locked until the open transaction ends."""
        with _open_transaction().cursor(row_factory=tuple_row) as cursor:
            row = cursor.execute(_CLAIM, (name,)).fetchone()
            if row is None:
                cursor.execute(_CREATE, (name,))
                row = cursor.execute(_CLAIM, (name,)).fetchone()
        assert row is not None
        return Checkpoint(int(row[0]), row[1])

    def move(self, name: str, checkpoint: Checkpoint) -> None:
        _open_transaction().execute(_MOVE, (str(checkpoint.transaction_id), checkpoint.position, name))


def _open_transaction() -> Any:
    connection = scope.current_connection()
    if connection is None:
        raise RuntimeError("tracking records are kept inside store.transaction() only")
    return connection
