"""Index the action-clock deadlines so the beat sweep does not scan every event.

The sweep (workers.clock_tasks) looks for ClockStarted events whose deadline has passed
and that no later clock event or HandClosed superseded; the unique (stream_id, version)
index already answers the "superseded" probe.

Revision ID: 0003
Revises: 0002
"""
from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE INDEX events_clock_deadline
            ON events (((data->>'deadline_at_ms')::bigint))
         WHERE type = 'ClockStarted'
        """
    )


def downgrade() -> None:
    op.execute("DROP INDEX events_clock_deadline")
