"""Tracking records of the process managers that follow the global log
(service.application.process_managers): one row per follower, the checkpoint (transaction
id, position) up to which it has handled the log.

A follower moves its row in the same transaction as the commands a batch of events calls
for, and locks it (SELECT ... FOR UPDATE) first: a batch commits its commands and its
checkpoint together or neither, and two followers of one name take turns, each starting
where the other committed. The application may read, create and move rows, never delete
them.

Revision ID: 0014
Revises: 0013
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE process_trackings (
            name           text PRIMARY KEY,
            transaction_id xid8 NOT NULL,
            position       bigint NOT NULL,
            moved_at       timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute(f"GRANT SELECT, INSERT, UPDATE ON process_trackings TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP TABLE process_trackings")
