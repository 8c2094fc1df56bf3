"""Flat costs as a table ages: snapshots of table states, and the indexes a hand read
starts from.

- `snapshots`: a table's state right after a hand closed (service.application.snapshots),
  keyed by stream, the code's schema tag and version, with an HMAC under the chain key
  (the application passes over one without a valid MAC). A cache of the replay: the
  application inserts and reads; nothing updates or deletes.
- `events_hand_opened` / `events_hand_openings`: a hand's opening event by its hand id,
  and the stream's next opening event, so a hand's events are read as one range of the
  stream (service.adapters.store.event_sql.READ_HAND). Partial indexes: one entry per hand,
  nothing for the events most appends write.

Revision ID: 0013
Revises: 0012
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE snapshots (
            stream_id   text COLLATE "C" NOT NULL,
            schema      text NOT NULL,
            version     integer NOT NULL CHECK (version >= 1),
            body        text NOT NULL,
            mac         bytea CHECK (length(mac) = 32),
            recorded_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (stream_id, schema, version)
        )
        """
    )
    op.execute("REVOKE ALL ON snapshots FROM PUBLIC")
    op.execute(f"GRANT SELECT, INSERT ON snapshots TO {writer_role()}")
    op.execute(
        """
        CREATE INDEX events_hand_opened ON events (stream_id, (metadata->>'hand_id'))
         WHERE type = 'HandOpened'
        """
    )
    op.execute("CREATE INDEX events_hand_openings ON events (stream_id, version) WHERE type = 'HandOpened'")


def downgrade() -> None:
    op.execute("DROP INDEX events_hand_openings")
    op.execute("DROP INDEX events_hand_opened")
    op.execute("DROP TABLE snapshots")
