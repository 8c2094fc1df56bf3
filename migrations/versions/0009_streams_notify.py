"""Every append notifies: `pg_notify('cardroom_events', '<stream id> <last version>')`.

A statement-level trigger, so an append of several events sends one notification per
stream it wrote, and the notification leaves with the transaction's commit (never before
the events are readable, never for a rolled-back append). The payload names the stream
and its version only, never event content: a listener re-reads the log, redacted for
whoever it serves (service.notifications).

Revision ID: 0009
Revises: 0008
"""
from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
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
    op.execute(
        """
        CREATE TRIGGER events_notify_appended AFTER INSERT ON events
        REFERENCING NEW TABLE AS appended
        FOR EACH STATEMENT EXECUTE FUNCTION cardroom_notify_appended()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER events_notify_appended ON events")
    op.execute("DROP FUNCTION cardroom_notify_appended()")
