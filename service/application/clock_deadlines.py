"""The open action clocks whose deadline has passed, as the log's trigger keeps them
(`open_clocks`): what the clock watch and the clock sweep (workers.clock_tasks) act on and
what `GET /v1/status` counts."""
from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from service.application import commands

# The running clocks (migration 0011 keeps one row per table whose clock runs, in the
# append's transaction), due by now and not yet looked at: an index range, however many
# clocks ever ran. The domain still checks each.
_DUE_CLOCKS = """
SELECT stream_id, data FROM open_clocks
 WHERE stream_id LIKE %(prefix)s AND deadline_at_ms > %(after)s AND deadline_at_ms <= %(due_by)s
 ORDER BY deadline_at_ms
 LIMIT %(limit)s
"""

# One probe of the deadline index.
_NEXT_DEADLINE = """
SELECT min(deadline_at_ms) FROM open_clocks
 WHERE stream_id LIKE %(prefix)s AND deadline_at_ms > %(after)s
"""


def due_clocks(pool: ConnectionPool, due_by_ms: int, limit: int, *,
               after_ms: int = -1) -> list[tuple[str, dict[str, Any]]]:
    """(table id, ClockStarted data) of open clocks with a deadline after `after_ms` and at or
    before `due_by_ms`, the most overdue first, at most `limit`."""
    with pool.connection() as connection:
        rows = connection.execute(_DUE_CLOCKS, {"prefix": commands.STREAM_PREFIX + "%", "after": after_ms,
                                                "due_by": due_by_ms, "limit": limit}).fetchall()
    return [(stream_id.removeprefix(commands.STREAM_PREFIX), data) for stream_id, data in rows]


def next_deadline(connection: Any, after_ms: int) -> int | None:
    """The earliest deadline (ms) of an open clock after `after_ms`, if any runs."""
    row = connection.execute(_NEXT_DEADLINE, {"prefix": commands.STREAM_PREFIX + "%", "after": after_ms}).fetchone()
    return None if row is None or row[0] is None else int(row[0])
