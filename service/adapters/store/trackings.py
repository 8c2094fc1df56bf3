"""Tracking records on PostgreSQL (migration 0011): where each follower of the global log
stands, kept in the transaction of the commands its batches send.

`claim` locks the follower's row for the caller's open transaction (FOR UPDATE: a second
follower of the same name waits for the first to commit and then reads the checkpoint it
committed), so a position is never handled by two followers; `move` writes the new
checkpoint in the same transaction.
"""
from __future__ import annotations

from typing import Any

from psycopg.rows import tuple_row

from service.adapters.store.base import START, Checkpoint

_CREATE = """
INSERT INTO process_trackings (name, transaction_id, position) VALUES (%s, '0'::xid8, 0)
ON CONFLICT (name) DO NOTHING
"""
_CLAIM = "SELECT transaction_id::text, position FROM process_trackings WHERE name = %s FOR UPDATE"
_MOVE = """
UPDATE process_trackings SET transaction_id = %s::text::xid8, position = %s, moved_at = now()
 WHERE name = %s
"""


def claim(connection: Any, name: str) -> Checkpoint:
    """The follower's checkpoint, its row locked until the caller's transaction ends."""
    with connection.cursor(row_factory=tuple_row) as cursor:
        row = cursor.execute(_CLAIM, (name,)).fetchone()
        if row is None:
            cursor.execute(_CREATE, (name,))
            row = cursor.execute(_CLAIM, (name,)).fetchone()
    transaction_id, position = row
    checkpoint = Checkpoint(int(transaction_id), position)
    return START if checkpoint == START else checkpoint


def move(connection: Any, name: str, checkpoint: Checkpoint) -> None:
    connection.execute(_MOVE, (str(checkpoint.transaction_id), checkpoint.position, name))
