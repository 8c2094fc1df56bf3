"""Which database server the application reached, and how its replication stands: what
/healthz, /v1/status and `cardroom status` show an operator on a Patroni cluster.

- `host`, `port`: the host of the connection string the connection got (with several hosts
  libpq tried, the one that answered as `target_session_attrs` asked); `server_address`:
  the address the server itself says it answered on (`inet_server_addr()`, null on a unix
  socket).
- `in_recovery`: the server is a standby (every write is refused: a primary demoted under
  the pool, or a connection string without `target_session_attrs=read-write`).
- `standbys`: `pg_stat_replication` through `cardroom_replication()` (migration 0020):
  each standby's name, address, state (`streaming`, `catchup`...), sync state (`sync`,
  `quorum`, `potential`, `async`) and its write, flush and replay lag.
- `lag_s`: on a primary, the largest replay lag of its standbys (0 for one that has caught
  up and idles: PostgreSQL then shows no lag); on a standby, how long ago the last replayed
  transaction committed; null without standbys. `lag_bytes`: the WAL a standby has still
  to replay, the largest.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

_SERVER = """
SELECT host(inet_server_addr()) AS address, inet_server_port() AS port, pg_is_in_recovery() AS in_recovery,
       CASE WHEN pg_is_in_recovery()
            THEN extract(epoch FROM now() - pg_last_xact_replay_timestamp())::double precision END AS replay_delay_s
"""
_STANDBYS = "SELECT * FROM cardroom_replication()"


def database_server(connection: psycopg.Connection[Any]) -> dict[str, Any]:
    """The server this connection reached and its replication, in two short queries."""
    server = connection.execute(_SERVER).fetchone()
    assert server is not None
    address, port, in_recovery, replay_delay_s = server
    try:
        with connection.cursor(row_factory=dict_row) as cursor:
            standbys = [_standby(row) for row in cursor.execute(_STANDBYS).fetchall()]
    except psycopg.errors.UndefinedFunction:  # a schema before migration 0020 (a rolling upgrade)
        standbys = []
    if in_recovery:
        lag_s = replay_delay_s
        lag_bytes = None
    else:
        lag_s = max((s["replay_lag_s"] or 0.0 for s in standbys), default=None)
        lag_bytes = max((s["replay_lag_bytes"] for s in standbys if s["replay_lag_bytes"] is not None), default=None)
    return {
        "host": connection.info.host,
        "port": connection.info.port,
        "server_address": None if address is None else f"{address}:{port}",
        "in_recovery": bool(in_recovery),
        "standbys": standbys,
        "synchronous_standbys": sum(1 for s in standbys if s["sync_state"] in ("sync", "quorum")),
        "lag_s": None if lag_s is None else round(float(lag_s), 3),
        "lag_bytes": lag_bytes,
    }


def _standby(row: dict[str, Any]) -> dict[str, Any]:
    lag_bytes = row["replay_lag_bytes"]
    return {**row, "replay_lag_bytes": None if lag_bytes is None else int(lag_bytes)}
