"""Tracking records on PostgreSQL (migration 0011): where each follower of the global log
stands, kept in the transaction of the commands its batches send.

`claim` locks the follower's row inside the store transaction that is open
(`store.transaction()`): a second follower of the same name waits on the lock until the
first commits, then reads the checkpoint it committed, so no position is handled twice;
`move` writes the new checkpoint in that same transaction.

The application's login may update these rows, so each carries a MAC (migration 0016,
service.adapters.row_macs) over (name, checkpoint): a row moved in the database, to skip
events or to replay them from a made-up point, is refused (TrackingRefused) and reported,
and the follower goes no further until an operator looks. A row from before 0016 has no
MAC: it is taken only as it stood then (`process_trackings_unsigned`).
"""
from __future__ import annotations

from typing import Any

from psycopg.rows import tuple_row

from service.adapters.row_macs import RowSigner
from service.adapters.store import scope
from service.adapters.store.base import Checkpoint

_CREATE = """
INSERT INTO process_trackings (name, transaction_id, position, mac) VALUES (%s, '0'::xid8, 0, %s)
ON CONFLICT (name) DO NOTHING
"""
_CLAIM = """
SELECT t.transaction_id::text, t.position, t.mac,
       (u.transaction_id, u.position) IS NOT DISTINCT FROM (t.transaction_id, t.position)
  FROM process_trackings t LEFT JOIN process_trackings_unsigned u ON u.name = t.name
 WHERE t.name = %s FOR UPDATE OF t
"""
_READ = _CLAIM.replace(" FOR UPDATE OF t", "")
_MOVE = """
UPDATE process_trackings SET transaction_id = %s::text::xid8, position = %s, moved_at = now(), mac = %s
 WHERE name = %s
"""


class TrackingRefused(Exception):
    """A follower's tracking record fails its MAC: moved in the database, not by a follower."""


class PostgresTracking:
    """`signer`: the MACs of the rows (None: neither written nor checked, as in tests of
    the follower alone)."""

    def __init__(self, signer: RowSigner | None = None) -> None:
        self._signer = signer

    def claim(self, name: str, *, lock_row: bool = True) -> Checkpoint:
        """The follower's checkpoint, its row locked until the open transaction ends
        (`lock_row` False: read only, for a follower that holds a lock of its own, as the
        public log's integrator does: a row lock gives the reading transaction an id at
        once, which holds back every reader of the log's gap-safe order until it ends)."""
        claim = _CLAIM if lock_row else _READ
        with _open_transaction().cursor(row_factory=tuple_row) as cursor:
            row = cursor.execute(claim, (name,)).fetchone()
            if row is None:
                cursor.execute(_CREATE, (name, self._sign(name, Checkpoint(0, 0))))
                row = cursor.execute(claim, (name,)).fetchone()
        assert row is not None
        transaction_id, position, mac, as_before_0016 = row
        checkpoint = Checkpoint(int(transaction_id), position)
        if self._signer and not (self._signer.valid(mac, name, checkpoint.transaction_id, checkpoint.position)
                                 or (mac is None and as_before_0016)):
            self._signer.refused(f"follower {name} at {checkpoint}")
            raise TrackingRefused(f"the tracking record of {name} fails its MAC: moved in the database")
        return checkpoint

    def move(self, name: str, checkpoint: Checkpoint) -> None:
        _open_transaction().execute(_MOVE, (str(checkpoint.transaction_id), checkpoint.position,
                                            self._sign(name, checkpoint), name))

    def _sign(self, name: str, checkpoint: Checkpoint) -> str | None:
        return self._signer.sign(name, checkpoint.transaction_id, checkpoint.position) if self._signer else None


def refused_trackings(connection: Any, signer: RowSigner) -> list[dict[str, str]]:
    """Every tracking record whose MAC fails (for GET /v1/status)."""
    rows = connection.execute(
        "SELECT t.name, t.transaction_id::text, t.position, t.mac,"
        "       (u.transaction_id, u.position) IS NOT DISTINCT FROM (t.transaction_id, t.position)"
        "  FROM process_trackings t LEFT JOIN process_trackings_unsigned u ON u.name = t.name").fetchall()
    return [{"table": "process_trackings", "row": f"follower {name}"}
            for name, transaction_id, position, mac, as_before_0016 in rows
            if not (signer.valid(mac, name, int(transaction_id), position) or (mac is None and as_before_0016))]


def _open_transaction() -> Any:
    connection = scope.current_connection()
    if connection is None:
        raise RuntimeError("tracking records are kept inside store.transaction() only")
    return connection
