"""The append statements notify themselves: `pg_notify('cardroom_events', '<stream id> <last
version>')` is a column of the store's INSERT (service.adapters.store.event_sql), and the
statement-level trigger of 0009 that did it is dropped.

The trigger's transition table copied every appended row for a function that grouped them
by stream, in PL/pgSQL: a tenth of the append's execution (issue 37: 0.025 of 0.26 ms for
a table action's two events). The store's two append statements are the only writers of
events; the notification still leaves with the commit, never for a rolled-back append,
one per append with its last version. An insert by other means (the database's owner)
notifies nobody: a notification is a hint (service.notifications: feeds are re-read every
FALLBACK_S anyway), not a record.

Revision ID: 0022
Revises: 0021_merkle_log
"""
from __future__ import annotations

from alembic import op

revision = "0022"
down_revision = "0021_merkle_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TRIGGER events_notify_appended ON events")
    op.execute("DROP FUNCTION cardroom_notify_appended()")


def downgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION cardroom_notify_appended() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('cardroom_events', a.stream_id || ' ' || a.version)
               FROM (SELECT stream_id, max(version) AS version
                       FROM appended GROUP BY stream_id) a;
            RETURN NULL;
        END
        $$
        """
    )
    op.execute("REVOKE ALL ON FUNCTION cardroom_notify_appended FROM PUBLIC")
    op.execute(
        """
        CREATE TRIGGER events_notify_appended AFTER INSERT ON events
        REFERENCING NEW TABLE AS appended
        FOR EACH STATEMENT EXECUTE FUNCTION cardroom_notify_appended()
        """
    )
