"""The open action clocks whose deadline has passed, read from the log: what the clock
sweep (workers.clock_tasks) acts on and what `GET /v1/status` counts."""
from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from service.application import commands

# The open deadlines: each table's ClockStarted events that nothing ended since (a later
# ClockStarted, ClockExpired or HandClosed), due by now. The domain still checks each.
_DUE_CLOCKS = """
SELECT e.stream_id, e.data FROM events e
 WHERE e.type = 'ClockStarted' AND e.stream_id LIKE %(prefix)s
   AND (e.data->>'deadline_at_ms')::bigint <= %(due_by)s
   AND NOT EXISTS (SELECT 1 FROM events later
                    WHERE later.stream_id = e.stream_id AND later.version > e.version
                      AND later.type IN ('ClockStarted', 'ClockExpired', 'HandClosed'))
 ORDER BY (e.data->>'deadline_at_ms')::bigint
 LIMIT %(limit)s
"""


def due_clocks(pool: ConnectionPool, due_by_ms: int, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """(table id, ClockStarted data) of open clocks with a deadline at or before `due_by_ms`,
    the most overdue first, at most `limit`."""
    with pool.connection() as connection:
        rows = connection.execute(_DUE_CLOCKS, {"prefix": commands.STREAM_PREFIX + "%", "due_by": due_by_ms,
                                                "limit": limit}).fetchall()
    return [(stream_id.removeprefix(commands.STREAM_PREFIX), data) for stream_id, data in rows]
