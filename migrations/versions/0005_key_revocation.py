"""API keys can be revoked: `revoked_at` (null while the key works).

`created_at` has been there since 0002; `GET /v1/keys` pages in (created_at, id) order,
which the new index serves.

Revision ID: 0005
Revises: 0004
"""
from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE api_keys ADD COLUMN revoked_at timestamptz")
    op.execute("CREATE INDEX api_keys_issued_order ON api_keys (created_at, id)")


def downgrade() -> None:
    op.execute("DROP INDEX api_keys_issued_order")
    op.execute("ALTER TABLE api_keys DROP COLUMN revoked_at")
