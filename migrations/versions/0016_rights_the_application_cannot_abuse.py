"""Rights the application's login cannot abuse (issue 38).

- Key rows, revocations, page sessions and idempotency records carry a MAC (`mac`) under a
  key derived from the chain key, which the database never holds
  (service.adapters.row_macs): a row the login inserts or a superuser edits fails it and
  is refused. Rows written before this migration have none: keys issued before it stop
  working (issue new ones with the admin key), open page sessions are closed, and stored
  idempotency answers are dropped.
- Revocation is a record the application may add and never change or remove:
  `key_revocations`, one row per revoked key, INSERT and SELECT only. `api_keys.revoked_at`
  (which the application could set back to NULL) moves there and is dropped.
- A follower's tracking record (process_trackings) carries a MAC too, so the login cannot
  move a follower past events it has not handled. The records written before this
  migration are kept, unsigned, in `process_trackings_unsigned` (the owner's; the
  application may read it): a record without a MAC is taken only as it stood then, and its
  next move signs it.
- Idempotency records are insert-only for the application: an expired one is removed by
  `idempotency_records_remove_expired`, a SECURITY DEFINER function of the owner that
  deletes only rows expired by the database's clock.
- The writer's rights are stated here whole, for every table (the README's table of
  rights), after everything is taken from PUBLIC and from the writer role every database
  shared before roles were named per database (service.adapters.migrate.roles_for).

Revision ID: 0016
Revises: 0015
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import LEGACY_WRITER_ROLE, quoted, writer_role

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

WRITER_RIGHTS = {
    "events": "SELECT, INSERT",
    "api_keys": "SELECT, INSERT",
    "key_revocations": "SELECT, INSERT",
    "idempotency_records": "SELECT, INSERT",
    "page_sessions": "SELECT, INSERT, DELETE",
    "snapshots": "SELECT, INSERT",
    "listings": "SELECT",
    "open_clocks": "SELECT",
    "process_trackings": "SELECT, INSERT, UPDATE",
    "process_trackings_unsigned": "SELECT",
    "alembic_version": "",
}


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE key_revocations (
            key_id     text PRIMARY KEY REFERENCES api_keys (id),
            revoked_at timestamptz NOT NULL DEFAULT now(),
            mac        text
        )
        """
    )
    # Each web process asks every KEY_CACHE_TTL_S which keys were revoked since it last
    # asked: one range of this index (service.http.api_keys.ApiKeys).
    op.execute("CREATE INDEX key_revocations_order ON key_revocations (revoked_at)")
    op.execute("INSERT INTO key_revocations (key_id, revoked_at)"
               " SELECT id, revoked_at FROM api_keys WHERE revoked_at IS NOT NULL")
    op.execute("ALTER TABLE api_keys DROP COLUMN revoked_at")  # and its index (0015)
    op.execute("ALTER TABLE api_keys ADD COLUMN mac text")

    op.execute("DELETE FROM page_sessions")
    op.execute("ALTER TABLE page_sessions ADD COLUMN mac text")

    op.execute("ALTER TABLE process_trackings ADD COLUMN mac text")
    op.execute("CREATE TABLE process_trackings_unsigned AS"
               " SELECT name, transaction_id, position FROM process_trackings")
    op.execute("ALTER TABLE process_trackings_unsigned ADD PRIMARY KEY (name)")

    op.execute("DELETE FROM idempotency_records")
    op.execute("ALTER TABLE idempotency_records ADD COLUMN mac text")
    op.execute(
        """
        CREATE FUNCTION idempotency_records_remove_expired(
            the_owner text, the_key text, expired_at timestamptz, at_most integer)
        RETURNS integer
        LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public
        AS $$
            -- The key's own record and up to at_most others, each expired by the caller's
            -- clock and by the database's: never a record still live.
            WITH removed AS (
                DELETE FROM public.idempotency_records
                 WHERE expires_at <= least(expired_at, now())
                   AND ((owner = the_owner AND key = the_key)
                        OR ctid = ANY (ARRAY (
                            SELECT ctid FROM public.idempotency_records
                             WHERE expires_at <= least(expired_at, now())
                             ORDER BY expires_at LIMIT greatest(at_most, 0)
                               FOR UPDATE SKIP LOCKED)))
                RETURNING 1)
            SELECT count(*)::integer FROM removed
        $$
        """
    )
    # Functions are PUBLIC's to call unless taken away: the application calls this one only
    # (trigger functions fire without the right to call them).
    op.execute("REVOKE ALL ON FUNCTION idempotency_records_remove_expired, events_refuse_change,"
               " cardroom_notify_appended FROM PUBLIC")
    writer = writer_role()
    op.execute(f"GRANT EXECUTE ON FUNCTION idempotency_records_remove_expired TO {writer}")

    tables = ", ".join(WRITER_RIGHTS)
    op.execute(f"REVOKE ALL ON {tables} FROM PUBLIC, {writer}")
    if writer != quoted(LEGACY_WRITER_ROLE):
        op.execute(
            f"""
            DO $$ BEGIN
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{LEGACY_WRITER_ROLE}') THEN
                    REVOKE ALL ON {tables} FROM {quoted(LEGACY_WRITER_ROLE)};
                END IF;
            END $$
            """
        )
    for table, rights in WRITER_RIGHTS.items():
        if rights:
            op.execute(f"GRANT {rights} ON {table} TO {writer}")


def downgrade() -> None:
    writer = writer_role()
    op.execute("GRANT EXECUTE ON FUNCTION events_refuse_change, cardroom_notify_appended TO PUBLIC")
    op.execute("DROP FUNCTION idempotency_records_remove_expired")
    op.execute("ALTER TABLE idempotency_records DROP COLUMN mac")
    op.execute(f"GRANT UPDATE, DELETE ON idempotency_records TO {writer}")
    op.execute("ALTER TABLE page_sessions DROP COLUMN mac")
    op.execute("DROP TABLE process_trackings_unsigned")
    op.execute("ALTER TABLE process_trackings DROP COLUMN mac")
    op.execute("ALTER TABLE api_keys DROP COLUMN mac")
    op.execute("ALTER TABLE api_keys ADD COLUMN revoked_at timestamptz")
    op.execute("UPDATE api_keys k SET revoked_at = r.revoked_at FROM key_revocations r WHERE r.key_id = k.id")
    op.execute("CREATE INDEX api_keys_revoked ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL")
    op.execute(f"GRANT UPDATE (revoked_at) ON api_keys TO {writer}")
    op.execute("DROP TABLE key_revocations")
