"""The replication state, for /healthz, /v1/status and `cardroom status`: which server the
application reached, whether it is in recovery, and each standby's state, sync state and lag
(`pg_stat_replication`).

A member of neither pg_read_all_stats nor pg_monitor sees only the pid and the user of
another session's replication row; the application's login is neither. So the view is read
through `cardroom_replication()`, the owner's (SECURITY DEFINER, a fixed search_path),
which the writer may execute, and the owner is granted pg_read_all_stats by the roles'
set-up (service.adapters.migrate.ensure_roles, as the administrator who runs it). Without
that grant (an administrator who may not give it) the function still answers, each
standby's details null.

Revision ID: 0020
Revises: 0016
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0020"
down_revision = "0016"
branch_labels = None
depends_on = None

REPLICATION = r"""
CREATE FUNCTION cardroom_replication(
    OUT application_name text, OUT client_addr text, OUT state text, OUT sync_state text,
    OUT write_lag_s double precision, OUT flush_lag_s double precision,
    OUT replay_lag_s double precision, OUT replay_lag_bytes numeric)
RETURNS SETOF record LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT application_name, host(client_addr), state, sync_state,
           extract(epoch FROM write_lag)::double precision,
           extract(epoch FROM flush_lag)::double precision,
           extract(epoch FROM replay_lag)::double precision,
           CASE WHEN pg_is_in_recovery() THEN NULL
                ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) END
      FROM pg_stat_replication
     ORDER BY application_name
$$
"""


def upgrade() -> None:
    op.execute(REPLICATION)
    op.execute("REVOKE ALL ON FUNCTION cardroom_replication() FROM PUBLIC")
    op.execute(f"GRANT EXECUTE ON FUNCTION cardroom_replication() TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP FUNCTION cardroom_replication()")
