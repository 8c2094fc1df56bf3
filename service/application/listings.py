"""The listings read model (migration 0008): tables, tournaments and players newest first,
filtered, read a page at a time from an index the append's own transaction keeps (a
trigger on `events`), so a list costs its page, never a replay of the streams listed.
Also the names of players, for every answer that lists players beside their ids."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection
from psycopg_pool import ConnectionPool

KINDS = ("table", "tournament", "player")
TABLE_STATUSES = ("waiting", "playing", "closing", "finished")
TOURNAMENT_STATUSES = ("registering", "running", "finished")


@dataclass(frozen=True)
class Listing:
    id: str
    """The stream's id without its kind's prefix."""
    position: int
    """The global position of the stream's first event: newer streams have larger ones."""
    created_at: datetime
    game: str | None
    name: str | None
    status: str
    players: tuple[str, ...]


_PAGE = """
SELECT stream_id, created_position, created_at, game, name, status, players
  FROM listings
 WHERE kind = %(kind)s
   AND (%(status)s::text IS NULL OR status = %(status)s)
   AND (%(game)s::text IS NULL OR game = %(game)s)
   AND (%(player)s::text IS NULL OR players @> ARRAY[%(player)s::text])
   AND (%(name)s::text IS NULL OR lower(name) LIKE %(name)s ESCAPE '\\')
   AND (%(before)s::bigint IS NULL OR created_position < %(before)s)
 ORDER BY created_position DESC
 LIMIT %(limit)s
"""


def page(pool: ConnectionPool, kind: str, limit: int, *, before: int | None = None,
         status: str | None = None, game: str | None = None, player_id: str | None = None,
         name_prefix: str | None = None) -> tuple[list[Listing], bool]:
    """Up to `limit` listings of `kind` created before position `before`, newest first,
    and whether more follow."""
    escaped = None
    if name_prefix is not None:
        escaped = name_prefix.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with pool.connection() as connection:
        rows = connection.execute(_PAGE, {
            "kind": kind, "status": status, "game": game, "player": player_id, "name": escaped,
            "before": before, "limit": limit + 1}).fetchall()
    prefix = len(kind) + 1
    found = [Listing(row[0][prefix:], row[1], row[2], row[3], row[4], row[5], tuple(row[6]))
             for row in rows[:limit]]
    return found, len(rows) > limit


_OPEN_TABLES = "SELECT stream_id FROM listings WHERE kind = 'table' AND status <> 'finished' ORDER BY stream_id"


def open_tables(connection: Connection[Any]) -> list[str]:
    """The id of every table not listed as finished (waiting, playing or closing), in one
    query on `connection` (a pool's, or the open transaction's)."""
    prefix = len("table-")
    return [row[0][prefix:] for row in connection.execute(_OPEN_TABLES).fetchall()]


_LISTED = "SELECT stream_id FROM listings WHERE substr(stream_id, 1, %(length)s) = %(prefix)s ORDER BY stream_id"


def listed_streams(pool: ConnectionPool, prefix: str = "") -> list[str]:
    """The stream id of every listing starting with `prefix`: what `verify` expects the
    log to hold (a stream removed with its events but not its listing is reported)."""
    with pool.connection() as connection:
        rows = connection.execute(_LISTED, {"length": len(prefix), "prefix": prefix}).fetchall()
    return [row[0] for row in rows]


def names(pool: ConnectionPool, player_ids: Iterable[str]) -> dict[str, str]:
    """Each registered player's name (one query, whatever the count)."""
    wanted = sorted({f"player-{p}" for p in player_ids if p})
    if not wanted:
        return {}
    with pool.connection() as connection:
        rows = connection.execute(
            "SELECT stream_id, name FROM listings WHERE stream_id = ANY(%s)", (wanted,)).fetchall()
    return {stream_id[len("player-"):]: name for stream_id, name in rows}
