"""API keys: only the sha256 of each secret is stored.

Revision ID: 0002
Revises: 0001
"""
from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE api_keys (
            id         text PRIMARY KEY,
            key_hash   text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
            role       text NOT NULL
                       CHECK (role IN ('admin', 'organiser', 'floor', 'player', 'spectator')),
            player_id  text,
            created_at timestamptz NOT NULL DEFAULT now(),
            -- a player key is bound to exactly one player; no other role is
            CHECK ((role = 'player') = (player_id IS NOT NULL))
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE api_keys")
