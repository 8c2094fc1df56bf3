"""A MAC on each follower's tracking record (service.adapters.store.trackings): the
application's login may write `process_trackings`, and a checkpoint moved behind the
follower's back would skip events; with the MAC under the chain key (never in the
database) a record the login wrote is found out and the follower reads the log again
from its start instead.

Revision ID: 0019
Revises: 0016
"""
from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE process_trackings ADD COLUMN mac bytea")


def downgrade() -> None:
    op.execute("ALTER TABLE process_trackings DROP COLUMN mac")
