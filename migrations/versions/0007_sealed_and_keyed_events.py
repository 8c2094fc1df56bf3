"""Sealed fields and keyed hashes on events.

- `sealed`: an event's secret fields (a hand's deck and salt), stored apart from `data` so
  that a read returns them only when it asks to, and only for hands already closed
  (service.store.base.Reveal). The hash chain covers them.
- `mac`: HMAC-SHA256 of (stream, version, hash) under a key the database never holds
  (service.store.base.ChainSigner), so whoever can write this table still cannot forge a
  chain that verifies.
- An index to find a hand's closing event (HandClosed) from its hand id.

Revision ID: 0007
Revises: 0006
"""
from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE events ADD COLUMN sealed jsonb, ADD COLUMN mac bytea CHECK (length(mac) = 32)")
    op.execute(
        """
        CREATE INDEX events_hand_closed ON events (stream_id, (metadata->>'hand_id'))
         WHERE type = 'HandClosed'
        """
    )


def downgrade() -> None:
    op.execute("DROP INDEX events_hand_closed")
    op.execute("ALTER TABLE events DROP COLUMN mac, DROP COLUMN sealed")
