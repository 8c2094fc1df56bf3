"""Tracking records on PostgreSQL (migration 0011): where each follower of the global log
stands, kept in the transaction of the commands its batches send.

`claim` locks the follower's row inside the store transaction that is open
(`store.transaction()`): a second follower of the same name waits on the lock until the
first commits, then reads the checkpoint it committed, so no position is handled twice;
`move` writes the new checkpoint in that same transaction.

With the chain key (`signer`), each record carries a MAC of (name, checkpoint) (migration
0019): the application's login can write this table, and a checkpoint moved forward
behind the follower's back would have it skip events. A record whose MAC is not the key's
is logged, counted and not trusted: the follower reads the log again from its start (what
it does with an event is judged on the verified state of what the event touches, so a
second look changes nothing already done), and its next move signs the record again.
"""
from __future__ import annotations

import logging
from typing import Any

from prometheus_client import Counter
from psycopg.rows import tuple_row

from service.adapters.store import scope
from service.adapters.store.base import START, ChainSigner, Checkpoint

log = logging.getLogger(__name__)

FORGED_TRACKINGS = Counter("cardroom_tracking_records_refused_total",
                           "Followers' tracking records whose MAC is not the chain key's (read again from the start)")

_CREATE = """
INSERT INTO process_trackings (name, transaction_id, position) VALUES (%s, '0'::xid8, 0)
ON CONFLICT (name) DO NOTHING
"""
_CLAIM = """
SELECT transaction_id::text, position, encode(mac, 'hex') FROM process_trackings WHERE name = %s FOR UPDATE
"""
_MOVE = """
UPDATE process_trackings SET transaction_id = %s::text::xid8, position = %s, mac = decode(%s, 'hex'),
                             moved_at = now()
 WHERE name = %s
"""


class PostgresTracking:
    def __init__(self, signer: ChainSigner | None = None) -> None:
        """`signer`: the chain key the records are signed with (None: unsigned, unchecked)."""
        self._signer = signer

    def claim(self, name: str) -> Checkpoint:
        """The follower's checkpoint, its row locked until the open transaction ends; the
        start of the log when the record's MAC is not the key's."""
        with _open_transaction().cursor(row_factory=tuple_row) as cursor:
            row = cursor.execute(_CLAIM, (name,)).fetchone()
            if row is None:
                cursor.execute(_CREATE, (name,))
                row = cursor.execute(_CLAIM, (name,)).fetchone()
        assert row is not None
        checkpoint = Checkpoint(int(row[0]), row[1])
        if self._signer is None or checkpoint == START or self._signer.valid_tracking(name, checkpoint, row[2]):
            return checkpoint
        log.error("the tracking record of %s (at %s) does not carry the chain key's MAC: written behind "
                  "the follower's back; the log is read again from its start", name, checkpoint)
        FORGED_TRACKINGS.inc()
        return START

    def move(self, name: str, checkpoint: Checkpoint) -> None:
        mac = None if self._signer is None else self._signer.sign_tracking(name, checkpoint)
        _open_transaction().execute(_MOVE, (str(checkpoint.transaction_id), checkpoint.position, mac, name))


def _open_transaction() -> Any:
    connection = scope.current_connection()
    if connection is None:
        raise RuntimeError("tracking records are kept inside store.transaction() only")
    return connection
